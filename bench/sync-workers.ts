/**
 * The worker processes of the nightly sync benchmark (bench/sync.ts): each is `node src/main.ts worker` (the
 * service's own worker, Node's type stripping, its schedules on) started as the service image runs it
 * (deploy/compose.yaml: WORKER_NODE_FLAGS of ./proc.ts, MALLOC_ARENA_MAX 2 unless set) with the bench's
 * environment; its resident set is sampled from /proc/{pid}/status every 200 ms (VmRSS, and VmHWM, the
 * kernel's high-water mark, which also catches a peak between two samples). It is ready once it printed its
 * start-up banner; its log lines (LOG_LEVEL warn) go to the bench's stderr, prefixed with its name.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { AppContext } from "../src/context.ts";
import { CHILD_FLAGS } from "./proc.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SAMPLE_MS = 200;
const READY_TIMEOUT_MS = 120_000;
const BANNER = "Social MCP worker started";

export interface WorkerProcess {
  name: string;
  pid: number;
  /** The largest resident set seen so far, bytes. */
  peakRss(): number;
  /** Resolves once the process ended: its exit code or the signal that ended it. */
  exited: Promise<string>;
  /**
   * Sends `signal` unless the process ended (a last sample first: its peak cannot be read once it is gone).
   */
  signal(signal: NodeJS.Signals): void;
}

/** VmRSS and VmHWM of `pid`, bytes (0 when the process is gone). */
function residentSet(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return 0;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return Math.max(kb("VmRSS"), kb("VmHWM")) * 1024;
}

/**
 * Copies the lines of `stream` to stderr prefixed with `[name]` (with `json`, only log lines: not the
 * banner); calls `ready` at the banner line.
 */
function forwardLines(
  name: string,
  stream: NodeJS.ReadableStream,
  options: { json?: boolean; ready?: () => void } = {},
): void {
  createInterface({ input: stream }).on("line", (line) => {
    if (options.ready && line.includes(BANNER)) options.ready();
    else if (!options.json || line.startsWith("{")) process.stderr.write(`[${name}] ${line}\n`);
  });
}

/** Starts a worker process named `name` with `env` over the bench's own; resolves once it is ready. */
export async function startWorkerProcess(name: string, env: Record<string, string>): Promise<WorkerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...CHILD_FLAGS, "src/main.ts", "worker"], {
    cwd: ROOT,
    env: { MALLOC_ARENA_MAX: "2", ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} did not start`);
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, residentSet(pid));
  };
  const sampler = setInterval(sample, SAMPLE_MS);
  let alive = true;
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => {
      alive = false;
      clearInterval(sampler);
      resolve(signal ?? String(code));
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} not ready after ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    forwardLines(name, child.stdout!, { json: true, ready: onReady });
    void exited.then((how) => reject(new Error(`${name} ended before it was ready (${how})`)));
  });
  forwardLines(name, child.stderr!);
  await ready;
  return {
    name,
    pid,
    peakRss: () => peak,
    exited,
    signal(signal) {
      if (!alive) return;
      sample();
      child.kill(signal);
    },
  };
}

/** Stops `worker` with SIGTERM (its graceful shutdown), SIGKILL after `graceMs`; resolves how it ended. */
export async function stopWorkerProcess(worker: WorkerProcess, graceMs = 30_000): Promise<string> {
  worker.signal("SIGTERM");
  const late = setTimeout(() => worker.signal("SIGKILL"), graceMs);
  const how = await worker.exited;
  clearTimeout(late);
  return how;
}

/**
 * The environment of the bench's worker processes: `env` with the bench's database and its DATA_DIR (the
 * workers open the accounts' tokens with the key the bench sealed them with), logging warnings only.
 */
export function benchWorkerEnv(ctx: AppContext, env: Record<string, string>): Record<string, string> {
  return { ...env, DATABASE_URL: ctx.config.databaseUrl!, DATA_DIR: ctx.config.dataDir, LOG_LEVEL: "warn" };
}

/** Starts `count` worker processes `worker-1` .. `worker-{count}` with `env`, side by side. */
export function startWorkerProcesses(count: number, env: Record<string, string>): Promise<WorkerProcess[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => startWorkerProcess(`worker-${i + 1}`, env)));
}
