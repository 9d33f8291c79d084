/**
 * `npm start` as an operator runs it: the start script execs node (npm is the direct parent), so a signal to
 * the npm PID reaches the server, and when npm is killed outright (SIGKILL, which it cannot forward) the
 * server notices it was orphaned and stops: no listener is left on the port. Ctrl-C (SIGINT to the whole
 * process group) shuts down without pg-boss error lines. Logs are JSON when stdout is not a terminal.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { freshDatabase } from "../helpers/db.ts";
import { alive } from "../helpers/proc.ts";

const { url } = await freshDatabase();
const ROOT = path.resolve(import.meta.dirname, "../..");

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/** Every PID this file started, killed after the tests whatever happened. */
const started: number[] = [];
after(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
});

interface Started {
  npm: ChildProcess;
  port: number;
  serverPid: number;
  output: () => string;
}

/** Runs `npm start` in its own process group, waits for the banner; returns npm, the server PID and output. */
async function npmStart(): Promise<Started> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "start-"));
  const npm = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
    },
  });
  let out = "";
  npm.stdout!.on("data", (c) => (out += c));
  npm.stderr!.on("data", (c) => (out += c));
  const up = await until(() => out.includes(`listening on port ${port}`), 90_000);
  assert.ok(up, `npm start did not come up:\n${out}`);
  const children = (await readFile(`/proc/${npm.pid}/task/${npm.pid}/children`, "utf8")).trim().split(/\s+/);
  const serverPid = Number(children[0]);
  started.push(npm.pid!, serverPid);
  assert.equal(children.length, 1, "npm runs exactly one child");
  const argv = (await readFile(`/proc/${serverPid}/cmdline`, "utf8")).split("\0");
  assert.match(
    argv[0]!,
    /node$/,
    "the start script execs node directly (no shell or tsx wrapper in between)",
  );
  assert.ok(argv.includes("src/main.ts"), argv.join(" "));
  return { npm, port, serverPid, output: () => out };
}

async function assertStopped(s: Started) {
  assert.ok(
    await until(() => !alive(s.serverPid), 20_000),
    `server ${s.serverPid} still running\n${s.output()}`,
  );
  assert.equal(await listening(s.port), false, "no listener remains on the port");
}

test("SIGTERM to the npm PID stops the server; nothing listens on the port afterwards", async () => {
  const s = await npmStart();
  process.kill(s.npm.pid!, "SIGTERM");
  await assertStopped(s);
  assert.match(s.output(), /"msg":"shutting down"/);
});

test("SIGKILL to the npm PID (it cannot forward signals) still leaves no orphaned server", async () => {
  const s = await npmStart();
  process.kill(s.npm.pid!, "SIGKILL");
  await assertStopped(s);
});

test("Ctrl-C (SIGINT to the process group) stops cleanly: JSON logs, banner, no pg-boss error lines", async () => {
  const s = await npmStart();
  process.kill(-s.npm.pid!, "SIGINT");
  await assertStopped(s);
  const out = s.output();
  assert.match(out, /MCP endpoint: {2}http:\/\/localhost:\d+\/mcp/);
  assert.doesNotMatch(out, /pg-boss error/);
  assert.doesNotMatch(out, /"level":50/);
  const logLines = out.split("\n").filter((l) => l.startsWith("{"));
  assert.ok(logLines.length > 0 && logLines.every((l) => JSON.parse(l).service === "social-mcp"));
});
