/** Logs for people on a terminal (pino-pretty), JSON lines otherwise; redaction either way. */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { createLogger } from "../../src/log.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

function capture() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, text: () => chunks.join("") };
}

test("pretty: human-readable lines, not JSON, still redacted", () => {
  const c = capture();
  const log = createLogger("info", c.stream, { pretty: true });
  log.info({ user: { password: "hunter2-secret" } }, "server started");
  const out = c.text();
  assert.match(out, /INFO.*server started/);
  assert.throws(() => JSON.parse(out.trim().split("\n")[0]!));
  assert.ok(!out.includes("hunter2-secret"));
});

test("not a terminal: one JSON object per line", () => {
  const c = capture();
  const log = createLogger("info", c.stream);
  log.info({ user: { password: "hunter2-secret" } }, "server started");
  const line = JSON.parse(c.text().trim());
  assert.equal(line.msg, "server started");
  assert.equal(line.service, "social-mcp");
  assert.equal(line.user.password, "[redacted]");
});

const SNIPPET = `import("./src/log.ts").then((m) => m.createLogger().info("hello"))`;
const hasScript = spawnSync("script", ["--version"]).status === 0;

test("by default: pretty when stdout is a terminal (under script(1)), JSON when it is a pipe", {
  skip: hasScript ? false : "needs script(1) for a pseudo-terminal",
}, () => {
  const cmd = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(SNIPPET)}`;
  const tty = spawnSync("script", ["-qec", cmd, "/dev/null"], { cwd: ROOT, encoding: "utf8" });
  assert.match(tty.stdout, /INFO.*hello/);
  assert.doesNotMatch(tty.stdout, /"msg":"hello"/);
  const pipe = spawnSync(process.execPath, ["-e", SNIPPET], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(JSON.parse(pipe.stdout.trim()).msg, "hello");
});
