/**
 * `npm run bench:media` (images in parallel, docs/providers.md "Media stack: slides and images"): the
 * service's own pipelines against the strict Images API fake (test/fakes/openai-images.ts) answering each
 * image after a fixed latency (`BENCH_IMAGE_LATENCY_MS`, default 2000), through the openai-compatible
 * adapter, on real PostgreSQL:
 *   single-image  one image request (the baseline: what one image costs, measured in the same run);
 *   carousel-6    a 6-slide 4:5 carousel run (src/domain/carousels/run.ts `executeCarouselRun`: copy, six
 *                 images, six slide renders, checkpoints);
 *   2x2-grid      a 2x2 grid video automation run (src/domain/automations/run.ts `runAutomation`: four
 *                 images, the hook, the ffmpeg render, the post).
 * Each case runs in a child process; the parent samples the peak RSS of the child's process tree (node and
 * ffmpeg) from /proc every 20 ms; the child also reports its own RSS once booted,
 * before the run, and its own peak (getrusage maxRSS). Reported: wall time of the run, the time until its
 * last image arrived, both as ratios of the single image, and the peak RSS. Targets (docs/providers.md "Media
 * stack: slides and images", 2 cores): carousel <= 2.5x one image, the grid's images <= 1.5x, peak RSS <= 300
 * MB each. `AI_IMAGE_CONCURRENCY` is passed to the children (default 4); `BENCH_PARALLEL_CASES=carousel-6`
 * limits the cases run. A throwaway database is created and dropped (DATABASE_URL: an admin URL, default
 * postgres://postgres@127.0.0.1:5432/postgres). Results: bench/README.md.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { boot } from "../src/bootstrap.ts";
import { createDb, migrate } from "../src/db/knex.ts";
import { createUser } from "../src/domain/account/accounts.ts";
import { grantCredits } from "../src/domain/account/credits.ts";
import { createAutomation } from "../src/domain/automations/automations.ts";
import { runAutomation } from "../src/domain/automations/run.ts";
import { acceptCarouselGeneration } from "../src/domain/carousels/carousels.ts";
import { executeCarouselRun } from "../src/domain/carousels/run.ts";
import { openAiCompatibleImage } from "../src/providers/ai-image/openai-compatible.ts";
import type { ImageProvider } from "../src/providers/ai-image/types.ts";
import { startFakeImageServer } from "../test/fakes/openai-images.ts";
import { runMeasured } from "./proc.ts";

const CASES = ["single-image", "carousel-6", "2x2-grid"] as const;
type Case = (typeof CASES)[number];
const LATENCY_MS = Number(process.env.BENCH_IMAGE_LATENCY_MS ?? 2000);
const ARENAS = process.env.MALLOC_ARENA_MAX ?? "2";

/** The adapter against the fake, noting when the last image arrived (ms, performance.now()). */
function timedImages(baseUrl: string): { provider: ImageProvider; lastAt: () => number } {
  const inner = openAiCompatibleImage({ baseUrl, model: "gpt-image-1.5", timeoutSeconds: 120 });
  let last = 0;
  return {
    lastAt: () => last,
    provider: {
      name: inner.name,
      async generate(request, signal) {
        const image = await inner.generate(request, signal);
        last = performance.now();
        return image;
      },
    },
  };
}

/** Runs one case in this process; prints `{seconds, imagesSeconds}` as JSON. */
async function runCase(name: Case, databaseUrl: string, imageBase: string): Promise<void> {
  const images = timedImages(imageBase);
  if (name === "single-image") {
    const t0 = performance.now();
    await images.provider.generate({
      prompt: "A bottle on a desk",
      seed: "bench",
      width: 1080,
      height: 1350,
    });
    const seconds = (performance.now() - t0) / 1000;
    const rss = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(JSON.stringify({ seconds, imagesSeconds: seconds, rssBefore: rss, maxRss: rss }));
    return;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "smcp-bench-parallel-"));
  const booted = await boot({
    env: {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "silent",
      DATA_DIR: dataDir,
      AI_IMAGE_CONCURRENCY: process.env.AI_IMAGE_CONCURRENCY,
    },
    migrate: false,
    providers: { image: images.provider },
  });
  const { ctx } = booted;
  try {
    const who = await createUser(ctx.db, {
      email: `bench-${process.pid}@example.test`,
      password: "benchmark password",
      workspace: "Bench",
      plan: "pro",
    });
    await grantCredits(ctx.db, who.user_id, 1000, "bench:grant");
    const owner = { userId: who.user_id, workspaceId: who.workspace_id };
    const [product] = await ctx
      .db("products")
      .insert({
        ...{ user_id: who.user_id, workspace_id: who.workspace_id },
        name: "Summit Bottle",
        description:
          "A 1.2 litre insulated steel bottle that keeps drinks cold for 24 hours and hot for 12. The leak-proof cap locks with a quarter turn.",
        brand: "Summit",
        price_minor: 3900,
        currency: "USD",
        product_url: "https://shop.example.com/summit",
      })
      .returning("id");
    const rssBefore = process.memoryUsage().rss;
    let t0: number;
    if (name === "carousel-6") {
      const accepted = await ctx.db.transaction((trx) =>
        acceptCarouselGeneration(
          trx,
          owner,
          { product_id: product.id, slide_count: 6, design_id: "product-showcase", format: "portrait" },
          {
            operationId: undefined,
            now: ctx.clock.now(),
            sealer: ctx.sealer,
            deadlineSeconds: ctx.config.worker.operationDeadlineSeconds,
          },
        ),
      );
      t0 = performance.now();
      const outcome = await executeCarouselRun(ctx, owner, accepted.run_id);
      if (outcome.status !== "succeeded") throw new Error(`carousel ${outcome.status}`);
    } else {
      const automation = await ctx.db.transaction((trx) =>
        createAutomation(
          trx,
          owner,
          {
            kind: "video",
            name: "Bench grid",
            configuration: { type: "grid-video", template_id: "2x2-grid", product_id: product.id } as never,
          },
          ctx.clock.now(),
        ),
      );
      t0 = performance.now();
      const out = await runAutomation(ctx, owner, { automationId: automation.automation_id });
      if (out.status !== "succeeded") throw new Error(`grid ${out.status}`);
    }
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(
      JSON.stringify({
        seconds,
        imagesSeconds: (images.lastAt() - t0) / 1000,
        rssBefore,
        maxRss: process.resourceUsage().maxRSS * 1024,
      }),
    );
  } finally {
    await booted.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Runs a case in a child process; returns its report and the peak RSS of its process tree (bytes). */
async function measure(name: Case, databaseUrl: string, imageBase: string) {
  // The service's start script and image run with MALLOC_ARENA_MAX=2 (bench/README.md): so do the cases.
  const { out, peak } = await runMeasured(
    name,
    fileURLToPath(import.meta.url),
    ["--case", name, databaseUrl, imageBase],
    { ...process.env, MALLOC_ARENA_MAX: ARENAS },
  );
  const report = JSON.parse(out) as {
    seconds: number;
    imagesSeconds: number;
    rssBefore: number;
    maxRss: number;
  };
  return { ...report, peak };
}

async function main(): Promise<void> {
  const i = process.argv.indexOf("--case");
  if (i > 0) return runCase(process.argv[i + 1] as Case, process.argv[i + 2]!, process.argv[i + 3]!);
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `bench_parallel_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const fake = await startFakeImageServer();
  fake.latencyMs = LATENCY_MS;
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const migrator = createDb(url.toString(), 2);
    await migrate(migrator);
    await migrator.destroy();
    console.log(
      `images in parallel: image fake latency ${LATENCY_MS} ms, AI_IMAGE_CONCURRENCY ${process.env.AI_IMAGE_CONCURRENCY ?? "4 (default)"}, MALLOC_ARENA_MAX ${ARENAS}, ${os.availableParallelism()} CPU(s), load average ${os.loadavg()[0]!.toFixed(1)}`,
    );
    console.log(
      "case            wall s   x one image   images s   x one image   peak RSS MB   node: before run   node: peak",
    );
    let base = 0;
    const only = process.env.BENCH_PARALLEL_CASES?.split(",");
    for (const c of CASES.filter((x) => x === "single-image" || !only || only.includes(x))) {
      const r = await measure(c, url.toString(), fake.baseUrl);
      if (c === "single-image") base = r.seconds;
      console.log(
        [
          c.padEnd(14),
          r.seconds.toFixed(2).padStart(7),
          (r.seconds / base).toFixed(2).padStart(13),
          r.imagesSeconds.toFixed(2).padStart(10),
          (r.imagesSeconds / base).toFixed(2).padStart(13),
          (r.peak / 1e6).toFixed(0).padStart(13),
          (r.rssBefore / 1e6).toFixed(0).padStart(18),
          (r.maxRss / 1e6).toFixed(0).padStart(12),
        ].join(" "),
      );
    }
    console.log(
      "targets (2 cores): carousel-6 wall <= 2.5x one image; 2x2-grid images <= 1.5x; peak RSS <= 300 MB",
    );
  } finally {
    await fake.close();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();
