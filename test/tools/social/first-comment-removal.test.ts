/**
 * The first comment and delete_post's removal from the networks, through the tool handlers as the pipeline
 * and the worker run them (sandbox accounts, which follow each network's own API: no comment on Pinterest or
 * TikTok, no delete on Instagram or TikTok): a first comment over a network's comment limit is refused at
 * the call naming the field, the network and the limit; it is part of the approved content (its
 * fingerprint) and shown on the approval page; it is posted under each live post and saved on the delivery;
 * check_post checks it and notes a network without comments. delete_post with remove_from_networks shows
 * every published copy and what happens to it, then removes what the API can: removed | stays_live, the
 * statuses, and the analytics sync no longer reads a removed delivery.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { deliveryRows } from "../../../src/domain/analytics/sync-account.ts";
import { handler as deleteHandler } from "../../../src/tools/content/delete_post.ts";
import { handler as checkHandler } from "../../../src/tools/social/check_post.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import { handler as schedulePostsHandler } from "../../../src/tools/social/schedule_posts.ts";
import { renderApprovalPage } from "../../../src/web/approval-page.ts";
import type { OperationRow } from "../../../src/domain/operations/store.ts";
import type { ApprovalDescription } from "../../../src/tool-contract.ts";
import { BOARD_SETTING } from "../../../src/providers/social/pinterest/boards.ts";
import {
  account,
  imagePost,
  inline,
  key,
  named,
  reviewed,
  setup,
  toolContext,
  toolError,
} from "../carousels/fixtures.ts";

const publish = named("publish_post", publishHandler);
const schedule = named("schedule_post", scheduleHandler);
const scheduleMany = named("schedule_posts", schedulePostsHandler);
const check = named("check_post", checkHandler);
const del = named("delete_post", deleteHandler);

const { app, me } = await setup();
const x = await account(app, me, "x", "Shop X");
const insta = await account(app, me, "instagram", "Shop Insta");
const linkedin = await account(app, me, "linkedin", "Shop LinkedIn");
const pinterest = await account(app, me, "pinterest", "Shop Pins");
await app.ctx
  .db("social_accounts")
  .where({ id: pinterest })
  .update({ settings: { [BOARD_SETTING]: "board-1" } });

/** The approval page of a request described by `description`, as the owner sees it. */
function page(tool: string, description: ApprovalDescription): string {
  const now = new Date();
  const op = {
    id: "3f1c1c1e-1111-4c1c-9c1c-1c1c1c1c1c1c",
    tool,
    state: "approval_required",
    created_at: now,
    approval_expires_at: new Date(now.getTime() + 600_000),
  } as unknown as OperationRow;
  return renderApprovalPage({
    op,
    toolTitle: tool,
    clientName: "Test client",
    clientVerified: true,
    description,
    csrfToken: "csrf",
    now,
  });
}

test("a first comment over a network's comment limit is refused at the call with the field, network and limit", async () => {
  const postId = await imagePost(app, me, "Mugs");
  const tooLong = `${"a".repeat(279)} https://example.com/x`; // 279 + 1 + 23 weighted on X
  const err = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [x], first_comment: tooLong, idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(
    err.message,
    /first_comment: X comments take at most 280 weighted characters; this one has 303/,
  );
  const issue = (err.details as Array<{ instancePath: string; params: Record<string, unknown> }>)[0]!;
  assert.equal(issue.instancePath, "/first_comment");
  assert.deepEqual(issue.params, { network: "x", limit: 280, found: 303 });
  // The same comment fits LinkedIn's 1,250 characters; a blank one is refused.
  await publish.describe!(
    { post_id: postId, social_account_ids: [linkedin], first_comment: tooLong, idempotency_key: key() },
    toolContext(app, me),
  );
  const blank = await toolError(
    schedule.describe!(
      {
        post_id: postId,
        social_account_ids: [linkedin],
        scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
        first_comment: "   ",
        idempotency_key: key(),
      },
      toolContext(app, me),
    ),
  );
  assert.match(blank.message, /first_comment must not be blank/);
});

test("check_post checks a first comment and notes a network without comments", async () => {
  const postId = await imagePost(app, me, "Check me");
  const { data: out } = await inline(app, me, check, {
    post_id: postId,
    social_account_ids: [x, pinterest],
    first_comment: "x".repeat(300),
  });
  const byNetwork = new Map(out.destinations.map((d) => [d.network, d]));
  assert.deepEqual(
    byNetwork.get("x")!.problems.map((p) => p.rule),
    ["first_comment_length"],
  );
  assert.equal(byNetwork.get("pinterest")!.ok, true, "no first comment there is not a refusal");
  assert.deepEqual(byNetwork.get("pinterest")!.notes, [
    "Pinterest has no API to comment on a post: the first comment is not posted there",
  ]);
});

test("the first comment is approved content, shown on the page, and posted under each live post", async () => {
  const postId = await imagePost(app, me, "Launch day");
  const comment = "Link in bio! #mugs";
  const plain = await publish.describe!(
    { post_id: postId, social_account_ids: [x, insta, pinterest], idempotency_key: key() },
    toolContext(app, me),
  );
  const { description, result } = await reviewed(app, me, publish, {
    post_id: postId,
    social_account_ids: [x, insta, pinterest],
    first_comment: comment,
    idempotency_key: key(),
  });
  assert.equal(description.content?.first_comment, comment);
  assert.notEqual(description.fingerprint, plain.fingerprint, "the comment is part of the fingerprint");
  const html = page("publish_post", description);
  assert.match(html, /<pre class="caption" id="first-comment">Link in bio! #mugs<\/pre>/);
  assert.match(html, /id="first-comment-unsupported">Not on Pinterest: no API for comments there/);
  const byNetwork = new Map(result.data.deliveries.map((d) => [d.network, d]));
  assert.equal(byNetwork.get("x")!.status, "published");
  assert.deepEqual(byNetwork.get("x")!.first_comment, {
    status: "posted",
    url: `${byNetwork.get("x")!.post_url}#first-comment`,
  });
  assert.equal(byNetwork.get("instagram")!.first_comment?.status, "posted");
  assert.deepEqual(byNetwork.get("pinterest")!.first_comment, {
    status: "unsupported",
    reason: "Pinterest has no API to comment on a post: the first comment is not posted there",
  });
  // Exactly once: a later pass posts nothing more.
  const rows = await app.ctx
    .db("deliveries")
    .where({ post_id: postId })
    .select("first_comment", "first_comment_id");
  assert.ok(rows.every((r: { first_comment: string }) => r.first_comment === comment));
});

test("schedule_posts: each item's first comment is bound and shown with its post; its deliveries carry it", async () => {
  const first = await imagePost(app, me, "Monday");
  const second = await imagePost(app, me, "Tuesday");
  const at = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();
  const { description, result } = await reviewed(app, me, scheduleMany, {
    items: [
      { post_id: first, scheduled_for: at(2), social_account_ids: [x], first_comment: "Monday's comment" },
      { post_id: second, scheduled_for: at(26), social_account_ids: [linkedin] },
    ],
    idempotency_key: key(),
  });
  assert.equal(description.items?.[0]?.content?.first_comment, "Monday's comment");
  assert.equal(description.items?.[1]?.content?.first_comment, undefined);
  const html = page("schedule_posts", description);
  assert.match(html, /<pre class="caption" id="item-1-first-comment">Monday&#39;s comment<\/pre>/);
  assert.ok(!html.includes('id="item-2-first-comment"'));
  const [one, two] = result.data.schedules;
  assert.deepEqual(one!.deliveries[0]!.first_comment, { status: "pending" });
  assert.equal(two!.deliveries[0]!.first_comment, null);
});

test("delete_post with remove_from_networks: the page lists each copy; removed where the API can, stays_live elsewhere", async () => {
  const postId = await imagePost(app, me, "Take it down");
  const published = await reviewed(app, me, publish, {
    post_id: postId,
    social_account_ids: [x, insta, linkedin, pinterest],
    idempotency_key: key(),
  });
  const urls = new Map(published.result.data.deliveries.map((d) => [d.network, d]));
  assert.ok([...urls.values()].every((d) => d.status === "published"));

  const { description, result } = await reviewed(app, me, del, {
    post_id: postId,
    remove_from_networks: true,
    idempotency_key: key(),
  });
  assert.deepEqual(
    description.removals?.map((r) => [r.network, r.action]),
    [
      ["instagram", "stays_live"],
      ["linkedin", "remove"],
      ["pinterest", "remove"],
      ["x", "remove"],
    ],
  );
  assert.match(description.summary, /Its copies on Instagram stay live/);
  const html = page("delete_post", description);
  assert.match(html, /<h2 id="removals-title">Published copies<\/h2>/);
  assert.match(html, /data-action="stays_live"[^>]*>Stays live: this service cannot delete it on Instagram/);
  assert.equal((html.match(/data-action="remove"/g) ?? []).length, 3);

  const byNetwork = new Map(result.data.removals.map((r) => [r.network, r]));
  assert.equal(byNetwork.get("x")!.result, "removed");
  assert.equal(byNetwork.get("linkedin")!.result, "removed");
  assert.equal(byNetwork.get("pinterest")!.result, "removed");
  assert.equal(byNetwork.get("instagram")!.result, "stays_live");
  assert.equal(byNetwork.get("instagram")!.post_url, urls.get("instagram")!.post_url);
  assert.match(
    byNetwork.get("instagram")!.reason!,
    /Instagram's API cannot delete a published post: it stays live; remove it by hand at http/,
  );

  const status = async (id: string) => (await app.ctx.db("deliveries").where({ id }).first("status")).status;
  assert.equal(await status(urls.get("x")!.delivery_id), "removed");
  assert.equal(await status(urls.get("linkedin")!.delivery_id), "removed");
  assert.equal(await status(urls.get("pinterest")!.delivery_id), "removed");
  assert.equal(await status(urls.get("instagram")!.delivery_id), "published");
  // The analytics sync reads neither a removed copy nor (the post being deleted here) the live one
  // (test/providers/social/x.published.test.ts checks a removed copy of a post that is not deleted).
  const now = new Date();
  const read = async (accountId: string) =>
    (await deliveryRows(app.ctx, accountId, now)).map((r) => r.delivery_id);
  assert.ok(!(await read(x)).includes(urls.get("x")!.delivery_id));
  assert.ok(!(await read(linkedin)).includes(urls.get("linkedin")!.delivery_id));
});

test("delete_post without remove_from_networks keeps today's behaviour: copies stay, nothing listed", async () => {
  const postId = await imagePost(app, me, "Keep the copies");
  await reviewed(app, me, publish, { post_id: postId, social_account_ids: [x], idempotency_key: key() });
  const { description, result } = await reviewed(app, me, del, { post_id: postId, idempotency_key: key() });
  assert.equal(description.removals, undefined);
  assert.deepEqual(result.data.removals, []);
  const d = await app.ctx.db("deliveries").where({ post_id: postId }).first("status");
  assert.equal(d.status, "published");
});
