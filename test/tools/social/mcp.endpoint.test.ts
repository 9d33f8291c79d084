/**
 * Domain II tools through the real POST /mcp endpoint, pipeline, worker and approval page: one inline
 * (list_connected_social_accounts), one queued (generate_carousel, then get_carousel) and one review tool
 * (publish_post, approved in the browser form, then get_job_status), plus the TikTok refusal on the wire.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { grantCredits } from "../../../src/domain/account/credits.ts";
import { startTestApp } from "../../helpers/app.ts";
import { rpc } from "../../helpers/mcp-client.ts";
import { connect } from "../../helpers/tokens.ts";
import { browserSession, postDecision, waitFor } from "../../operations/helpers.ts";
import { account, imagePost, product } from "../carousels/fixtures.ts";

const app = await startTestApp({ worker: true });
const me = await app.user();
await grantCredits(app.ctx.db, me.user_id, 500, "test:grant");
const scopes = [
  "read:social_accounts",
  "read:content",
  "read:schedules",
  "read:jobs",
  "create:carousels",
  "publish:content",
];
const { token } = await connect(app, me, scopes);
const insta = await account(app, me, "instagram", "Shop Insta");
const tiktok = await account(app, me, "tiktok", "Shop TikTok");

async function call(name: string, args: Record<string, unknown>) {
  const res = await rpc(app.resource, "tools/call", { name, arguments: args }, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.result as { isError?: boolean; structuredContent: any };
}

test("inline: list_connected_social_accounts over /mcp returns the safe projection", async () => {
  const r = await call("list_connected_social_accounts", {});
  assert.equal(r.isError ?? false, false);
  assert.equal(r.structuredContent.status, "succeeded");
  const names = r.structuredContent.data.items.map((a: { display_name: string }) => a.display_name).sort();
  assert.deepEqual(names, ["Shop Insta", "Shop TikTok"]);
  assert.ok(!JSON.stringify(r).includes("secret"));
});

test("queued: generate_carousel returns post and run ids, charges 30, and get_carousel reaches succeeded", async () => {
  const productId = await product(app, me);
  const r = await call("generate_carousel", {
    product_id: productId,
    slide_count: 6,
    design_id: "bold-minimal",
    idempotency_key: randomUUID(),
  });
  assert.equal(r.structuredContent.status, "queued", JSON.stringify(r.structuredContent));
  assert.equal(r.structuredContent.credits_charged, 30);
  const { post_id, run_id } = r.structuredContent.data;
  assert.ok(post_id && run_id && r.structuredContent.operation_id);
  const done = await waitFor(
    () => call("get_carousel", { post_id }),
    (v) => ["succeeded", "failed"].includes(v.structuredContent.data.run.status),
    60_000,
  );
  assert.equal(done.structuredContent.data.run.status, "succeeded");
  assert.equal(done.structuredContent.data.run.run_id, run_id);
  assert.ok(done.structuredContent.data.slides.every((s: { status: string }) => s.status === "ready"));
});

test("review: publish_post needs approval; after the owner approves, the delivery is published", async () => {
  const postId = await imagePost(app, me, "Approved on the wire");
  const refused = await call("publish_post", {
    post_id: postId,
    social_account_ids: [tiktok],
    idempotency_key: randomUUID(),
  });
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent.error.code, "validation_failed");
  assert.equal(refused.structuredContent.approval_url, undefined);

  const r = await call("publish_post", {
    post_id: postId,
    social_account_ids: [insta],
    idempotency_key: randomUUID(),
  });
  assert.equal(r.structuredContent.status, "approval_required");
  assert.match(r.structuredContent.approval_url, /\/settings\/integrations\/mcp\/requests\//);
  assert.equal(
    (await app.ctx.db("deliveries").where({ post_id: postId })).length,
    0,
    "nothing runs before approval",
  );
  const operationId = r.structuredContent.operation_id;
  const session = await browserSession(app.ctx, me.user_id);
  const page = await fetch(r.structuredContent.approval_url, { headers: { cookie: session.cookie } });
  const html = await page.text();
  assert.match(html, /Approved on the wire/);
  assert.match(html, /Shop Insta/);
  const decision = await postDecision(app, operationId, session, "approve");
  assert.ok(decision.status < 400);
  const status = await waitFor(
    () => call("get_job_status", { operation_id: operationId }),
    (v) => ["succeeded", "failed", "outcome_unknown"].includes(v.structuredContent.data?.status),
    60_000,
  );
  assert.equal(status.structuredContent.data.status, "succeeded", JSON.stringify(status.structuredContent));
  const delivery = status.structuredContent.data.result.deliveries[0];
  assert.equal(delivery.status, "published");
  assert.equal(delivery.post_url, `${app.url}/sandbox/instagram/${delivery.delivery_id}`);
});
