/**
 * Which of the product's own photos a video shows (src/domain/automations/video-frames.ts): the grid takes
 * up to four photos, one photo whole and as a close-up; the fade and UGC take the first; none without photos.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CLOSE_UP_ZOOM, ownFrames } from "../../src/domain/automations/video-frames.ts";

const p = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`photo-${i}`));
const names = (images: Buffer[]) => images.map((b) => b.toString());

test("ownFrames: photos per template and count", () => {
  const table: Array<[Parameters<typeof ownFrames>[0], number, string[], number[]]> = [
    ["2x2-grid", 0, [], []],
    ["2x2-grid", 1, ["photo-0", "photo-0"], [1, CLOSE_UP_ZOOM]],
    ["2x2-grid", 2, ["photo-0", "photo-1"], [1, 1]],
    ["2x2-grid", 5, ["photo-0", "photo-1", "photo-2", "photo-3"], [1, 1, 1, 1]],
    ["single-fade", 3, ["photo-0"], [1]],
    ["ugc-video", 1, ["photo-0"], [1]],
    ["ugc-video", 0, [], []],
  ];
  for (const [template, n, images, zooms] of table) {
    const own = ownFrames(template, p(n));
    assert.deepEqual([names(own.images), own.zooms], [images, zooms], `${template} with ${n} photo(s)`);
  }
});
