/** Process measurements the media benches share (Linux /proc). */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";

/** Resident set size in bytes of `pid` and all its descendants (Linux /proc/<pid>/task/<tid>/children). */
export async function treeRss(pid: number): Promise<number> {
  let total = 0;
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    total += Number(/VmRSS:\s+([0-9]+) kB/.exec(status)?.[1] ?? 0) * 1024;
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      const kids = (await readFile(`/proc/${pid}/task/${tid}/children`, "utf8")).trim();
      for (const kid of kids ? kids.split(" ") : []) total += await treeRss(Number(kid));
    }
  } catch {
    // the process ended meanwhile
  }
  return total;
}

/**
 * The node flags a `worker` process runs with (deploy/compose.yaml's workers; test/deploy/node-flags.test.ts
 * checks they agree): a young generation of 2 MB semi-spaces, so that the renders' short-lived garbage
 * (decoded images' wrappers, satori's trees) is collected before it adds up to tens of megabytes of resident
 * memory. The HTTP path runs with a larger one (bench/load-targets.ts `SERVE_NODE_FLAGS`).
 */
export const WORKER_NODE_FLAGS = ["--max-semi-space-size=2"];

/**
 * The flags of the benches' worker processes (`runMeasured`'s children, bench/sync-workers.ts's workers):
 * `BENCH_NODE_FLAGS` (space-separated; e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the workers) or
 * WORKER_NODE_FLAGS.
 */
export const CHILD_FLAGS =
  process.env.BENCH_NODE_FLAGS !== undefined
    ? process.env.BENCH_NODE_FLAGS.split(" ").filter(Boolean)
    : WORKER_NODE_FLAGS;

/**
 * Runs `script` (TypeScript, run by node's own type stripping: no tsx loader thread or esbuild helper) with
 * `args` in a child node process started as a worker is (WORKER_NODE_FLAGS; `BENCH_NODE_FLAGS` replaces them, e.g.
 * `--max-semi-space-size=16` to measure a render as `all` runs it), sampling the RSS of its
 * process tree every 20 ms. @returns its stdout and the peak tree RSS (bytes).
 * @throws Error naming `label` when the child exits non-zero.
 */
export async function runMeasured(
  label: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ out: string; peak: number }> {
  const child = spawn(process.execPath, [...CHILD_FLAGS, script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env,
  });
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  let peak = 0;
  const sampler = setInterval(async () => {
    if (child.pid) peak = Math.max(peak, await treeRss(child.pid));
  }, 20);
  const code: number = await new Promise((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`${label} failed (exit ${code})`);
  return { out, peak };
}
