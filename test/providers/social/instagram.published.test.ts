/**
 * Instagram's first comment (src/providers/social/instagram/published.ts) against the provider-shaped fake
 * (test/fakes/instagram.ts), checked by the Graph description, through the service's first-comment step
 * (src/domain/social/first-comment.ts): connect asks for instagram_business_manage_comments; the comment is
 * posted under the media and its id saved once, its URL the media's permalink; a lost answer is found among
 * the media's comments (exactly one comment); a comment on a media Instagram does not have fails the first
 * comment with Graph's reason while the delivery stays published; a grant without the comments permission
 * is not asked and says which permission to reconnect with. Instagram has no delete: no remover.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Owner } from "../../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { postFirstComment, runDueFirstComments } from "../../../src/domain/social/first-comment.ts";
import { instagramAdapter } from "../../../src/providers/social/instagram/adapter.ts";
import { INSTAGRAM_CAPABILITIES } from "../../../src/providers/social/instagram/table.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { IG_GRAPH_HOST, type InstagramUser, instagramFake } from "../../fakes/instagram.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";

const GRANT = [
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_insights",
  "instagram_business_manage_comments",
];

const server = await startFakeNetworks();
const ig = instagramFake(server, FAKE_APPS.instagram);
const clock = new TestClock({ skipWaits: true });
ig.now = () => clock.now().getTime(); // Instagram's clock agrees with the service's
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["instagram"]) } });
const alice = await app.user({ workspace: "Alice Instagram comments" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;

/** Connects `user` with `scopes` as its known grant; the account id. */
async function connect(user: InstagramUser, scopes = GRANT): Promise<string> {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "instagram",
    mode: "live",
    account: { networkAccountId: user.userId, handle: user.username, capabilities: INSTAGRAM_CAPABILITIES },
    tokens: { accessToken: user.accessToken, scopes },
    now: clock.now(),
  });
  return account.social_account_id;
}

/** A published delivery of media `mediaId` (permalink `postUrl`) to `accountId` whose first comment waits. */
async function publishedWithComment(accountId: string, mediaId: string, postUrl: string, text: string) {
  const [post] = await db("posts")
    .insert({
      ...{ user_id: owner.userId, workspace_id: owner.workspaceId },
      type: "image",
      status: "published",
    })
    .returning("id");
  const [row] = await db("deliveries")
    .insert({
      ...{ user_id: owner.userId, workspace_id: owner.workspaceId },
      post_id: post.id,
      social_account_id: accountId,
      status: "published",
      provider_post_id: mediaId,
      post_url: postUrl,
      published_at: clock.now(),
      first_comment: text,
      first_comment_status: "pending",
    })
    .returning("id");
  return row.id as string;
}

const delivery = (id: string) => db("deliveries").where({ id }).first();
const permalinkOf = (mediaId: string) => ig.media.get(mediaId)!.permalink;

test("connect asks for instagram_business_manage_comments; it is not required to connect", () => {
  const adapter = instagramAdapter(FAKE_APPS.instagram, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => clock.now(),
    http: createSocialHttp(server.url),
  });
  const url = new URL(adapter.oauth.authorizeUrl({ state: "s", redirectUri: "https://app.example.test/cb" }));
  assert.ok(url.searchParams.get("scope")!.split(",").includes("instagram_business_manage_comments"));
  assert.ok(!adapter.oauth.requiredScopes.includes("instagram_business_manage_comments"));
  assert.deepEqual(adapter.comments!.scopes, ["instagram_business_manage_comments"]);
  assert.equal(adapter.remover, undefined, "the content publishing API has no delete");
});

test("the first comment is posted under the media once; its id is saved, its URL is the permalink", async () => {
  const user = ig.addUser({ username: "ig.comment.ok" });
  const account = await connect(user);
  const mediaId = ig.addMedia(user.userId);
  const id = await publishedWithComment(account, mediaId, permalinkOf(mediaId), "Shop the look: link in bio");
  const before = server.counter("instagram.comments");
  assert.equal(await postFirstComment(app.ctx, id), "posted");
  const d = await delivery(id);
  assert.equal(d.status, "published");
  assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
  const made = ig.comments.filter((c) => c.mediaId === mediaId);
  assert.equal(made.length, 1);
  assert.equal(d.first_comment_id, made[0]!.id);
  assert.equal(made[0]!.text, "Shop the look: link in bio");
  assert.equal(made[0]!.userId, user.userId, "as the account");
  assert.equal(d.first_comment_url, permalinkOf(mediaId), "a comment has no URL of its own");
  assert.equal(server.counter("instagram.comments") - before, 1);
  clock.advance(60);
  assert.equal(await postFirstComment(app.ctx, id), undefined, "posted: nothing more to do");
  assert.equal(server.counter("instagram.comments") - before, 1);
});

test("a lost answer: the next attempt finds the comment among the media's comments, exactly one", async () => {
  const user = ig.addUser({ username: "ig.comment.lost" });
  const account = await connect(user);
  const mediaId = ig.addMedia(user.userId);
  const id = await publishedWithComment(account, mediaId, permalinkOf(mediaId), "Once only");
  const before = server.counter("instagram.comments");
  server.fault({ host: IG_GRAPH_HOST, path: `/${mediaId}/comments`, method: "POST" }, { kind: "lost" });
  assert.equal(await postFirstComment(app.ctx, id), "pending");
  let d = await delivery(id);
  assert.ok(d.first_comment_sent_at, "the send is recorded before the comment is created");
  assert.equal(server.counter("instagram.comments") - before, 1, "Instagram made the comment");
  clock.advance(10);
  await runDueFirstComments(app.ctx);
  d = await delivery(id);
  assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
  const made = ig.comments.filter((c) => c.mediaId === mediaId);
  assert.equal(made.length, 1, "exactly one comment at Instagram");
  assert.equal(d.first_comment_id, made[0]!.id, "the comment made is the one recorded");
  assert.equal(server.counter("instagram.comments") - before, 1);
});

test("a comment on a media Instagram does not have fails with Graph's reason; the delivery stays published", async () => {
  const user = ig.addUser({ username: "ig.comment.gone" });
  const account = await connect(user);
  const mediaId = ig.addMedia(user.userId);
  const id = await publishedWithComment(account, mediaId, permalinkOf(mediaId), "Too late");
  ig.media.delete(mediaId); // deleted in the Instagram app before the comment
  assert.equal(await postFirstComment(app.ctx, id), "failed");
  const d = await delivery(id);
  assert.equal(d.status, "published");
  assert.equal(d.first_comment_status, "failed");
  assert.match(d.first_comment_reason, /\(100\).*does not exist, cannot be loaded/);
  assert.equal(d.first_comment_id, null);
});

test("a grant without instagram_business_manage_comments is not asked; the reason names it and /settings/social", async () => {
  const scopes = GRANT.filter((s) => s !== "instagram_business_manage_comments");
  const user = ig.addUser({ username: "ig.comment.noscope", scopes });
  const account = await connect(user, scopes);
  const mediaId = ig.addMedia(user.userId);
  const id = await publishedWithComment(account, mediaId, permalinkOf(mediaId), "Not allowed");
  const hits = server.hits.length;
  assert.equal(await postFirstComment(app.ctx, id), "failed");
  const d = await delivery(id);
  assert.equal(d.status, "published");
  assert.match(
    d.first_comment_reason,
    /connected without the instagram_business_manage_comments permission.*reconnect it on \/settings\/social/,
  );
  assert.equal(
    server.hits.slice(hits).filter((h) => h.path.endsWith("/comments")).length,
    0,
    "Instagram is not asked",
  );
});

test("the fake refuses a comment without the permission with Graph's code 10", async () => {
  const scopes = GRANT.filter((s) => s !== "instagram_business_manage_comments");
  const user = ig.addUser({ username: "ig.fake.noscope", scopes });
  const mediaId = ig.addMedia(user.userId);
  const res = await fetch(`${server.url}/${IG_GRAPH_HOST}/v23.0/${mediaId}/comments?message=hi`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.accessToken}` },
  });
  const body = (await res.json()) as { error: { code: number; type: string; fbtrace_id: string } };
  assert.equal(res.status, 400);
  assert.equal(body.error.code, 10);
  assert.equal(body.error.type, "OAuthException");
  assert.ok(body.error.fbtrace_id);
  assert.equal(ig.comments.filter((c) => c.mediaId === mediaId).length, 0);
});
