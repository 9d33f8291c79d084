/**
 * Service spec 7 rule 7: an exception message can carry user data (a caption in a constraint violation, a
 * token in a URL). The HTTP error handler and the pg-boss error handler log the error class, its code and a
 * request/error id only; message and stack appear only at debug level, redacted. So do a failing shutdown
 * step (src/cli/shutdown.ts) and an unreadable developer reference (src/web/developers.ts).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { test } from "node:test";
import express from "express";
import type { AppContext } from "../../src/context.ts";
import { errorHandler } from "../../src/app.ts";
import { runStopSteps } from "../../src/cli/shutdown.ts";
import { createLogger, errorSummary, redactText } from "../../src/log.ts";
import { bossErrorHandler } from "../../src/operations/boss.ts";
import { developerRoutes } from "../../src/web/developers.ts";

const CAPTION = "caption-secret-7e1f summer sale";
const JWT = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXNlY3JldC12YWx1ZQ";
const EMAIL = "alice.private@example.com";

function capture(level: string) {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, log: createLogger(level, sink) };
}

class PostgresLikeError extends Error {
  override name = "DatabaseError";
  code = "23505";
  detail = `Key (caption)=(${CAPTION}) already exists.`;
}

/** Serves one route that throws an error carrying user data, behind the app's real error handler. */
async function failingServer(log: AppContext["log"]) {
  const ex = express();
  ex.use((_req, res, next) => {
    res.locals.requestId = "11111111-2222-4333-8444-555555555555";
    next();
  });
  ex.get("/boom", () => {
    throw new PostgresLikeError(`insert failed for "${CAPTION}" by ${EMAIL} with ${JWT}`);
  });
  ex.use(errorHandler({ log } as AppContext));
  const server = http.createServer(ex);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test("the HTTP error handler logs class, code and request id only at info level", async () => {
  const { lines, log } = capture("info");
  const s = await failingServer(log);
  const res = await fetch(`${s.url}/boom`);
  assert.equal(res.status, 500);
  assert.equal(await res.text(), "Internal error");
  await s.close();
  const text = JSON.stringify(lines);
  for (const secret of [CAPTION, JWT, EMAIL, "insert failed"]) assert.ok(!text.includes(secret), secret);
  const entry = lines.find((l) => l.msg === "unhandled error");
  assert.ok(entry);
  assert.equal(entry.errorClass, "DatabaseError");
  assert.equal(entry.errorCode, "23505");
  assert.equal(entry.err, undefined);
  assert.equal(entry.requestId, "11111111-2222-4333-8444-555555555555");
  assert.equal(entry.stack, undefined);
});

test("at debug level the detail is logged under the same request id, redacted", async () => {
  const { lines, log } = capture("debug");
  const s = await failingServer(log);
  await (await fetch(`${s.url}/boom`)).text();
  await s.close();
  const detail = lines.find((l) => l.msg === "unhandled error (detail)");
  assert.ok(detail, "a debug line with the detail");
  assert.equal(detail.level, 20);
  assert.equal(detail.requestId, "11111111-2222-4333-8444-555555555555");
  assert.match(detail.err.message, /insert failed/);
  assert.match(detail.err.stack, /PostgresLikeError|DatabaseError/);
  const text = JSON.stringify(lines);
  for (const secret of [JWT, EMAIL, CAPTION]) assert.ok(!text.includes(secret), secret);
});

test("pg-boss error events log class, code and an error id; detail only at debug, redacted", () => {
  for (const level of ["info", "debug"]) {
    const { lines, log } = capture(level);
    const err = Object.assign(new Error(`job data {"caption":"${CAPTION}"} token ${JWT}`), { code: "57P01" });
    bossErrorHandler({ log } as AppContext)(err);
    const entry = lines.find((l) => l.msg === "pg-boss error");
    assert.ok(entry);
    assert.equal(entry.errorClass, "Error");
    assert.equal(entry.errorCode, "57P01");
    assert.equal(entry.err, undefined);
    assert.match(entry.errorId, /^[0-9a-f-]{36}$/);
    const text = JSON.stringify(lines);
    for (const secret of [CAPTION, JWT]) assert.ok(!text.includes(secret), `${level}: ${secret}`);
    assert.equal(
      lines.some((l) => l.msg === "pg-boss error (detail)"),
      level === "debug",
    );
  }
});

test("redactText and errorSummary", () => {
  assert.equal(redactText(`Bearer abc.def`), "Bearer [redacted]");
  assert.equal(redactText(`see https://x.example/cb?code=123&state=9`), "see https://x.example/cb?[query]");
  assert.equal(redactText(`mail ${EMAIL}`), "mail [email]");
  assert.equal(redactText(JWT), "[jwt]");
  assert.equal(redactText("Key (email)=(a) exists"), "Key (…)=([value]) exists");
  assert.ok(redactText("x".repeat(20_000)).length <= 4001);
  assert.deepEqual(errorSummary(Object.assign(new Error("m"), { code: "bad code with spaces" })), {
    errorClass: "Error",
  });
  assert.deepEqual(errorSummary("a string"), { errorClass: "String" });
  assert.equal(redactText('failed for "my caption" and `x`'), 'failed for "[quoted]" and `[quoted]`');
});

test("a failing shutdown step is logged by class and code only, and the next steps still run", async () => {
  const { lines, log } = capture("info");
  const ran: string[] = [];
  await runStopSteps(
    [
      async () => {
        ran.push("server");
        throw new PostgresLikeError(`close failed for "${CAPTION}" by ${EMAIL} with ${JWT}`);
      },
      async () => {
        ran.push("queue");
      },
    ],
    log,
  );
  assert.deepEqual(ran, ["server", "queue"]);
  const entry = lines.find((l) => l.msg === "shutdown step failed");
  assert.ok(entry);
  assert.equal(entry.errorClass, "DatabaseError");
  assert.equal(entry.errorCode, "23505");
  assert.equal(entry.step, 0);
  assert.equal(entry.err, undefined);
  const text = JSON.stringify(lines);
  for (const secret of [CAPTION, JWT, EMAIL, "close failed"]) assert.ok(!text.includes(secret), secret);
});

test("an unreadable developer reference is logged by class and code only", async () => {
  const { lines, log } = capture("info");
  const ex = express();
  const failing = () =>
    Promise.reject(
      Object.assign(new Error(`ENOENT: no such file /home/${EMAIL}/catalog.json ${JWT}`), { code: "ENOENT" }),
    );
  ex.use(
    developerRoutes({ log, config: { mcpEnabled: true, limits: { download: 5 } } } as AppContext, failing),
  );
  ex.use(errorHandler({ log } as AppContext));
  const server = http.createServer(ex);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const res = await fetch(
    `http://127.0.0.1:${(server.address() as AddressInfo).port}/developers/mcp/catalog.json`,
  );
  await res.arrayBuffer();
  await new Promise<void>((r) => server.close(() => r()));
  assert.equal(res.status, 500);
  const entry = lines.find((l) => l.msg === "developer reference unavailable (run npm run codegen)");
  assert.ok(entry, JSON.stringify(lines));
  assert.equal(entry.errorClass, "Error");
  assert.equal(entry.errorCode, "ENOENT");
  assert.equal(entry.err, undefined);
  const text = JSON.stringify(lines);
  for (const secret of [EMAIL, JWT, "no such file"]) assert.ok(!text.includes(secret), secret);
});
