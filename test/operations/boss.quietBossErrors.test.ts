/** pg-boss errors are errors while running, and debug-only noise once the process is shutting down. */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import type { AppContext } from "../../src/context.ts";
import { createLogger } from "../../src/log.ts";
import { createBoss, quietBossErrors } from "../../src/operations/boss.ts";
import { loadConfig } from "../../src/config/index.ts";

test("after quietBossErrors, a terminated connection is logged at debug, never at error level", () => {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  const ctx = {
    config: { ...loadConfig({}), databaseUrl: "postgres://u:p@127.0.0.1:1/db" },
    log: createLogger("debug", sink),
  } as unknown as AppContext;
  const boss = createBoss(ctx, "producer");
  const terminated = Object.assign(new Error("terminating connection due to administrator command"), {
    code: "57P01",
  });
  const errors = () => lines.filter((l) => l.level >= 50).length;
  boss.emit("error", terminated);
  assert.equal(errors(), 1, "while running it is an error");
  const before = lines.length;
  quietBossErrors(ctx);
  boss.emit("error", terminated);
  assert.equal(errors(), 1, "no error line once stopping");
  assert.ok(lines.length > before && lines.slice(before).every((l) => l.level === 20));
});
