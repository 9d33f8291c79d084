/**
 * `GET /metrics` on METRICS_PORT (src/observability/metrics.ts, collectors.ts, listeners.ts) after real
 * work, read with a Prometheus text-format parser (test/helpers/metrics.ts): tool calls over /mcp (one read,
 * one refused for its arguments, an unknown tool, an AI call through the openai-compatible Chat Completions
 * fake, one refused by the AI budget), a queued operation (generate_carousel, whose render job draws four
 * slides), publish_post approved on the approval page and delivered to X through the X fake, and a planned
 * nightly sync run. Each family is there with the expected labels and counts (taken as the difference
 * between a scrape before and one after, since the families belong to the process). No label takes a value
 * outside a bounded set: every label value of every family is checked against its finite domain (route
 * templates of the app, the registry's tool names, the error codes of src/errors.ts, the networks ...), after
 * requests on random paths, with random tool names and ids.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { TOOLS } from "../../generated/registry.ts";
import { createApp } from "../../src/app.ts";
import { planSyncRun, nightKey } from "../../src/domain/analytics/sync.ts";
import { OPERATION_STATES } from "../../src/domain/operations/store.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { errorCodes } from "../../src/errors.ts";
import { QUEUES, SCRAPE_CACHE_MS } from "../../src/observability/collectors.ts";
import { READINESS_CHECKS } from "../../src/observability/health.ts";
import { localAiText } from "../../src/providers/ai-text/local.ts";
import { DESIGNS } from "../../src/providers/render/designs.ts";
import { NETWORKS } from "../../src/providers/social/types.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { connectedXAccount, xFake } from "../fakes/x.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { type Scrape, scrape } from "../helpers/metrics.ts";
import { remoteText } from "../helpers/remote-text.ts";
import { connect } from "../helpers/tokens.ts";
import { postDecision, waitFor } from "../operations/helpers.ts";

const server = await startFakeNetworks();
const x = xFake(server, { ...FAKE_APPS.x, processingPolls: 0 });
const remote = await remoteText();
remote.setReply({
  variations: [{ caption: "Bright mornings start here", hook: "Wake up", hashtags: ["#coffee"] }],
});
const app = await startTestApp({
  worker: true,
  env: { ...liveNetworkEnv(server, ["x"]), METRICS_PORT: "0", RATE_LIMIT_AI: "2" },
  // Captions from the Chat Completions fake (an outbound AI call); the rest of the text provider is local.
  providers: { text: { ...localAiText, name: "openai-compatible", captions: remote.remote.captions } },
});
const alice = await app.user({ workspace: "Metrics Studio" });
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const xUser = x.addUser({ username: "metrics_x" });
const { account } = await upsertConnectedAccount(app.ctx.db, app.ctx.sealer, owner, connectedXAccount(xUser));
const { token } = await connect(app, alice, [
  "read:profile",
  "read:products",
  "create:products",
  "create:captions",
  "create:carousels",
  "create:content",
  "publish:content",
]);
const session = await browserSession(app.ctx, alice.user_id);

/** tools/call over /mcp; the envelope (structuredContent), or the JSON-RPC error. */
async function call(name: string, args: Record<string, unknown>) {
  const res = await rpc(app.resource, "tools/call", { name, arguments: args }, { token });
  return res.body?.result?.structuredContent ?? res.body?.error;
}

const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string>) =>
  after.value(name, labels) - before.value(name, labels);

test("the scrape after tool calls, a queued operation and a delivery has every family with its labels and counts", async () => {
  assert.ok(app.metricsUrl, "METRICS_PORT starts the metrics listener");
  assert.match(
    app.metricsUrl,
    /^http:\/\/127\.0\.0\.1:\d+\/metrics$/,
    "on loopback unless METRICS_HOST says otherwise",
  );
  const before = await scrape(app.metricsUrl);
  const beforeAt = Date.now();

  assert.equal((await call("get_profile", {})).status, "succeeded");
  assert.equal((await call("list_products", { limit: 0 })).error.code, "validation_failed");
  assert.equal((await call("no_such_tool", {})).code, -32602);
  const captions = await call("generate_captions", {
    brief: "Morning coffee",
    count: 1,
    idempotency_key: randomUUID(),
  });
  assert.equal(captions.status, "succeeded", JSON.stringify(captions));
  const product = await call("create_product", {
    name: "Lumen mug",
    description: "A mug.",
    idempotency_key: randomUUID(),
  });
  const carousel = await call("generate_carousel", {
    product_id: product.data.product_id,
    slide_count: 4,
    design_id: "bold-minimal",
    format: "square",
    idempotency_key: randomUUID(),
  });
  assert.equal(carousel.status, "queued", JSON.stringify(carousel));
  // The AI budget (2 a minute here) is spent: the third AI call is refused.
  assert.equal(
    (await call("generate_captions", { brief: "Again", idempotency_key: randomUUID() })).error.code,
    "rate_limited",
  );

  const post = await call("create_text_post", {
    caption: "Fresh beans today",
    status: "draft",
    idempotency_key: randomUUID(),
  });
  const asked = await call("publish_post", {
    post_id: post.data.post_id,
    social_account_ids: [account.social_account_id],
    idempotency_key: randomUUID(),
  });
  assert.equal(asked.status, "approval_required", JSON.stringify(asked));
  assert.equal((await postDecision(app, asked.operation_id, session, "approve")).status, 303);
  const delivery = await waitFor(
    () => app.ctx.db("deliveries").where({ post_id: post.data.post_id }).first("status"),
    (d) => d?.status === "published",
  );
  assert.equal(delivery.status, "published");
  assert.equal(x.created, 1);
  await waitFor(
    () => app.ctx.db("carousel_runs").where({ id: carousel.data.run_id }).first("status"),
    (r) => r?.status === "succeeded" || r?.status === "failed",
    60_000,
  );
  await waitFor(
    () => app.ctx.db("operations").where({ id: asked.operation_id }).first("state"),
    (o) => o?.state === "succeeded",
  );
  // Tonight's sync run, planned with the X account (one account left).
  const now = app.ctx.clock.now();
  await planSyncRun(app.ctx, nightKey(now), now);

  // The database-backed values are read once per SCRAPE_CACHE_MS: wait out the snapshot `before` read.
  await sleep(Math.max(0, SCRAPE_CACHE_MS - (Date.now() - beforeAt) + 50));
  const after = await scrape(app.metricsUrl);
  const d = (name: string, labels: Record<string, string>) => delta(before, after, name, labels);

  // Default process and Node metrics.
  for (const name of [
    "nodejs_eventloop_lag_seconds",
    "nodejs_heap_size_used_bytes",
    "process_resident_memory_bytes",
  ])
    assert.ok(after.find(name).length > 0, name);
  assert.equal(after.types.get("nodejs_gc_duration_seconds"), "histogram");

  // HTTP requests by route template and status, with a latency histogram.
  assert.ok(d("social_mcp_http_requests_total", { method: "POST", route: "/mcp", status: "200" }) >= 9);
  const decided = { method: "POST", route: "/settings/integrations/mcp/requests/:id", status: "303" };
  assert.equal(d("social_mcp_http_requests_total", decided), 1);
  assert.equal(d("social_mcp_http_request_duration_seconds_count", decided), 1);
  assert.equal(after.types.get("social_mcp_http_request_duration_seconds"), "histogram");

  // tools/call by tool, status and error code, with a latency histogram; refusals by budget.
  assert.equal(
    d("social_mcp_tool_calls_total", { tool: "get_profile", status: "succeeded", error_code: "none" }),
    1,
  );
  assert.equal(
    d("social_mcp_tool_call_duration_seconds_count", { tool: "get_profile", status: "succeeded" }),
    1,
  );
  assert.equal(
    d("social_mcp_tool_calls_total", {
      tool: "list_products",
      status: "failed",
      error_code: "validation_failed",
    }),
    1,
  );
  assert.equal(
    d("social_mcp_tool_calls_total", { tool: "unknown", status: "rejected", error_code: "unknown_tool" }),
    1,
  );
  assert.equal(
    d("social_mcp_tool_calls_total", {
      tool: "generate_captions",
      status: "failed",
      error_code: "rate_limited",
    }),
    1,
  );
  assert.equal(
    d("social_mcp_tool_calls_total", { tool: "generate_carousel", status: "queued", error_code: "none" }),
    1,
  );
  assert.equal(d("social_mcp_rate_limited_total", { budget: "ai" }), 1);

  // Operations by tool and state; approvals created and decided.
  for (const state of ["queued", "running", "succeeded"])
    assert.equal(d("social_mcp_operations_total", { tool: "generate_carousel", state }), 1, state);
  for (const state of ["approval_required", "approved", "queued", "running", "succeeded"])
    assert.equal(d("social_mcp_operations_total", { tool: "publish_post", state }), 1, state);
  assert.equal(d("social_mcp_approvals_created_total", { tool: "publish_post" }), 1);
  assert.equal(d("social_mcp_approvals_decided_total", { tool: "publish_post", decision: "approved" }), 1);

  // Queue depth and the oldest job's age, per queue (read at scrape time).
  for (const queue of QUEUES) {
    assert.equal(after.find("social_mcp_queue_jobs", { queue }).length, 2, queue);
    assert.equal(after.find("social_mcp_queue_oldest_job_age_seconds", { queue }).length, 1, queue);
  }

  // Deliveries by network and outcome, with the time from due to published.
  assert.equal(d("social_mcp_deliveries_total", { network: "x", outcome: "published" }), 1);
  assert.equal(d("social_mcp_delivery_due_to_published_seconds_count", { network: "x" }), 1);

  // Outbound provider calls by provider, operation and status class, with a latency histogram.
  const tweet = { provider: "x", operation: "publish.step", status_class: "2xx" };
  assert.ok(d("social_mcp_provider_calls_total", tweet) >= 1);
  assert.equal(
    d("social_mcp_provider_call_duration_seconds_count", tweet),
    d("social_mcp_provider_calls_total", tweet),
  );
  const chat = { provider: "ai_text", operation: "chat.completions", status_class: "2xx" };
  assert.equal(d("social_mcp_provider_calls_total", chat), 1);

  // The nightly sync: accounts done, failed, left in the current run.
  assert.equal(after.value("social_mcp_analytics_sync_accounts", { state: "left" }), 1);
  assert.equal(after.value("social_mcp_analytics_sync_accounts", { state: "done" }), 0);
  assert.equal(after.value("social_mcp_analytics_sync_accounts", { state: "failed" }), 0);
  assert.equal(after.value("social_mcp_analytics_sync_run_finished_timestamp_seconds"), 0);
  assert.equal(after.find("social_mcp_analytics_sync_deadline_missed").length, 1);

  // Media renders: duration and peak RSS per template.
  const render = { template: "carousel:bold-minimal" };
  assert.equal(d("social_mcp_media_render_duration_seconds_count", render), 1);
  assert.equal(d("social_mcp_media_render_peak_rss_bytes_count", render), 1);
  assert.ok(after.value("social_mcp_media_render_peak_rss_bytes_sum", render) > 50 * 1024 * 1024);

  // Readiness as a metric.
  assert.equal(after.value("social_mcp_ready"), 1);
  for (const check of READINESS_CHECKS)
    assert.equal(after.value("social_mcp_readiness_check", { check }), 1, check);
});

type Layer = { route?: { path?: unknown }; handle?: { stack?: Layer[] } };

/**
 * The route templates the app declares (every route of its routers, walked from Express's router; the areas
 * are mounted at the root), and the values for requests no route answered.
 */
function routeTemplates(): Set<string> {
  const { app: express } = createApp(app.ctx);
  const routes = new Set<string>(["unmatched", "other"]);
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) for (const p of [layer.route.path].flat()) routes.add(String(p));
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((express as unknown as { router: { stack: Layer[] } }).router.stack);
  return routes;
}

test("no label takes an unbounded value: every label value of every family is in its finite domain", async () => {
  const secrets = [randomUUID(), randomUUID(), alice.user_id, alice.workspace_id, account.social_account_id];
  for (const s of secrets) {
    await fetch(`${app.url}/${s}`);
    await fetch(`${app.url}/media/${s}/file`);
    await fetch(`${app.url}/sandbox/x/${s}?token=${s}`);
    await call(`tool_${s.replaceAll("-", "_")}`, {});
    await call("get_post", { post_id: s });
  }
  await fetch(`${app.url}/mcp`, { method: "PROPFIND" });
  const text = await (await fetch(app.metricsUrl!)).text();
  for (const s of secrets) assert.ok(!text.includes(s), "no id or path of a request reaches a label");

  const after = await scrape(app.metricsUrl!);
  const envelopeStatuses = [
    "approval_required",
    "approved",
    "queued",
    "running",
    "succeeded",
    "failed",
    "dispatch_failed",
    "denied",
    "outcome_unknown",
  ];
  const routes = routeTemplates();
  const domains: Record<string, (v: string) => boolean> = {
    method: (v) => ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"].includes(v),
    route: (v) => routes.has(v),
    status: (v) => /^[1-5][0-9]{2}$/.test(v) || [...envelopeStatuses, "rejected"].includes(v),
    tool: (v) => TOOLS.some((t) => t.name === v) || v === "unknown",
    error_code: (v) => (errorCodes as string[]).includes(v) || v === "none" || v === "unknown_tool",
    budget: (v) => ["read", "write", "ai", "approval", "delete", "mcp_ip"].includes(v),
    state: (v) =>
      (OPERATION_STATES as readonly string[]).includes(v) ||
      ["queued", "active", "done", "failed", "skipped", "left"].includes(v),
    decision: (v) => ["approved", "declined", "expired"].includes(v),
    network: (v) => (NETWORKS as readonly string[]).includes(v),
    outcome: (v) => ["published", "failed", "outcome_unknown"].includes(v),
    provider: (v) =>
      (NETWORKS as readonly string[]).includes(v) ||
      ["ai_text", "ai_image", "video", "social", "openai_compatible"].includes(v),
    operation: (v) =>
      /^(oauth\.(exchange_code|refresh|accounts)|publish\.(step|reconcile|limit)|metrics\.(account|post|post_batch)|account_settings|chat\.completions|images\.(generations|edits)|videos\.(create|retrieve|content)|other)$/.test(
        v,
      ),
    status_class: (v) => /^([1-5]xx|error)$/.test(v),
    template: (v) =>
      Object.keys(DESIGNS).some((k) => v === `carousel:${k}`) ||
      ["video:ugc-video", "video:2x2-grid", "video:single-fade"].includes(v),
    queue: (v) => (QUEUES as readonly string[]).includes(v),
    check: (v) => (READINESS_CHECKS as readonly string[]).includes(v),
    le: () => true,
  };
  const own = after.samples.filter((s) => s.name.startsWith("social_mcp_"));
  assert.ok(own.length > 100);
  for (const s of own)
    for (const [label, value] of Object.entries(s.labels)) {
      const domain = domains[label];
      assert.ok(domain, `${s.name}: label ${label} has no bounded domain`);
      assert.ok(domain(value), `${s.name}{${label}="${value}"} is outside its domain`);
    }
  // The requests on random paths were counted under bounded routes.
  assert.ok(
    after.value("social_mcp_http_requests_total", { route: "unmatched", status: "404" }) >= secrets.length,
  );
  assert.ok(
    after.value("social_mcp_tool_calls_total", { tool: "unknown", error_code: "unknown_tool" }) >=
      secrets.length,
  );
});
