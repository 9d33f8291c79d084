/** list_connected_social_accounts, publish_post and list_deliveries over a real database and the sandbox connector. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rowBinding } from "../../../src/crypto/seal.ts";
import { handler as listAccountsHandler } from "../../../src/tools/social/list_connected_social_accounts.ts";
import { handler as listDeliveriesHandler } from "../../../src/tools/social/list_deliveries.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import {
  account,
  inline,
  key,
  named,
  product,
  reviewed,
  setup,
  textPost,
  toolContext,
  toolError,
} from "../carousels/fixtures.ts";

const listAccounts = named("list_connected_social_accounts", listAccountsHandler);
const listDeliveries = named("list_deliveries", listDeliveriesHandler);
const publish = named("publish_post", publishHandler);

const { app, me, other, peer } = await setup();
const page = await account(app, me, "facebook", "Shop Page");
const insta = await account(app, me, "instagram", "Shop Insta");
const linkedin = await account(app, me, "linkedin", "Shop LinkedIn");
const tiktok = await account(app, me, "tiktok", "Shop TikTok");
const expired = await account(app, me, "facebook", "Old Page", "expired");
const othersAccount = await account(app, other, "instagram", "Other Insta");
const peersAccount = await account(app, peer, "x", "Peer X");

test("list_connected_social_accounts returns the safe projection of my accounts only", async () => {
  const out = await inline(app, me, listAccounts, {});
  assert.deepEqual(out.data.items.map((a) => a.display_name).sort(), [
    "Old Page",
    "Shop Insta",
    "Shop LinkedIn",
    "Shop Page",
    "Shop TikTok",
  ]);
  for (const item of out.data.items) {
    assert.deepEqual(Object.keys(item).sort(), [
      "display_name",
      "handle",
      "network",
      "social_account_id",
      "status",
    ]);
  }
  const text = JSON.stringify(out.data);
  assert.ok(!text.includes("secret"), "no token or provider metadata in the projection");
  const row = await app.ctx.db("social_accounts").where({ id: insta }).first();
  assert.ok(!row.access_token_sealed.includes("secret"), "tokens are sealed at rest");
  const token = app.ctx.sealer.open<string>(
    row.access_token_sealed,
    rowBinding("social_accounts", "access_token_sealed", row.id),
  );
  assert.ok(token.length > 40, "a sandbox access token is stored sealed");
  assert.ok(!text.includes(token) && !text.includes(row.access_token_sealed), "and never listed");
  assert.equal(out.data.items.find((a) => a.social_account_id === expired)!.status, "expired");
  assert.ok(
    !out.data.items.some(
      (a) => a.social_account_id === othersAccount || a.social_account_id === peersAccount,
    ),
  );
});

test("publish_post describes the post and destinations, then publishes with post URLs", async () => {
  const postId = await textPost(app, me, "Summer sale starts now");
  const { description, result } = await reviewed(app, me, publish, {
    post_id: postId,
    social_account_ids: [page, linkedin],
    idempotency_key: key(),
  });
  assert.match(
    description.summary,
    /Publish the text post “Summer sale starts now” now to Shop Page \(Facebook\), Shop LinkedIn \(LinkedIn\)/,
  );
  assert.deepEqual(description.resources, [{ kind: "post", id: postId, label: "Summer sale starts now" }]);
  assert.deepEqual(description.destinations, [
    { name: "Shop Page", network: "facebook", handle: "@facebook_handle" },
    { name: "Shop LinkedIn", network: "linkedin", handle: "@linkedin_handle" },
  ]);
  assert.equal(result.data.deliveries.length, 2);
  for (const d of result.data.deliveries) {
    assert.equal(d.status, "published");
    assert.equal(d.post_url, `${app.url}/sandbox/${d.network}/${d.delivery_id}`, "the sandbox post page");
    assert.equal(d.reason, null);
    assert.ok(d.published_at);
  }
  const post = await app.ctx.db("posts").where({ id: postId }).first();
  assert.equal(post.status, "published");
  const listed = await inline(app, me, listDeliveries, { post_id: postId });
  assert.deepEqual(
    listed.data.items.map((d) => d.post_url).sort(),
    result.data.deliveries.map((d) => d.post_url).sort(),
  );
});

test("publishing to an account that is not connected is refused at the call (account_setup_required)", async () => {
  const postId = await textPost(app, me);
  const input = { post_id: postId, social_account_ids: [expired], idempotency_key: key() };
  const err = await toolError(publish.describe!(input, toolContext(app, me)));
  assert.equal(err.code, "account_setup_required");
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
  assert.equal((await app.ctx.db("posts").where({ id: postId }).first()).status, "draft");
});

test("tiktok is rejected at call time with a clear validation_failed, before any approval", async () => {
  const postId = await textPost(app, me);
  const err = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [insta, tiktok], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(
    err.message,
    /tiktok needs creator options and per-post consent in the service's own review page/,
  );
  assert.ok(err.message.includes(`${app.url}/review`), "the message gives the review page URL");
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
});

test("foreign posts and accounts are not_found", async () => {
  const mine = await textPost(app, me);
  for (const ids of [[othersAccount], [peersAccount], [insta, othersAccount]]) {
    const err = await toolError(
      publish.describe!(
        { post_id: mine, social_account_ids: ids, idempotency_key: key() },
        toolContext(app, me),
      ),
    );
    assert.equal(err.code, "not_found");
  }
  for (const who of [other, peer]) {
    const err = await toolError(
      publish.describe!(
        { post_id: mine, social_account_ids: [insta], idempotency_key: key() },
        toolContext(app, who),
      ),
    );
    assert.equal(err.code, "not_found");
    assert.equal((await toolError(inline(app, who, listDeliveries, { post_id: mine }))).code, "not_found");
  }
});

test("a carousel must be fully generated before it is published (its approval may come with the publication)", async () => {
  const productId = await product(app, me);
  const [post] = await app.ctx
    .db("posts")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "carousel",
      status: "draft",
      product_id: productId,
    })
    .returning("id");
  const err = await toolError(
    publish.describe!(
      { post_id: post.id, social_account_ids: [insta], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /not fully generated; check get_carousel/);
});

test("the post is re-checked at execution: deleted after approval -> not_found, no delivery", async () => {
  const postId = await textPost(app, me);
  await publish.describe!(
    { post_id: postId, social_account_ids: [page], idempotency_key: key() },
    toolContext(app, me),
  );
  await app.ctx.db("posts").where({ id: postId }).update({ deleted_at: new Date() });
  const err = await toolError(
    publish.execute(
      { post_id: postId, social_account_ids: [page], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "not_found");
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
});

test("list_deliveries pages newest first with an opaque cursor", async () => {
  const postId = await textPost(app, me);
  const x = await account(app, me, "x", "Shop X");
  for (const destination of [page, linkedin, x])
    await reviewed(app, me, publish, {
      post_id: postId,
      social_account_ids: [destination],
      idempotency_key: key(),
    });
  const first = await inline(app, me, listDeliveries, { post_id: postId, limit: 2 });
  assert.equal(first.data.items.length, 2);
  assert.ok(first.data.next_cursor);
  const second = await inline(app, me, listDeliveries, {
    post_id: postId,
    limit: 2,
    cursor: first.data.next_cursor!,
  });
  assert.equal(second.data.items.length, 1);
  assert.equal(second.data.next_cursor, null);
  const ids = [...first.data.items, ...second.data.items].map((d) => d.delivery_id);
  assert.equal(new Set(ids).size, 3);
  const bad = await toolError(inline(app, me, listDeliveries, { cursor: "not-a-cursor" }));
  assert.equal(bad.code, "validation_failed");
});
