/** Design previews (list_carousel_formats `preview_url`): a rendered sample slide per active design. */
import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });

test("GET /media/previews/{design}.jpg serves a 1080x1350 JPEG sample of an active design, cached", async () => {
  const res = await fetch(`${app.url}/media/previews/quote-card.jpg`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/jpeg");
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 1080, 1350]);
  const again = Buffer.from(await (await fetch(`${app.url}/media/previews/quote-card.jpg`)).arrayBuffer());
  assert.deepEqual(again, bytes);
  const other = Buffer.from(await (await fetch(`${app.url}/media/previews/split-frame.jpg`)).arrayBuffer());
  assert.notDeepEqual(other, bytes, "each design looks different");
});

test("unknown, retired or malformed design previews are 404", async () => {
  for (const path of ["no-such-design.jpg", "legacy-collage.jpg", "bold-minimal.png", "..%2Fsecret.jpg"]) {
    const res = await fetch(`${app.url}/media/previews/${path}`);
    assert.equal(res.status, 404, path);
  }
});
