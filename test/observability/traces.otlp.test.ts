// test-process: own (tracing is process-wide: the SDK patches http, undici, pg and express for the process)
/**
 * OpenTelemetry traces (src/observability/tracing.ts, tracing-sdk.ts; docs/operations.md "Traces") sent to a
 * local OTLP/HTTP receiver (OTEL_EXPORTER_OTLP_ENDPOINT, the JSON encoding): publish_post over /mcp, its
 * approval on the approval page, the worker's execution and the delivery to X through the X fake are one
 * trace, whose spans run from `tools/call publish_post` (with the pipeline's stages) through `approval`,
 * `process operations` and `delivery step` down to the network call; no span attribute or event holds the
 * bearer token, the X token, the caption, the session or a URL query; log lines carry trace_id and span_id.
 * The receiver runs in a worker thread, out of reach of the process's http instrumentation (its requests
 * would otherwise be traced and exported in turn). The SDK starts before the service's modules load, as
 * src/main.ts does it: they are imported after it.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { test } from "node:test";
import { Worker } from "node:worker_threads";

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status: { code?: number; message?: string };
}

/** OTLP JSON attributes (`[{key, value: {stringValue | intValue | ...}}]`) as a plain object. */
const flat = (attributes: Array<{ key: string; value: Record<string, unknown> }> = []) =>
  Object.fromEntries(attributes.map((a) => [a.key, Object.values(a.value)[0]]));

const received: ReceivedSpan[] = [];
const receiver = new Worker(
  `const http = require("node:http");
   const { parentPort } = require("node:worker_threads");
   const server = http.createServer((req, res) => {
     let body = "";
     req.on("data", (c) => (body += c));
     req.on("end", () => {
       parentPort.postMessage({ path: req.url, type: req.headers["content-type"], body });
       res.writeHead(200, { "content-type": "application/json" }).end("{}");
     });
   });
   server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));`,
  { eval: true },
);
const port = await new Promise<number>((resolve) =>
  receiver.once("message", (m: { port: number }) => resolve(m.port)),
);
receiver.on("message", (m: { path: string; type: string; body: string }) => {
  assert.equal(m.path, "/v1/traces");
  assert.match(m.type, /application\/json/);
  for (const rs of JSON.parse(m.body).resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        received.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind,
          attributes: flat(s.attributes),
          events: (s.events ?? []).map((e: { name: string; attributes: [] }) => ({
            name: e.name,
            attributes: flat(e.attributes),
          })),
          status: s.status ?? {},
        });
});

const env = {
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "100",
};
Object.assign(process.env, env);
const { startTracing, tracingRequested } = await import("../../src/observability/tracing-sdk.ts");
assert.equal(tracingRequested(env), true);
const tracing = startTracing(process.env);

// The service's modules (and the fakes) load only now, after the instrumentations are in place.
const { createLogger } = await import("../../src/log.ts");
const { upsertConnectedAccount } = await import("../../src/domain/social/accounts.ts");
const { FAKE_APPS, liveNetworkEnv } = await import("../fakes/live-env.ts");
const { startFakeNetworks } = await import("../fakes/server.ts");
const { connectedXAccount, xFake } = await import("../fakes/x.ts");
const { startTestApp } = await import("../helpers/app.ts");
const { browserSession } = await import("../helpers/browser.ts");
const { rpc } = await import("../helpers/mcp-client.ts");
const { connect } = await import("../helpers/tokens.ts");
const { postDecision, waitFor } = await import("../operations/helpers.ts");

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(String(chunk));
    done();
  },
});
const server = await startFakeNetworks();
const x = xFake(server, { ...FAKE_APPS.x, processingPolls: 0 });
const app = await startTestApp({
  worker: true,
  env: liveNetworkEnv(server, ["x"]),
  logger: createLogger("info", sink),
});
const alice = await app.user({ workspace: "Traced Studio" });
const xUser = x.addUser({ username: "traced_x" });
const { account } = await upsertConnectedAccount(
  app.ctx.db,
  app.ctx.sealer,
  { userId: alice.user_id, workspaceId: alice.workspace_id },
  connectedXAccount(xUser),
);
const { token } = await connect(app, alice, ["create:content", "publish:content"]);
const session = await browserSession(app.ctx, alice.user_id);

async function call(name: string, args: Record<string, unknown>) {
  const res = await rpc(app.resource, "tools/call", { name, arguments: args }, { token });
  return res.body.result.structuredContent;
}

test("publish_post, its approval, the worker and the delivery's network call are one trace, with no secret in it", async () => {
  const caption = `Secret launch caption ${randomUUID()}`;
  // A request whose query holds a secret (an OAuth code, a signature): its server span keeps only the path.
  const code = `code-${randomUUID()}`;
  assert.equal((await fetch(`${app.url}/developers/mcp?code=${code}&state=${code}`)).status, 200);
  const post = await call("create_text_post", { caption, status: "draft", idempotency_key: randomUUID() });
  const asked = await call("publish_post", {
    post_id: post.data.post_id,
    social_account_ids: [account.social_account_id],
    idempotency_key: randomUUID(),
  });
  assert.equal(asked.status, "approval_required");
  assert.equal((await postDecision(app, asked.operation_id, session, "approve")).status, 303);
  await waitFor(
    () => app.ctx.db("operations").where({ id: asked.operation_id }).first("state"),
    (o) => o?.state === "succeeded",
  );
  assert.equal(x.created, 1);
  const tweet = [...x.tweets.values()][0]!;
  const spanOf = (name: string) => received.find((s) => s.name === name);
  await tracing.flush();
  await waitFor(
    async () => spanOf("delivery step") && spanOf(`process operations`),
    (found) => Boolean(found),
  );

  const root = spanOf("tools/call publish_post");
  assert.ok(root, `spans: ${[...new Set(received.map((s) => s.name))].join(", ")}`);
  assert.equal(root.attributes["mcp.method.name"], "tools/call");
  assert.equal(root.attributes["gen_ai.tool.name"], "publish_post");
  const trace = received.filter((s) => s.traceId === root.traceId);
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const ancestors = (s: ReceivedSpan) => {
    const names: string[] = [];
    for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) names.push(p.name);
    return names;
  };
  // The pipeline's stages are the call's children; authenticate is its request's.
  for (const stage of ["validate", "budget", "idempotency", "handler", "audit"]) {
    const span = trace.find((s) => s.name === stage && ancestors(s).includes(root.name));
    assert.ok(span, `${stage} under tools/call`);
  }
  assert.ok(
    trace.some((s) => s.name === "authenticate"),
    "authenticate in the same trace",
  );
  assert.ok(
    trace.some((s) => s.name.startsWith("pg.query")),
    "the SQL in the same trace",
  );
  // approval -> the worker's execution -> the delivery step -> the network call.
  const approval = trace.find((s) => s.name === "approval");
  assert.ok(approval, "the approval continues the call's trace");
  assert.ok(ancestors(approval).includes(root.name));
  assert.equal(approval.attributes["social_mcp.approval.result"], "approved");
  const processed = trace.find((s) => s.name === "process operations");
  assert.ok(processed, "the worker's execution continues it");
  assert.equal(processed.kind, 5, "a consumer span");
  assert.ok(ancestors(processed).includes("approval"));
  const step = trace.find((s) => s.name === "delivery step");
  assert.ok(step);
  assert.equal(step.attributes["social_mcp.network"], "x");
  assert.equal(step.attributes["social_mcp.delivery.state"], "published");
  assert.ok(ancestors(step).includes("process operations"));
  const networkCall = trace.find(
    (s) => s.kind === 3 && String(s.attributes["url.full"] ?? "").includes("/api.x.com/2/tweets"),
  );
  assert.ok(networkCall, "the network call (undici) is in the trace");
  assert.deepEqual(ancestors(networkCall).slice(0, 1), ["delivery step"]);
  assert.ok(ancestors(networkCall).includes(root.name), "from tools/call down to the network call");

  // No token, caption, session, body or URL query in any attribute or event of any span.
  const secrets = [
    token,
    xUser.accessToken,
    caption,
    tweet.text,
    session.cookie.split("=")[1]!,
    session.csrf,
    code,
  ];
  assert.ok(
    received.some((s) => s.attributes["url.path"] === "/developers/mcp"),
    "the request with the query was traced",
  );
  const text = JSON.stringify(received.map((s) => [s.attributes, s.events, s.status]));
  for (const secret of secrets) assert.ok(!text.includes(secret), `no span holds ${secret.slice(0, 12)}…`);
  for (const s of received) {
    assert.ok(!("url.query" in s.attributes) && !("http.request.body" in s.attributes), s.name);
    for (const key of ["url.full", "http.url", "http.target"])
      assert.ok(!String(s.attributes[key] ?? "").includes("?"), `${s.name} ${key} has no query`);
    assert.ok(!Object.keys(s.attributes).some((k) => k.startsWith("http.request.header")), s.name);
  }

  // Log lines written inside a span carry its trace_id and span_id.
  const approved = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "operation approved");
  assert.equal(approved?.trace_id, root.traceId);
  assert.equal(approved?.span_id, approval.spanId);
});

test.after(async () => {
  await tracing.shutdown();
  await receiver.terminate();
});
