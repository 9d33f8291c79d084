/** The ffmpeg/ffprobe binaries: bundled by default, overridable, and a one-line start-up problem when missing. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mediaBinaries, mediaBinariesProblem } from "../../src/providers/media-binaries.ts";
import { probeVideo } from "../../src/providers/media-probe.ts";

test("the bundled binaries are found and executable; overrides win", () => {
  const bundled = mediaBinaries({});
  assert.match(bundled.ffmpeg ?? "", /@ffmpeg-installer/);
  assert.match(bundled.ffprobe ?? "", /@ffprobe-installer/);
  assert.equal(mediaBinariesProblem(bundled), undefined);
  assert.deepEqual(mediaBinaries({ ffmpegPath: "/opt/ff/ffmpeg", ffprobePath: "/opt/ff/ffprobe" }), {
    ffmpeg: "/opt/ff/ffmpeg",
    ffprobe: "/opt/ff/ffprobe",
  });
});

test("a missing binary is one line naming it and the fix", async () => {
  const problem = mediaBinariesProblem(mediaBinaries({ ffmpegPath: "/nonexistent/ffmpeg" }));
  assert.ok(problem);
  assert.doesNotMatch(problem, /\n/);
  assert.match(problem, /ffmpeg \(\/nonexistent\/ffmpeg\)/);
  assert.match(problem, /npm install @ffmpeg-installer\/ffmpeg/);
  assert.match(problem, /FFMPEG_PATH/);
  assert.doesNotMatch(problem, /ffprobe/);
  await assert.rejects(probeVideo("/nonexistent.mp4", { ffprobePath: "/nonexistent/ffprobe" }));
});
