/**
 * The main job as an agent does it on a host that never shows the server's instructions (DESIGN.md section 3):
 * the agent reads nothing but tools/list and the results, and follows `next` wherever a result names one.
 * Product from a URL, a carousel that fits Instagram, LinkedIn and X, one approval that approves it and
 * schedules it to all three, then the saved analytics: at most 15 calls that are not polls and at most 8 long
 * polls. The client is the official v2 SDK on 2026-07-28, validating every result against the listing.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import sharp from "sharp";
import { decideOperation } from "../../src/operations/approvals.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startTestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { htmlPage, localServer } from "../providers/fetch-server.ts";
import { account } from "../tools/carousels/fixtures.ts";

const photo = await sharp({ create: { width: 800, height: 1000, channels: 3, background: "#e8d5b7" } })
  .jpeg()
  .toBuffer();
const shop = await localServer({
  "/serum": htmlPage(`<!doctype html><html><head><title>Glow Serum | Lumen</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Glow Serum",
"description":"Vitamin C face serum that brightens in two weeks. 30 ml, fragrance free.",
"brand":{"@type":"Brand","name":"Lumen"},"image":["/img/serum.jpg"],
"offers":{"@type":"Offer","price":"29.90","priceCurrency":"EUR"}}</script></head><body></body></html>`),
  "/img/serum.jpg": (_req, res) => {
    res.writeHead(200, { "content-type": "image/jpeg" }).end(photo);
  },
});
const app = await startTestApp({ worker: true, env: { FETCH_ALLOW_LOOPBACK_PORT: String(shop.port) } });
const me = await app.user({ plan: "pro" });
const accounts = {
  instagram: await account(app, me, "instagram", "Lumen on Instagram"),
  linkedin: await account(app, me, "linkedin", "Lumen on LinkedIn"),
  x: await account(app, me, "x", "Lumen on X"),
};
const { token } = await connect(app, me, [...ALL_SCOPES]);
const client = new Client(
  { name: "agent", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
await client.connect(
  new StreamableHTTPClientTransport(new URL(app.resource), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
);
after(() => client.close());

interface Next {
  tool: string;
  arguments: Record<string, unknown>;
  after_seconds: number;
}
interface Envelope {
  status: string;
  data?: any;
  operation_id?: string;
  approval_url?: string;
  next?: Next;
  error?: { code: string; retry: string };
}

const calls = { other: 0, polls: 0 };
const log: string[] = [];

/** One tools/call as the agent makes it: counted, its envelope and its plain-words next step checked. */
async function call(name: string, args: Record<string, unknown>): Promise<Envelope> {
  if (typeof args.wait_seconds === "number" && args.wait_seconds > 0) calls.polls += 1;
  else calls.other += 1;
  const r = (await client.callTool({ name, arguments: args })) as {
    structuredContent: Envelope;
    content: Array<{ type: string; text: string }>;
    isError?: boolean;
  };
  const e = r.structuredContent;
  log.push(
    `${name} -> ${e.status}${e.data?.status ? `/${e.data.status}` : ""}${e.next ? ` next ${e.next.tool}` : ""}`,
  );
  assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(e.error)}`);
  if (e.next) {
    assert.deepEqual(Object.keys(e.next).sort(), ["after_seconds", "arguments", "tool"]);
    assert.match(
      r.content[1]?.text ?? "",
      new RegExp(`call ${e.next.tool} with`),
      `${name}: next in plain words`,
    );
  }
  return e;
}

/** Follows `next`: waits its after_seconds, then makes its call (with what its plain words say to add). */
async function follow(next: Next, add: Record<string, unknown> = {}): Promise<Envelope> {
  await sleep(next.after_seconds * 1000);
  return call(next.tool, { ...next.arguments, ...add });
}

test("the main job from tools/list and the results alone: 15 calls and 8 long polls at most", async (t) => {
  const listed = await client.listTools();
  const names = new Set(listed.tools.map((t) => t.name));
  for (const n of [
    "get_profile",
    "list_connected_social_accounts",
    "create_product",
    "list_carousel_formats",
  ])
    assert.ok(names.has(n), n);

  const profile = await call("get_profile", {});
  const zone = profile.data.time_zone as string;
  assert.equal(zone, "UTC");
  const socials = (await call("list_connected_social_accounts", {})).data.items as Array<{
    social_account_id: string;
    network: string;
  }>;
  const destinations = ["instagram", "linkedin", "x"].map(
    (n) => socials.find((a) => a.network === n)!.social_account_id,
  );
  assert.deepEqual(destinations, [accounts.instagram, accounts.linkedin, accounts.x]);

  // product from its page, in one call: queued, follow next until the product is there
  let step = await call("create_product", {
    product_url: `${shop.url}/serum`,
    idempotency_key: randomUUID(),
  });
  assert.equal(step.status, "queued");
  while (step.next) step = await follow(step.next);
  assert.equal(step.data.status, "succeeded");
  const product = step.data.result.product;
  assert.deepEqual(
    [product.name, product.price, product.currency, product.brand],
    ["Glow Serum", 29.9, "EUR", "Lumen"],
  );
  assert.equal(product.image_asset_ids.length, 1, "the page's own photo became the product's image");

  // a carousel that fits Instagram, LinkedIn and X: X takes at most 4 images
  const formats = (await call("list_carousel_formats", {})).data.designs as Array<{
    design_id: string;
    formats: string[];
    slide_counts: number[];
  }>;
  const design = formats.find((d) => d.formats.includes("portrait") && d.slide_counts.includes(4))!;
  const tooMany = await client.callTool({
    name: "generate_carousel",
    arguments: {
      product_id: product.product_id,
      design_id: design.design_id,
      slide_count: 6,
      format: "portrait",
      social_account_ids: destinations,
      idempotency_key: randomUUID(),
    },
  });
  calls.other += 1;
  const refusal = (tooMany.structuredContent as Envelope).error!;
  assert.deepEqual(
    [refusal.code, refusal.retry],
    ["validation_failed", "new_key"],
    "refused before any charge",
  );
  step = await call("generate_carousel", {
    product_id: product.product_id,
    design_id: design.design_id,
    slide_count: 4,
    format: "portrait",
    social_account_ids: destinations,
    idempotency_key: randomUUID(),
  });
  assert.equal(step.status, "queued");
  while (step.next?.tool === "get_carousel") step = await follow(step.next);
  assert.equal(step.data.run.status, "succeeded");
  assert.ok(step.data.slides.every((s: { status: string }) => s.status === "ready"));
  assert.equal(step.next?.tool, "schedule_post", "a ready draft carousel names its schedule");
  assert.deepEqual(step.next.arguments.social_account_ids, destinations);

  // one approval: the carousel and its schedule to the three networks
  const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10);
  step = await follow(step.next, {
    scheduled_for: `${tomorrow}T09:00:00+00:00`,
    idempotency_key: randomUUID(),
  });
  assert.equal(step.status, "approval_required");
  assert.match(step.data.summary, /^Approve the 4-slide carousel .+ and schedule/);
  const approval = await decideOperation(app.ctx, step.operation_id!, me.user_id, "approve"); // the user, in the browser
  assert.equal(approval.kind, "approved");
  while (step.next?.tool === "get_job_status") step = await follow(step.next);
  assert.equal(step.data.status, "succeeded");
  assert.equal(step.next?.tool, "get_schedule");
  step = await follow(step.next!);
  assert.equal(step.data.status, "scheduled");
  assert.deepEqual(
    step.data.deliveries.map((d: { network: string; status: string }) => `${d.network}:${d.status}`).sort(),
    ["instagram:pending", "linkedin:pending", "x:pending"],
  );

  const analytics = await call("get_account_analytics", {});
  assert.equal(analytics.status, "succeeded");

  t.diagnostic(`${calls.other} calls that are not polls, ${calls.polls} long polls`);
  assert.ok(calls.other <= 15, `${calls.other} calls that are not polls:\n${log.join("\n")}`);
  assert.ok(calls.polls <= 8, `${calls.polls} long polls:\n${log.join("\n")}`);
});
