/**
 * PostgreSQL restarts under load (docs/operations.md "When the database goes away"): a burst of idempotent
 * tool calls runs while the service's own PostgreSQL (an embedded cluster started here, so no other test is
 * disturbed) is stopped and started again. Every answer is either a result or a clear, retryable error
 * (never an HTTP 500, never a stack); the same process serves again after the restart without being
 * restarted; replaying every idempotency key with the same arguments yields exactly one effect per key.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { chmod, mkdtemp } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { boot } from "../../src/bootstrap.ts";
import { createUser } from "../../src/domain/account/accounts.ts";
import { startEmbeddedPostgres } from "../../src/db/embedded.ts";
import { startServer } from "../../src/server.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-restart-pg-"));
await chmod(dir, 0o755); // initdb runs as the `postgres` user when the tests run as root
const probe = http.createServer();
await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
const pgPort = (probe.address() as AddressInfo).port;
await new Promise((r) => probe.close(r));
let pg = await startEmbeddedPostgres(dir, pgPort, "postgres");

const server = http.createServer();
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const booted = await boot({
  env: {
    LOG_LEVEL: process.env.RESTART_LOG ?? "silent",
    DATABASE_URL: pg.url,
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "smcp-restart-")),
    PUBLIC_BASE_URL: base,
    RATE_LIMIT_WRITES: "10000",
    RATE_LIMIT_MCP_IP: "10000",
  },
});
const running = await startServer(booted.ctx, server);
after(async () => {
  await running.close(1);
  await booted.close();
  await pg.stop();
});

test("a burst of idempotent calls across a PostgreSQL restart: retryable errors only, then one effect per key", async () => {
  const ids = await createUser(booted.ctx.db, {
    email: "restart@example.test",
    password: "correct horse battery staple",
    workspace: "Restart",
  });
  const { token } = await connect({ ctx: booted.ctx }, ids, ["create:content", "read:content"]);
  const calls = Array.from({ length: 60 }, (_, i) => ({
    caption: `Restart burst post ${i}`,
    key: randomUUID(),
  }));
  const send = (c: { caption: string; key: string }) =>
    rpc(
      `${base}/mcp`,
      "tools/call",
      {
        name: "create_text_post",
        arguments: { caption: c.caption, status: "draft", idempotency_key: c.key },
      },
      { token, validate: false },
    );

  const outcomes: Array<{ ok: boolean; status: number; text: string }> = [];
  const burst = (async () => {
    for (const c of calls) {
      const res = await send(c);
      const result = res.body?.result;
      outcomes.push({
        ok: res.status === 200 && result && !result.isError,
        status: res.status,
        text: res.text,
      });
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  await new Promise((r) => setTimeout(r, 400));
  await pg.stop();
  await new Promise((r) => setTimeout(r, 500));
  pg = await startEmbeddedPostgres(dir, pgPort, "postgres");
  await burst;

  const failed = outcomes.filter((o) => !o.ok);
  assert.ok(failed.length > 0, "the restart was felt by some calls");
  assert.ok(
    outcomes.some((o) => o.ok),
    "some calls succeeded",
  );
  for (const f of failed) {
    assert.notEqual(f.status, 500, `never a 500: ${f.text}`);
    assert.doesNotMatch(f.text, /\n\s+at |node_modules|\.ts:\d+/, "never a stack");
    if (f.status === 200) {
      const error = JSON.parse(f.text).result.structuredContent.error;
      assert.equal(error.code, "internal_error");
      assert.ok(error.retry_after >= 1, `a tool error says when to retry: ${JSON.stringify(error)}`);
    } else {
      assert.equal(f.status, 503, f.text);
    }
  }

  // The same process serves again, and every key replayed with the same arguments ends in one post each.
  for (const c of calls) {
    let res = await send(c);
    for (let i = 0; i < 20 && (res.status !== 200 || res.body?.result?.isError); i += 1) {
      await new Promise((r) => setTimeout(r, 250));
      res = await send(c);
    }
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.result.isError, undefined, res.text);
  }
  const posts = await booted.ctx
    .db("posts")
    .where({ user_id: ids.user_id })
    .select("caption")
    .then((rows: Array<{ caption: string }>) => rows.map((r) => r.caption).sort());
  assert.deepEqual(posts, calls.map((c) => c.caption).sort(), "exactly one post per idempotency key");
});
