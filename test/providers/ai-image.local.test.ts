/** The local image provider: a designed, deterministic background per design, decoded with sharp. */
import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { localImageProvider } from "../../src/providers/ai-image/local.ts";

/** Distinct colours in a 64x64 downscale of `bytes`. */
async function colours(bytes: Buffer): Promise<number> {
  const raw = await sharp(bytes).resize(64, 64, { fit: "fill" }).removeAlpha().raw().toBuffer();
  const seen = new Set<number>();
  for (let i = 0; i < raw.length; i += 3) seen.add((raw[i]! << 16) | (raw[i + 1]! << 8) | raw[i + 2]!);
  return seen.size;
}

test("the local image provider returns a deterministic JPEG of the requested size that is not flat", async () => {
  const p = localImageProvider();
  const req = { prompt: "hero", seed: "post:1:run", width: 120, height: 150, design: "bold-minimal" };
  const a = await p.generate(req);
  const b = await p.generate(req);
  const c = await p.generate({ ...req, seed: "post:2:run" });
  assert.deepEqual(a.bytes, b.bytes);
  assert.notDeepEqual(a.bytes, c.bytes);
  const meta = await sharp(a.bytes).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 120, 150]);
  assert.equal(a.mimeType, "image/jpeg");
  assert.ok((await colours(a.bytes)) > 200, "a gradient with shapes has many colours");
});

test("each design gets its own palette, and a product photo shows through as a duotone", async () => {
  const p = localImageProvider();
  const req = { prompt: "hero", seed: "s", width: 200, height: 250 };
  const bold = await p.generate({ ...req, design: "bold-minimal" });
  const quote = await p.generate({ ...req, design: "quote-card" });
  const mean = async (b: Buffer) => (await sharp(b).stats()).channels.map((c) => Math.round(c.mean));
  assert.notDeepEqual(await mean(bold.bytes), await mean(quote.bytes));
  const photo = await sharp({ create: { width: 100, height: 100, channels: 3, background: "#ffffff" } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect x="0" y="0" width="50" height="100"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const withPhoto = await p.generate({ ...req, design: "bold-minimal", reference: photo });
  /** Mean red of the left and right halves (extracted first: sharp's stats() reads the unprocessed input). */
  const halves = async (b: Buffer) =>
    Promise.all(
      [0, 100].map(async (left) => {
        const part = await sharp(b).extract({ left, top: 0, width: 100, height: 250 }).toBuffer();
        return (await sharp(part).stats()).channels[0]!.mean;
      }),
    );
  const [l, r] = await halves(withPhoto.bytes);
  const [l0, r0] = await halves(bold.bytes);
  assert.ok(r! - l! > r0! - l0! + 5, "the photo's light half lightens the right side of the visual");
});
