/**
 * Drives `wrk` (https://github.com/wg/wrk, Debian package `wrk`), the C load generator: it runs in its own
 * process, so the load generator does not eat the node CPU that a bench measures per request. A POST with
 * a body and headers needs a Lua script (wrk's `wrk.method`, `wrk.body`, `wrk.headers`; the `done` hook
 * prints the summary and latency percentiles, see wrk's SCRIPTING file); it is written to a temp file.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** One wrk run's result. Latencies in milliseconds. */
export interface WrkResult {
  requests: number;
  /** requests per second over the run */
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  /** socket errors (connect, read, write, timeout) plus answers with a status outside 2xx and 3xx */
  errors: number;
}

/**
 * The path of `wrk`; installs Debian's package with apt-get when it is missing.
 * @throws Error saying how to install it when it is missing and cannot be installed (no apt-get, not root).
 */
export function ensureWrk(): string {
  const found = () => spawnSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" }).stdout.trim();
  const have = found();
  if (have) return have;
  console.log("wrk is missing: installing Debian's package (apt-get install wrk)");
  const install = spawnSync(
    "sh",
    ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk"],
    { stdio: "inherit" },
  );
  const after = install.status === 0 ? found() : "";
  if (!after)
    throw new Error(
      "wrk is not installed and apt-get could not install it (run as root on Debian/Ubuntu, or install wrk " +
        "4.x yourself: `apt-get install wrk`, https://github.com/wg/wrk); bench:load needs it",
    );
  return after;
}

/** The wrk version line (`wrk 4.1.0 [epoll] ...`). */
export function wrkVersion(wrk: string): string {
  const out = spawnSync(wrk, ["-v"], { encoding: "utf8" });
  return `${out.stdout}${out.stderr}`.split("\n")[0]!.trim();
}

/** A Lua long string that cannot be closed by `text`. */
function luaString(text: string): string {
  let eq = "";
  while (text.includes(`]${eq}]`)) eq += "=";
  return `[${eq}[${text}]${eq}]`;
}

/** The request script: the POST and the `done` hook that prints one JSON line (latencies in µs). */
function script(body: string, headers: Record<string, string>): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaString(body)}`];
  for (const [name, value] of Object.entries(headers))
    lines.push(`wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`);
  lines.push(
    "done = function(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format(\'WRK {"requests":%d,"duration_us":%d,"errors":%d,"p50":%d,"p99":%d,"p999":%d}\\n\',',
    "    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout + e.status,",
    "    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))",
    "end",
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Runs `wrk` against `url` with a POST of `body` and `headers`, `connections` open connections spread over
 * `threads` threads, for `seconds`.
 * @throws Error with wrk's output when it fails or prints no summary.
 */
export async function runWrk(options: {
  wrk: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  threads?: number;
}): Promise<WrkResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-wrk-"));
  const file = path.join(dir, "post.lua");
  await writeFile(file, script(options.body, options.headers));
  try {
    const threads = Math.min(options.threads ?? 2, options.connections);
    const args = [
      `-t${threads}`,
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--timeout",
      "10s",
      "-s",
      file,
      options.url,
    ];
    const child = spawn(options.wrk, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      out += c;
    });
    const code: number = await new Promise((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    const line = /^WRK (.*)$/m.exec(out)?.[1];
    if (code !== 0 || !line) throw new Error(`wrk ${args.join(" ")} failed (exit ${code}):\n${out}`);
    const r = JSON.parse(line) as {
      requests: number;
      duration_us: number;
      errors: number;
      p50: number;
      p99: number;
      p999: number;
    };
    return {
      requests: r.requests,
      rps: r.requests / (r.duration_us / 1e6),
      p50: r.p50 / 1000,
      p99: r.p99 / 1000,
      p999: r.p999 / 1000,
      errors: r.errors,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The machine's CPU model (first `model name` of /proc/cpuinfo) and core count, for the results. */
export function machine(): string {
  const model = execFileSync("sh", ["-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], {
    encoding: "utf8",
  }).trim();
  return `${os.cpus().length} cores (${model}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
}
