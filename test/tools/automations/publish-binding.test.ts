/**
 * Enabled automations publish only what was approved (docs/social.md "Approved content: automations";
 * src/domain/automations/publish-binding.ts): the enable_automation approval shows and binds the product's
 * link, name and price and the destinations; a later update_product of one of them puts the automation in
 * `needs_review` (get_automation and the posts page say so) and its run's post stays a draft, sent only when
 * the owner approves the change with a new enable_automation request. A change made while a request waits
 * is refused at execution.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runAutomation } from "../../../src/domain/automations/run.ts";
import { handler as createHandler } from "../../../src/tools/automations/create_automation.ts";
import { handler as enableHandler } from "../../../src/tools/automations/enable_automation.ts";
import { handler as getHandler } from "../../../src/tools/automations/get_automation.ts";
import { handler as updateProductHandler } from "../../../src/tools/products/update_product.ts";
import { browserSession } from "../../helpers/browser.ts";
import { account, inline, key, named, product, reviewed, setup, toolError } from "../carousels/fixtures.ts";

const { app, me } = await setup("pro");
const db = app.ctx.db;
const owner = { userId: me.user_id, workspaceId: me.workspace_id };
const create = named("create_automation", createHandler);
const enable = named("enable_automation", enableHandler);
const get = named("get_automation", getHandler);
const updateProduct = named("update_product", updateProductHandler);
const insta = await account(app, me, "instagram", "Insta");

async function carouselAutomation(productId: string, name: string): Promise<string> {
  const out = await inline(app, me, create, {
    kind: "carousel",
    name,
    configuration: {
      product_id: productId,
      design_id: "bold-minimal",
      slide_count: 4,
      social_account_ids: [insta],
    },
    idempotency_key: key(),
  });
  return out.data.automation_id;
}
const review = async (id: string) => (await inline(app, me, get, { automation_id: id })).data;

test("the enable approval binds link, name, price and destinations; a changed link holds the run's post as a draft until the owner approves the change", async () => {
  const productId = await product(app, me);
  const id = await carouselAutomation(productId, "Serum daily");
  assert.deepEqual(
    [(await review(id)).review_status, (await review(id)).review_reason],
    ["not_enabled", null],
  );

  const { description } = await reviewed(app, me, enable, { automation_id: id, idempotency_key: key() });
  const rows = new Map((description.settings ?? []).map((r) => [r.label, r.value]));
  assert.equal(
    rows.get("Link in every post (caption call to action, Pinterest link)"),
    "https://shop.example.com/glow",
  );
  assert.equal(rows.get("Product name in every post"), "Glow Serum");
  assert.equal(rows.get("Product price in every post"), "29 USD");
  assert.deepEqual(
    description.destinations.map((d) => d.name),
    ["Insta"],
  );
  assert.match(description.publish?.fingerprint ?? "", /^[0-9a-f]{64}$/);
  assert.deepEqual([(await review(id)).review_status, (await review(id)).review_reason], ["approved", null]);

  // An agent (or a page it read) swaps the link: no approval is needed for update_product.
  await inline(app, me, updateProduct, {
    product_id: productId,
    product_url: "https://elsewhere.example/swap",
    idempotency_key: key(),
  });
  const held = await review(id);
  assert.equal(held.review_status, "needs_review");
  assert.match(
    held.review_reason ?? "",
    /the product link changed from https:\/\/shop\.example\.com\/glow to https:\/\/elsewhere\.example\/swap/,
  );
  assert.match(held.review_reason ?? "", /call enable_automation again/);
  const { cookie } = await browserSession(app.ctx, me.user_id);
  const page = await (await fetch(`${app.url}/posts`, { headers: { cookie } })).text();
  assert.match(page, /id="automations-review"/);
  assert.match(page, new RegExp(`data-automation-id="${id}" data-review-status="needs_review"`));
  assert.match(page, /Needs review/);

  // Its daily run still generates, but the post stays a draft: nothing reaches the destination.
  const run = await runAutomation(app.ctx, owner, { automationId: id, scheduledSlot: new Date() });
  assert.equal(run.status, "succeeded");
  const row = await db("automation_runs").where({ id: run.run_id }).first();
  assert.match(row.held_reason, /not published: the product link changed/);
  assert.equal((await db("posts").where({ id: row.post_id }).first("status")).status, "draft");
  assert.equal((await db("deliveries").where({ post_id: row.post_id })).length, 0, "nothing sent");
  assert.match((await review(id)).review_reason ?? "", /1 generated post is held now/);

  // The owner approves the change: the new link is bound and the held post goes out.
  const again = await reviewed(app, me, enable, { automation_id: id, idempotency_key: key() });
  assert.match(
    again.description.summary,
    /the product link changed from .* to https:\/\/elsewhere\.example\/swap/,
  );
  assert.match(again.description.summary, /1 post it generated meanwhile with these values is published/);
  const link = (again.description.settings ?? []).find((r) => r.label.startsWith("Link in every post"));
  assert.deepEqual(
    [link?.old, link?.value],
    ["https://shop.example.com/glow", "https://elsewhere.example/swap"],
  );
  assert.deepEqual([(await review(id)).review_status, (await review(id)).review_reason], ["approved", null]);
  const sent = await db("deliveries").where({ post_id: row.post_id });
  assert.deepEqual(
    sent.map((d: { social_account_id: string; status: string }) => [d.social_account_id, d.status]),
    [[insta, "published"]],
  );
  assert.match(sent[0].content_fingerprint, /^[0-9a-f]{64}$/, "bound to what was approved");
  assert.equal(
    (await db("automation_runs").where({ id: run.run_id }).first("held_reason")).held_reason,
    null,
  );
});

test("a product change while the enable request waits is refused at execution: nothing is enabled or bound", async () => {
  const productId = await product(app, me, {
    name: "Night Cream",
    product_url: "https://shop.example.com/night",
  });
  const id = await carouselAutomation(productId, "Cream daily");
  const err = await toolError(
    reviewed(
      app,
      me,
      enable,
      { automation_id: id, idempotency_key: key() },
      {
        beforeExecute: async () => {
          await db("products").where({ id: productId }).update({ price_minor: 9900 });
        },
      },
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /the price changed from 29 USD to 99 USD/);
  const a = await db("automations").where({ id }).first("status", "approved_publish");
  assert.deepEqual([a.status, a.approved_publish], ["draft", null]);
});
