/**
 * The slide renderer (src/providers/render/): outputs decoded with sharp. Slides are JPEGs of the format's
 * exact size with many colours; the text is really drawn (with/without text comparison); a 120-character
 * headline fits its box (laid-out height and glyph extents inside the box, and no pixel outside the box
 * changes when the headline is added); the text overlay is a transparent PNG.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { localImageProvider } from "../../src/providers/ai-image/local.ts";
import { DESIGNS } from "../../src/providers/render/designs.ts";
import { fitText } from "../../src/providers/render/fit.ts";
import { renderSlide, type SlideContent } from "../../src/providers/render/slide.ts";

const photo = await sharp({ create: { width: 900, height: 700, channels: 3, background: "#f2d7b6" } })
  .composite([
    {
      input: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="700"><rect x="380" y="150" width="140" height="420" rx="30" fill="#5a2e1a"/></svg>',
      ),
    },
  ])
  .png()
  .toBuffer();

const LONG =
  "Vitamin C serum that brightens dull skin in fourteen days, absorbs in seconds and layers under makeup w";
const HEADLINE_120 = `${LONG}ithout pilling ok`.slice(0, 120);

const content = (over: Partial<SlideContent> = {}): SlideContent => ({
  headline: "Brighter skin in 14 days",
  body: "15% vitamin C with hyaluronic acid, fragrance free.",
  position: 2,
  total: 6,
  kind: "content",
  productName: "Glow Serum",
  ...over,
});

async function visualFor(design: string, width: number, height: number): Promise<Buffer> {
  const v = await localImageProvider().generate({ prompt: "p", seed: `t:${design}`, width, height, design });
  return v.bytes;
}

async function raw(bytes: Buffer) {
  return sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

async function distinctColours(bytes: Buffer): Promise<number> {
  const px = await sharp(bytes).resize(120, 150, { fit: "fill" }).removeAlpha().raw().toBuffer();
  const seen = new Set<number>();
  for (let i = 0; i < px.length; i += 3) seen.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!);
  return seen.size;
}

/**
 * A distinctive product photo (800 x 1000, portrait): a magenta backdrop with a green square of 300 px
 * centred on it. The green square is found in the slide's photo box, and stays square (no distortion).
 */
const productPhoto = await sharp({ create: { width: 800, height: 1000, channels: 3, background: "#d81b8c" } })
  .composite([
    {
      input: { create: { width: 300, height: 300, channels: 3, background: "#1fd11f" } },
      left: 250,
      top: 350,
    },
  ])
  .png()
  .toBuffer();
const isGreen = (r: number, g: number, b: number) => g > 160 && r < 110 && b < 110;

/** The green pixels inside `box` of the JPEG `bytes`: how many and their bounding box. */
async function greenIn(bytes: Buffer, box: { x: number; y: number; w: number; h: number }) {
  const { data, info } = await raw(bytes);
  let n = 0;
  let sumG = 0;
  const bb = { x0: Number.POSITIVE_INFINITY, y0: Number.POSITIVE_INFINITY, x1: -1, y1: -1 };
  for (let y = box.y; y < box.y + box.h; y++)
    for (let x = box.x; x < box.x + box.w; x++) {
      const i = (y * info.width + x) * 3;
      if (!isGreen(data[i]!, data[i + 1]!, data[i + 2]!)) continue;
      n += 1;
      sumG += data[i + 1]!;
      bb.x0 = Math.min(bb.x0, x);
      bb.y0 = Math.min(bb.y0, y);
      bb.x1 = Math.max(bb.x1, x);
      bb.y1 = Math.max(bb.y1, y);
    }
  return { n, w: bb.x1 - bb.x0 + 1, h: bb.y1 - bb.y0 + 1, meanG: sumG / Math.max(1, n) };
}

test("HEADLINE_120 is 120 characters", () => assert.equal(HEADLINE_120.length, 120));

for (const [format, width, height] of [
  ["square", 1080, 1080],
  ["portrait", 1080, 1350],
  ["story", 1080, 1920],
] as const) {
  test(`every design renders a ${format} JPEG of exactly ${width}x${height}, sRGB, many colours, < 8 MB, the product photo undistorted on the hook, content and CTA slides`, async () => {
    for (const id of Object.keys(DESIGNS)) {
      const visual = await visualFor(id, width, height);
      for (const kind of ["hook", "content", "cta"] as const) {
        const out = await renderSlide({
          design: id,
          width,
          height,
          visual,
          photo: productPhoto,
          content: content({ kind, position: kind === "hook" ? 1 : kind === "cta" ? 6 : 3 }),
        });
        const meta = await sharp(out.bytes).metadata();
        assert.deepEqual(
          [meta.format, meta.width, meta.height, meta.space],
          ["jpeg", width, height, "srgb"],
          id,
        );
        assert.ok(out.bytes.length < 8 * 1024 * 1024);
        assert.ok((await distinctColours(out.bytes)) > 300, `${id} ${kind} is not flat`);
        assert.ok(out.headline.fit.fits, `${id} ${kind} headline fits`);
        const where = `${id} ${kind}`;
        assert.ok(out.photo, `${where}: the slide reports a photo box`);
        const green = await greenIn(out.bytes, out.photo);
        // The square covers 9% of the photo; cover-fitting or framing keeps at least a third of that share.
        assert.ok(green.n > out.photo.w * out.photo.h * 0.03, `${where}: ${green.n} green pixels in the box`);
        // Shown as is, not veiled: the square keeps its own green (#1fd11f: 209) within JPEG error.
        assert.ok(green.meanG > 195, `${where}: the photo is not veiled (mean green ${green.meanG})`);
        const aspect = green.w / green.h;
        assert.ok(
          aspect > 0.92 && aspect < 1.08,
          `${where}: the square stays square (${green.w}x${green.h})`,
        );
        const outside = await greenIn(out.bytes, { x: 0, y: 0, w: width, h: height });
        assert.ok(outside.n - green.n < green.n * 0.05, `${where}: the photo stays in its box`);
      }
    }
  });
}

test("the text is really on the slide: the same slide without text differs in the headline box", async () => {
  for (const id of Object.keys(DESIGNS)) {
    const visual = await visualFor(id, 1080, 1350);
    const base = { design: id, width: 1080, height: 1350, visual, photo };
    const withText = await renderSlide({ ...base, content: content() });
    const without = await renderSlide({ ...base, content: content({ headline: "", body: "" }) });
    const a = await raw(withText.bytes);
    const b = await raw(without.bytes);
    const box = withText.headline.box;
    let changed = 0;
    for (let y = box.y; y < box.y + box.h; y += 2)
      for (let x = box.x; x < box.x + box.w; x += 2) {
        const i = (y * 1080 + x) * 3;
        if (Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 60) changed += 1;
      }
    assert.ok(changed > 500, `${id}: ${changed} sampled pixels of the headline box carry text`);
  }
});

test("a 120-character headline shrinks to fit its box and changes no pixel outside it", async () => {
  for (const id of Object.keys(DESIGNS)) {
    const visual = await visualFor(id, 1080, 1350);
    const base = { design: id, width: 1080, height: 1350, visual, photo };
    const long = await renderSlide({ ...base, content: content({ headline: HEADLINE_120, body: "" }) });
    const short = await renderSlide({ ...base, content: content({ headline: "Hi", body: "" }) });
    const { box, fit } = long.headline;
    assert.ok(fit.fits, id);
    assert.ok(fit.measure.height <= box.h, `${id}: laid-out height ${fit.measure.height} <= ${box.h}`);
    const bearing = Math.max(0.5, fit.fontSize * 0.03); // a letter's side bearing, see fit.ts
    assert.ok(
      fit.measure.inkLeft >= -bearing && fit.measure.inkRight <= box.w + bearing,
      `${id}: glyphs inside`,
    );
    assert.ok(fit.fontSize < short.headline.fit.fontSize, `${id}: the long headline is set smaller`);
    const a = await raw(long.bytes);
    const b = await raw(short.bytes);
    const margin = 6; // JPEG blocks at the box edge
    let outside = 0;
    for (let y = 0; y < 1350; y += 3)
      for (let x = 0; x < 1080; x += 3) {
        if (
          x >= box.x - margin &&
          x < box.x + box.w + margin &&
          y >= box.y - margin &&
          y < box.y + box.h + margin
        )
          continue;
        const i = (y * 1080 + x) * 3;
        if (Math.abs(a.data[i]! - b.data[i]!) > 40) outside += 1;
      }
    assert.equal(outside, 0, `${id}: no text outside the headline box`);
  }
});

test("fitText: wraps on words and shrinks a word longer than the line until it fits", async () => {
  const font = { family: "Inter" as const, weight: 800 as const };
  const long = "Supercalifragilisticexpialidocious";
  const wide = await fitText({ text: long, width: 600, height: 300, font, maxSize: 160 });
  assert.ok(
    wide.fits && wide.measure.inkRight <= 600 + wide.fontSize * 0.03 && wide.fontSize < 60,
    `${wide.fontSize}`,
  );
  const seven = "one two three four five six seven";
  const words = await fitText({ text: seven, width: 600, height: 300, font, maxSize: 160 });
  assert.ok(words.fits && words.measure.height > words.fontSize * 1.5, "several words wrap onto lines");
  const short = await fitText({ text: "Hi", width: 400, height: 300, font, maxSize: 160 });
  assert.equal(short.fontSize, 160);
});

test("the accent colour comes from the photo (WCAG AA against the background), or stays the design's", async () => {
  const { DESIGNS: all } = await import("../../src/providers/render/designs.ts");
  const { contrastRatio, dominantColour } = await import("../../src/providers/render/photo-accent.ts");
  assert.equal(
    await dominantColour(productPhoto),
    "#d81b8c",
    "the backdrop is the dominant saturated colour",
  );
  const grey = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#f4f4f4" } })
    .png()
    .toBuffer();
  assert.equal(await dominantColour(grey), undefined, "a colourless photo gives no accent");
  for (const d of Object.values(all)) {
    const out = await renderSlide({
      design: d.id,
      width: 1080,
      height: 1080,
      photo: productPhoto,
      content: content({ kind: "cta", position: 6 }),
    });
    if (!d.accentFromPhoto) {
      assert.equal(out.accent, d.palette.accent, d.id);
      continue;
    }
    const n = Number.parseInt(out.accent.slice(1), 16);
    const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    assert.ok(r > g + 40 && b > g + 20, `${d.id}: ${out.accent} is a magenta like the photo`);
    assert.ok(contrastRatio(out.accent, d.palette.background) >= 4.5, `${d.id}: ${out.accent} readable`);
    // The CTA button is drawn in that accent: its centre pixel (between the words' lines) matches it.
    const { data } = await raw(out.bytes);
    const pad = Math.round(1080 * 0.08);
    const i = ((1080 - pad - 12) * 1080 + pad + 60) * 3;
    const px = [data[i]!, data[i + 1]!, data[i + 2]!];
    assert.ok(
      Math.abs(px[0]! - r) + Math.abs(px[1]! - g) + Math.abs(px[2]! - b) < 30,
      `${d.id}: button ${px} is the accent ${out.accent}`,
    );
  }
});
