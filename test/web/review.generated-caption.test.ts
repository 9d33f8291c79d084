/**
 * A video automation run's post carries a generated caption (docs/operations.md "Captions of generated
 * posts"), and the TikTok review UI shows it: a fade-video automation with a TikTok destination runs through
 * the real local providers (text, image, video), its post waits in `needs_review`, and `/review/posts/:id`
 * offers the caption in full as the post's text. The caption follows the automation's `caption_tone` and
 * names the product and its link.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { handler as createHandler } from "../../src/tools/automations/create_automation.ts";
import { handler as runHandler } from "../../src/tools/automations/run_automation.ts";
import { handler as getPostHandler } from "../../src/tools/content/get_post.ts";
import { Jar, login } from "../oauth/support.ts";
import { inline, key, named, product, reviewed } from "../tools/carousels/fixtures.ts";
import { reviewWorld } from "./review-fixtures.ts";

const create = named("create_automation", createHandler);
const run = named("run_automation", runHandler);
const getPost = named("get_post", getPostHandler);

const w = await reviewWorld();
const { app, tt } = w;
const alice = await app.user({ plan: "pro" });
await grantCredits(app.ctx.db, alice.user_id, 100, "test:grant");
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const accountId = await w.connectCreator(
  owner,
  tt.addCreator({ username: "alice.hikes", nickname: "Alice" }),
);

test("a video automation run's post has a generated caption, and /review shows it", async () => {
  const productId = await product(app, alice, {
    name: "Summit Bottle",
    product_url: "https://summit.example/b",
  });
  const automation = await inline(app, alice, create, {
    kind: "video",
    name: "Daily fade",
    configuration: {
      type: "fade-video",
      template_id: "single-fade",
      product_id: productId,
      caption_tone: "bold",
      social_account_ids: [accountId],
    } as never,
    idempotency_key: key(),
  });
  const { result } = await reviewed(app, alice, run, {
    automation_id: automation.data.automation_id,
    idempotency_key: key(),
  });
  assert.equal(result.data.status, "succeeded");
  const runRow = await app.ctx.db("automation_runs").where({ id: result.data.run_id }).first("post_id");
  const post = await inline(app, alice, getPost, { post_id: runRow.post_id });
  const caption = post.data.caption;
  assert.ok(caption, "the post has a caption");
  assert.match(caption, /Summit Bottle/);
  assert.match(caption, /https:\/\/summit\.example\/b\n\n#\S+ #\S+ #\S+/, "CTA with the link, then hashtags");
  assert.notEqual(caption, "Summit Bottle", "not just the product name");

  const delivery = await app.ctx
    .db("deliveries")
    .where({ post_id: runRow.post_id, social_account_id: accountId })
    .first("id", "status");
  assert.equal(delivery.status, "needs_review");
  const jar = new Jar(app.url);
  assert.equal((await login(jar, alice.email, alice.password)).status, 303);
  const res = await jar.fetch(`/review/posts/${runRow.post_id}?delivery_id=${delivery.id}`);
  assert.equal(res.status, 200);
  assert.equal(
    cheerio
      .load(await res.text())("#title")
      .text(),
    caption,
  );
});
