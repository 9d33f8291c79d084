/**
 * `npm run bench:media`: media rendering on this machine, offline (local providers). One function per case;
 * each prints wall time, peak RSS and the ratio to a baseline measured in the same run (sharp encoding the
 * same number of plain JPEGs of the same size: the floor of any renderer).
 *   carousel: a 6-slide 4:5 (1080x1350) carousel: local designed visual + copy + slide render per slide.
 * Targets (docs/providers.md "Media stack: slides and images"): carousel <= 3 s on a 2-core machine, peak RSS
 * <= 300 MB. `npm run bench:media` runs it as a `worker` process runs (deploy/compose.yaml, deploy/Dockerfile):
 * `MALLOC_ARENA_MAX=2` and `--max-semi-space-size=2`; without them the same process peaks about 60-100 MB
 * higher. The video templates add their own case functions here.
 */
import sharp from "sharp";
import { localImageProvider } from "../src/providers/ai-image/local.ts";
import { localCarouselCopy } from "../src/providers/ai-text/local-carousel.ts";
import { renderSlide } from "../src/providers/render/slide.ts";

export interface CaseResult {
  name: string;
  seconds: number;
  peakRssMb: number;
}

/** Runs `fn`, sampling RSS every 10 ms; the peak includes what was resident before. */
export async function measure(name: string, fn: () => Promise<void>): Promise<CaseResult> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return { name, seconds: (performance.now() - t0) / 1000, peakRssMb: Math.round(peak / 1024 / 1024) };
}

const SIZE = { width: 1080, height: 1350 };

/** Baseline: sharp encodes `n` plain JPEGs of the slide size. */
export async function baselineJpegs(n = 6): Promise<void> {
  for (let i = 0; i < n; i++)
    await sharp({ create: { ...SIZE, channels: 3, background: { r: 20 * i, g: 90, b: 160 } } })
      .jpeg({ quality: 88 })
      .toBuffer();
}

/** The carousel case: 6 slides, 4:5, design `product-showcase`, with a product photo. */
export async function carousel6Portrait(design = "product-showcase"): Promise<void> {
  const photo = await sharp({ create: { width: 900, height: 900, channels: 3, background: "#f2d7b6" } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="900"><rect x="380" y="200" width="140" height="480" rx="30" fill="#5a2e1a"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const roles = ["hook", "feature", "feature", "feature", "price", "cta"];
  const copy = localCarouselCopy({
    subject: {
      kind: "product",
      name: "Glow Serum",
      brand: "Lumen",
      description:
        "A vitamin C serum for brighter skin. Absorbs in seconds. Fragrance free. Layers under makeup.",
      price: 29,
      currency: "USD",
      brief: "Morning routine in five minutes",
    },
    slides: roles.map((role, i) => ({ position: i + 1, role })),
  });
  const provider = localImageProvider();
  for (let i = 0; i < roles.length; i++) {
    const visual = await provider.generate({
      prompt: "bench",
      seed: `bench:${i}`,
      ...SIZE,
      design,
      reference: photo,
    });
    await renderSlide({
      design,
      ...SIZE,
      visual: visual.bytes,
      photo,
      content: {
        headline: copy[i]!.headline,
        body: copy[i]!.body,
        position: i + 1,
        total: roles.length,
        kind: i === 0 ? "hook" : i === roles.length - 1 ? "cta" : "content",
        productName: "Glow Serum",
        linkText: "Shop at shop.example.com",
      },
    });
  }
}

async function main(): Promise<void> {
  await carousel6Portrait(); // warm-up: font parsing, satori/resvg initialisation
  const base = await measure("baseline: 6 plain JPEGs (sharp)", () => baselineJpegs(6));
  const rows = [base, await measure("carousel: 6 slides 4:5 (local providers)", () => carousel6Portrait())];
  for (const r of rows)
    console.log(
      `${r.name.padEnd(44)} ${r.seconds.toFixed(2).padStart(6)} s  peak RSS ${String(r.peakRssMb).padStart(4)} MB  x${(r.seconds / base.seconds).toFixed(1)} baseline`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
