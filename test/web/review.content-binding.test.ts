/**
 * TikTok's review page binds what it showed (docs/social.md "Approved content"): the form carries the content
 * fingerprint of the page the person saw, and a consent for a post that changed after the page was drawn is
 * refused (nothing queued, no consent recorded) and the page is drawn again with the current version. A
 * carousel whose slide is regenerated after it was published needs approve_carousel again before it is
 * published anywhere, /review included.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { acceptSlideRegeneration } from "../../src/domain/carousels/carousels.ts";
import { handler as approveHandler } from "../../src/tools/carousels/approve_carousel.ts";
import { handler as publishHandler } from "../../src/tools/social/publish_post.ts";
import { Jar, login } from "../oauth/support.ts";
import { account, key, named, reviewed, toolContext, toolError } from "../tools/carousels/fixtures.ts";
import { reviewWorld } from "./review-fixtures.ts";

const w = await reviewWorld();
const { app, tt } = w;
const db = app.ctx.db;
const alice = await app.user({ workspace: "Binding Studio" });
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
await grantCredits(db, alice.user_id, 100, "test:grant");
const tiktok = await w.connectCreator(owner, tt.addCreator({ username: "bind.me" }));
const insta = await account(app, alice, "instagram", "Insta");
const linkedin = await account(app, alice, "linkedin", "LinkedIn");
const approve = named("approve_carousel", approveHandler);
const publish = named("publish_post", publishHandler);

const jar = new Jar(app.url);
assert.equal((await login(jar, alice.email, alice.password)).status, 303);

/** The review form's hidden fields: CSRF token and the fingerprint of what the page showed. */
const formOf = (html: string) => {
  const $ = cheerio.load(html);
  return {
    csrf_token: $("#review-form input[name=csrf_token]").attr("value") ?? "",
    content_fingerprint: $("#review-form input[name=content_fingerprint]").attr("value") ?? "",
  };
};

/** Posts the review form of `postId` for the TikTok account, public, with consent. */
const consent = (postId: string, fields: Record<string, string>) =>
  jar.fetch(`/review/posts/${postId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      workspace_id: alice.workspace_id,
      account_id: tiktok,
      title: "Bound",
      description: "Bound",
      privacy_level: "PUBLIC_TO_EVERYONE",
      consent: "on",
      ...fields,
    }).toString(),
    redirect: "manual",
  });

/** Another stored JPEG of the owner (a slide of a donor carousel), to stand for a regenerated slide. */
async function anotherImage(): Promise<string> {
  const donor = await w.carouselPost(owner, "Donor", 1);
  return (await db("carousel_slides").where({ post_id: donor }).first("image_asset_id")).image_asset_id;
}

test("the form carries the fingerprint of what the page showed; a post changed since is refused and drawn again", async () => {
  const postId = await w.carouselPost(owner, "Binding the page");
  const shown = formOf(await (await jar.fetch(`/review/posts/${postId}`)).text());
  assert.match(shown.content_fingerprint, /^[0-9a-f]{64}$/);

  // A slide changes after the page was drawn (a regeneration finishing meanwhile).
  await db("carousel_slides")
    .where({ post_id: postId, position: 2 })
    .update({ image_asset_id: await anotherImage() });
  const stale = await consent(postId, shown);
  assert.equal(stale.status, 400);
  const redrawn = await stale.text();
  assert.match(redrawn, /The post changed after this page was shown/);
  assert.equal((await db("deliveries").where({ post_id: postId })).length, 0, "nothing queued");
  assert.equal((await db("tiktok_consents").where({ post_id: postId })).length, 0, "no consent recorded");
  const current = formOf(redrawn);
  assert.notEqual(current.content_fingerprint, shown.content_fingerprint, "the page shows the new version");

  const without = await consent(postId, { ...current, content_fingerprint: "" });
  assert.equal(without.status, 400, "a form without the fingerprint binds nothing");
  const ok = await consent(postId, current);
  assert.equal(ok.status, 303, ok.status === 303 ? "" : await ok.text());
  const delivery = await db("deliveries").where({ post_id: postId, social_account_id: tiktok }).first();
  assert.equal(
    delivery.content_fingerprint,
    current.content_fingerprint,
    "the delivery binds what was shown",
  );
});

test("a published carousel whose slide is regenerated needs approve_carousel again before it is published anywhere, /review included", async () => {
  const postId = await w.carouselPost(owner, "Regenerated after publishing");
  await db("posts").where({ id: postId }).update({ status: "draft" });
  await db("carousel_runs").insert({
    user_id: alice.user_id,
    workspace_id: alice.workspace_id,
    post_id: postId,
    design_id: "bold-minimal",
    format: "portrait",
    slide_count: 3,
    kind: "generate",
    status: "succeeded",
    outline: JSON.stringify({ design_id: "bold-minimal", format: "portrait", slide_count: 3, slides: [] }),
  });
  await reviewed(app, alice, approve, { post_id: postId, idempotency_key: key() });
  await reviewed(app, alice, publish, {
    post_id: postId,
    social_account_ids: [insta],
    idempotency_key: key(),
  });
  assert.equal((await db("posts").where({ id: postId }).first("status")).status, "published");

  // Slide 2 is regenerated (accepted, then its render finishes with a new image); the post stays published.
  await db.transaction((trx) =>
    acceptSlideRegeneration(
      trx,
      owner,
      { post_id: postId, position: 2 },
      { operationId: undefined, now: new Date(), sealer: app.ctx.sealer, deadlineSeconds: 900 },
    ),
  );
  await db("carousel_slides")
    .where({ post_id: postId, position: 2 })
    .update({ status: "ready", image_asset_id: await anotherImage() });
  await db("carousel_runs").where({ post_id: postId }).update({ status: "succeeded" });
  assert.equal((await db("posts").where({ id: postId }).first("status")).status, "published");

  const refused = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [linkedin], idempotency_key: key() },
      toolContext(app, alice),
    ),
  );
  assert.equal(refused.code, "validation_failed");
  assert.match(refused.message, /changed since it was approved.*approve it again with approve_carousel/);
  const $ = cheerio.load(await (await jar.fetch("/review")).text());
  const offered = $(`section[data-account="${tiktok}"] a`)
    .map((_, a) => $(a).attr("href") ?? "")
    .get();
  assert.ok(!offered.some((href) => href.startsWith(`/review/posts/${postId}?`)), "not offered on /review");
  const picked = await consent(postId, formOf(await (await jar.fetch(`/review/posts/${postId}`)).text()));
  assert.equal(picked.status, 400);
  assert.match(await picked.text(), /approve it again with approve_carousel/);
  assert.equal((await db("deliveries").where({ post_id: postId, social_account_id: tiktok })).length, 0);

  // Approved again: the new slides may go out.
  await reviewed(app, alice, approve, { post_id: postId, idempotency_key: key() });
  await reviewed(app, alice, publish, {
    post_id: postId,
    social_account_ids: [linkedin],
    idempotency_key: key(),
  });
  const out = await db("deliveries").where({ post_id: postId, social_account_id: linkedin }).first("status");
  assert.equal(out.status, "published");
});
