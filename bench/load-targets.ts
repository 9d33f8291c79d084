/**
 * The targets of bench/load.ts: each a node process of its own, started, checked with one request and
 * stopped here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The node flags `serve` and `all` run with (package.json `start`, deploy/Dockerfile's ENTRYPOINT;
 * test/deploy/node-flags.test.ts checks they agree): a young generation of 16 MB semi-spaces for the HTTP
 * path (bench/README.md "bench:load").
 */
export const SERVE_NODE_FLAGS: string[] = ["--max-semi-space-size=16"];

/** A started target. */
export interface Target {
  name: string;
  kind: "ours" | "peer" | "limit";
  pid: number;
  url: string;
  body: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (for a server whose public URL must name its port up front). */
export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts `node <args>` with `env` added to this process's environment, waits for its `listening on port N`
 * line and checks that the POST of `body` with `headers` answers 200 with a JSON-RPC result that is not an
 * error. @throws Error with the process's output when it exits, does not listen within 60 s or answers
 * otherwise.
 */
export async function startTarget(options: {
  name: string;
  kind: Target["kind"];
  args: string[];
  env: Record<string, string>;
  body: string;
  headers: Record<string, string>;
}): Promise<Target> {
  const child = spawn(process.execPath, options.args, {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const stop = () => stopChild(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name}: not listening in 60 s:\n${out}`)),
      60_000,
    );
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /listening on port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code}:\n${out}`));
    });
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const res = await fetch(url, { method: "POST", headers: options.headers, body: options.body });
  const text = await res.text();
  let ok = false;
  try {
    const json = JSON.parse(text) as { result?: { isError?: boolean } };
    ok = res.status === 200 && json.result !== undefined && !json.result.isError;
  } catch {
    ok = false;
  }
  if (!ok) {
    await stop();
    throw new Error(`${options.name}: the check request answered ${res.status}: ${text.slice(0, 500)}`);
  }
  // Keep draining the output so that the process never blocks on a full pipe.
  child.stdout.resume();
  child.stderr.resume();
  return { ...options, pid: child.pid!, url, stop };
}

/** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
  });
}
