/**
 * Every per-user budget of service spec 8 through the real pipeline and the real tools: reads 120,
 * writes 30, AI 5, publishing/approval 5, deletions 3 per user per minute (the defaults), then
 * `rate_limited` with `retry_after`, the budget shared across a user's clients and separate per user; and
 * the browser consent and settings throttles (30 per minute per IP, 429 with Retry-After). Recovery after
 * the window is shown on a second instance configured with small limits and a 2-second window.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import type { Envelope } from "../../src/tool-contract.ts";
import { createRuntime, type Runtime } from "../../src/runtime/pipeline.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { call, connection } from "../operations/helpers.ts";

const SCOPES = [
  "read:profile",
  "create:content",
  "create:captions",
  "publish:content",
  "delete:content",
  "read:content",
];

/** One call per budget: a real tool of that budget with valid arguments (the budget is spent before the handler). */
const CALLS: Record<string, () => [string, Record<string, unknown>]> = {
  read: () => ["get_profile", {}],
  write: () => [
    "create_text_post",
    { caption: "budget test", status: "draft", idempotency_key: randomUUID() },
  ],
  ai: () => ["generate_captions", { brief: "a serum", count: 1, idempotency_key: randomUUID() }],
  approval: () => [
    "publish_post",
    { post_id: randomUUID(), social_account_ids: [randomUUID()], idempotency_key: randomUUID() },
  ],
  delete: () => ["delete_post", { post_id: randomUUID(), idempotency_key: randomUUID() }],
};

async function world(app: TestApp) {
  const rt: Runtime = createRuntime(app.ctx, TOOLS);
  const me = await app.user();
  const otherUser = await app.user();
  return {
    rt,
    me: await connection(app, me, SCOPES),
    /** A second client of the same user: the budget is per user, across clients. */
    meElsewhere: await connection(app, me, SCOPES),
    other: await connection(app, otherUser, SCOPES),
  };
}

const limited = (env: Envelope) => env.error?.code === "rate_limited";

/** Spends `budget` until refused; returns how many calls passed and the refusal. */
async function exhaust(
  rt: Runtime,
  auths: Array<Parameters<typeof call>[1]>,
  budget: string,
  max: number,
): Promise<{ passed: number; refusal: Envelope }> {
  for (let i = 0; i <= max + 1; i++) {
    const [name, args] = CALLS[budget]!();
    const env = await call(rt, auths[i % auths.length]!, name, args);
    if (limited(env)) return { passed: i, refusal: env };
  }
  throw new Error(`the ${budget} budget was never exhausted`);
}

const app = await startTestApp({ queue: false });
const w = await world(app);

for (const [budget, limit] of [
  ["read", 120],
  ["write", 30],
  ["ai", 5],
  ["approval", 5],
  ["delete", 3],
] as const) {
  test(`the ${budget} budget allows ${limit} calls per user per minute, then rate_limited with retry_after`, async () => {
    assert.equal(app.ctx.config.budgets[budget], limit, "the spec's default");
    const { passed, refusal } = await exhaust(w.rt, [w.me, w.meElsewhere], budget, limit);
    assert.equal(passed, limit);
    assert.equal(refusal.status, "failed");
    assert.match(refusal.error!.message, new RegExp(`the ${budget} budget of this user is exhausted`));
    const retryAfter = refusal.error!.retry_after!;
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    // Another user is not affected.
    const [name, args] = CALLS[budget]!();
    assert.equal(limited(await call(w.rt, w.other, name, args)), false);
  });
}

async function hammer(url: string, init: RequestInit, limit: number) {
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i <= limit; i++) {
    last = await fetch(url, { redirect: "manual", ...init });
    statuses.push(last.status);
    await last.arrayBuffer();
  }
  return { statuses, last: last! };
}

test("consent (POST /mcp/oauth/authorize) is throttled at 30 per minute per IP with Retry-After", async () => {
  const { statuses, last } = await hammer(
    `${app.url}/mcp/oauth/authorize`,
    { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "x=1" },
    30,
  );
  assert.ok(
    statuses.slice(0, 30).every((s) => s !== 429),
    statuses.join(","),
  );
  assert.equal(last.status, 429);
  const retryAfter = Number(last.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60);
});

test("the consent page (GET /mcp/oauth/authorize) is under the consent limit of 30, not the OAuth limit of 60", async () => {
  // A fresh instance: the consent form's POSTs above share this IP's consent count.
  const fresh = await startTestApp({ queue: false });
  assert.equal(fresh.ctx.config.limits.oauth, 60);
  const { statuses, last } = await hammer(`${fresh.url}/mcp/oauth/authorize?client_id=x`, {}, 30);
  assert.ok(
    statuses.slice(0, 30).every((s) => s !== 429),
    statuses.join(","),
  );
  assert.equal(last.status, 429);
  assert.ok(Number(last.headers.get("retry-after")) >= 1);
  await fresh.close();
});

test("settings (GET /settings/integrations/mcp) is throttled at 30 per minute per IP with Retry-After", async () => {
  const { statuses, last } = await hammer(`${app.url}/settings/integrations/mcp`, {}, 30);
  assert.ok(
    statuses.slice(0, 30).every((s) => s !== 429),
    statuses.join(","),
  );
  assert.equal(last.status, 429);
  assert.ok(Number(last.headers.get("retry-after")) >= 1);
});

test("every budget and throttle recovers after its window", async () => {
  const small = await startTestApp({
    queue: false,
    env: {
      RATE_LIMIT_WINDOW_SECONDS: "2",
      RATE_LIMIT_READS: "3",
      RATE_LIMIT_WRITES: "2",
      RATE_LIMIT_AI: "2",
      RATE_LIMIT_APPROVAL: "2",
      RATE_LIMIT_DELETE: "1",
      RATE_LIMIT_BROWSER: "2",
    },
  });
  const s = await world(small);
  const limits = small.ctx.config.budgets;
  for (const budget of Object.keys(CALLS) as Array<keyof typeof limits>) {
    const { passed, refusal } = await exhaust(s.rt, [s.me], budget, limits[budget]);
    assert.equal(passed, limits[budget]);
    assert.ok(refusal.error!.retry_after! <= 2);
  }
  const consent = () =>
    fetch(`${small.url}/mcp/oauth/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "x=1",
    });
  const settings = () => fetch(`${small.url}/settings/integrations/mcp`, { redirect: "manual" });
  for (const page of [consent, settings]) {
    for (let i = 0; i < 2; i++) assert.notEqual((await page()).status, 429);
    assert.equal((await page()).status, 429);
  }
  await new Promise((r) => setTimeout(r, 2300));
  for (const budget of Object.keys(CALLS)) {
    const [name, args] = CALLS[budget]!();
    const env = await call(s.rt, s.me, name, args);
    assert.equal(limited(env), false, `${budget} recovered: ${JSON.stringify(env.error)}`);
  }
  assert.notEqual((await consent()).status, 429);
  assert.notEqual((await settings()).status, 429);
});
