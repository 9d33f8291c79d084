/**
 * YouTube's first comment and removal (src/providers/social/youtube/published.ts) against the
 * provider-shaped fake (test/fakes/youtube.ts), checked by the Discovery description (and the hand-written
 * commentThreads.list), through the service's first-comment step and delete_post's removal
 * (src/domain/social/first-comment.ts, removal.ts): connect asks for youtube.force-ssl without requiring it;
 * the comment thread is posted and its id saved once, its URL the video's with `lc`; a lost answer is found
 * among the video's threads (exactly one comment); a comment on a video YouTube does not have fails the first
 * comment with YouTube's reason while the delivery stays published; an account connected without
 * force-ssl (upload and readonly only, which still upload: test/providers/social/youtube.test.ts) is not
 * asked, and its first comment and removal say which permission to reconnect with; videos.delete removes the
 * channel's video, counts a video already gone as removed, and another channel's video is refused (403).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Owner } from "../../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { postFirstComment, runDueFirstComments } from "../../../src/domain/social/first-comment.ts";
import { removeCopies } from "../../../src/domain/social/removal.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  type AdapterAccount,
  NetworkAuthError,
  NetworkRejectedError,
} from "../../../src/providers/social/network.ts";
import { youtubeAdapter } from "../../../src/providers/social/youtube/adapter.ts";
import { YOUTUBE_CAPABILITIES } from "../../../src/providers/social/youtube/table.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import {
  GOOGLE_APIS_HOST,
  type GoogleUser,
  SCOPE_FORCE_SSL,
  SCOPE_READONLY,
  SCOPE_UPLOAD,
  youtubeFake,
} from "../../fakes/youtube.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";

const BEFORE = [SCOPE_UPLOAD, SCOPE_READONLY];
const GRANT = [...BEFORE, SCOPE_FORCE_SSL];

const server = await startFakeNetworks();
const yt = youtubeFake(server, FAKE_APPS.youtube);
const clock = new TestClock({ skipWaits: true });
yt.now = () => clock.now().getTime(); // Google's clock agrees with the service's
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["youtube"]) } });
const alice = await app.user({ workspace: "Alice YouTube comments" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;
const adapter = youtubeAdapter(FAKE_APPS.youtube, {
  publicBaseUrl: "http://127.0.0.1",
  sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
  now: () => clock.now(),
  http: createSocialHttp(server.url),
});

/** A Google user with a channel whose token carries `scopes`. */
const channelUser = (scopes = GRANT) => yt.addUser({ title: "Channel", scopes });

/** Connects `user` with `scopes` as its known grant; the account id. */
async function connect(user: GoogleUser, scopes = GRANT): Promise<string> {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "youtube",
    mode: "live",
    account: {
      networkAccountId: user.channel!.id,
      handle: user.channel!.customUrl,
      capabilities: YOUTUBE_CAPABILITIES,
    },
    tokens: { accessToken: user.accessToken, scopes },
    now: clock.now(),
  });
  return account.social_account_id;
}

/** A published delivery of video `videoId` to `accountId`, its first comment `text` waiting (if given). */
async function published(accountId: string, videoId: string, text?: string) {
  const [post] = await db("posts")
    .insert({
      ...{ user_id: owner.userId, workspace_id: owner.workspaceId },
      type: "video",
      status: "published",
    })
    .returning("id");
  const [row] = await db("deliveries")
    .insert({
      ...{ user_id: owner.userId, workspace_id: owner.workspaceId },
      post_id: post.id,
      social_account_id: accountId,
      status: "published",
      provider_post_id: videoId,
      post_url: `https://www.youtube.com/watch?v=${videoId}`,
      published_at: clock.now(),
      first_comment: text ?? null,
      first_comment_status: text ? "pending" : null,
    })
    .returning("id");
  return { postId: post.id as string, deliveryId: row.id as string };
}

const delivery = (id: string) => db("deliveries").where({ id }).first();
const videoOf = (user: GoogleUser) =>
  yt.addVideo(user.channel!.id, { viewCount: 0, likeCount: 0, commentCount: 0 });
const commentsOn = (videoId: string) => yt.comments.filter((c) => c.videoId === videoId);

const asAdapterAccount = (user: GoogleUser, scopes = GRANT): AdapterAccount => ({
  id: "00000000-0000-4000-8000-000000000002",
  network: "youtube",
  networkAccountId: user.channel!.id,
  handle: user.channel!.customUrl,
  tokens: { accessToken: user.accessToken, scopes },
  settings: {},
  metadata: {},
});

test("connect asks for youtube.force-ssl besides upload and readonly; only those two are required", () => {
  const url = new URL(adapter.oauth.authorizeUrl({ state: "s", redirectUri: "https://app.example.test/cb" }));
  assert.deepEqual(url.searchParams.get("scope")!.split(" "), GRANT);
  assert.deepEqual([...adapter.oauth.requiredScopes], BEFORE);
  assert.deepEqual(adapter.comments!.scopes, [SCOPE_FORCE_SSL]);
  assert.deepEqual(adapter.remover!.scopes, [SCOPE_FORCE_SSL]);
});

test("the first comment is posted as the channel once; its id is saved, its URL the video's with lc", async () => {
  const user = channelUser();
  const account = await connect(user);
  const videoId = videoOf(user);
  const { deliveryId } = await published(account, videoId, "Chapters and links in the description");
  const before = server.counter("youtube.comments");
  assert.equal(await postFirstComment(app.ctx, deliveryId), "posted");
  const d = await delivery(deliveryId);
  assert.equal(d.status, "published");
  assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
  const made = commentsOn(videoId);
  assert.equal(made.length, 1);
  assert.equal(made[0]!.channelId, user.channel!.id, "as the channel");
  assert.equal(made[0]!.text, "Chapters and links in the description");
  assert.equal(d.first_comment_id, made[0]!.id);
  assert.equal(d.first_comment_url, `https://www.youtube.com/watch?v=${videoId}&lc=${made[0]!.id}`);
  clock.advance(60);
  assert.equal(await postFirstComment(app.ctx, deliveryId), undefined, "posted: nothing more to do");
  assert.equal(server.counter("youtube.comments") - before, 1);
});

test("a lost answer: the next attempt finds the thread among the video's, exactly one comment", async () => {
  const user = channelUser();
  const account = await connect(user);
  const videoId = videoOf(user);
  // Another viewer's comment with the same words is not ours.
  const viewer = channelUser();
  await adapter.comments!.create({
    account: asAdapterAccount(viewer),
    post: { networkPostId: videoId, postUrl: null, networkIds: {}, type: "video" },
    text: "Once only",
    sentAt: clock.now(),
  });
  const { deliveryId } = await published(account, videoId, "Once only");
  server.fault(
    { host: GOOGLE_APIS_HOST, path: "/youtube/v3/commentThreads", method: "POST" },
    { kind: "lost" },
  );
  assert.equal(await postFirstComment(app.ctx, deliveryId), "pending");
  let d = await delivery(deliveryId);
  assert.ok(d.first_comment_sent_at, "the send is recorded before the comment is created");
  const mine = () => commentsOn(videoId).filter((c) => c.channelId === user.channel!.id);
  assert.equal(mine().length, 1, "YouTube made the comment");
  clock.advance(10);
  await runDueFirstComments(app.ctx);
  d = await delivery(deliveryId);
  assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
  assert.equal(mine().length, 1, "exactly one comment by the channel");
  assert.equal(d.first_comment_id, mine()[0]!.id, "the comment made is the one recorded");
});

test("a comment on a video YouTube does not have fails with videoNotFound; the delivery stays published", async () => {
  const user = channelUser();
  const account = await connect(user);
  const { deliveryId } = await published(account, "dQw4w9WgXcQ", "Too late");
  assert.equal(await postFirstComment(app.ctx, deliveryId), "failed");
  const d = await delivery(deliveryId);
  assert.equal(d.status, "published");
  assert.equal(d.first_comment_status, "failed");
  assert.match(d.first_comment_reason, /\(videoNotFound\).*could not be found/);
  assert.equal(d.first_comment_id, null);
});

test("an account connected without youtube.force-ssl: its first comment fails naming it, YouTube not asked", async () => {
  const user = channelUser(BEFORE);
  const account = await connect(user, BEFORE);
  const videoId = videoOf(user);
  const { deliveryId } = await published(account, videoId, "Not allowed");
  const hits = server.hits.length;
  assert.equal(await postFirstComment(app.ctx, deliveryId), "failed");
  const d = await delivery(deliveryId);
  assert.equal(d.status, "published");
  assert.equal(
    d.first_comment_reason,
    `the YouTube account @${user.channel!.customUrl} was connected without the ${SCOPE_FORCE_SSL} permission, which commenting needs; reconnect it on /settings/social`,
  );
  assert.equal(server.hits.slice(hits).length, 0, "YouTube is not asked");
  assert.equal(commentsOn(videoId).length, 0);
});

test("the fake refuses a comment and a delete without force-ssl: 403 insufficientPermissions", async () => {
  const user = channelUser(BEFORE);
  const videoId = videoOf(user);
  const post = { networkPostId: videoId, postUrl: null, networkIds: {}, type: "video" };
  // The account's grant is unknown here (scopes []), so the adapter asks and YouTube refuses.
  const account = asAdapterAccount(user, []);
  await assert.rejects(
    adapter.comments!.create({ account, post, text: "hi", sentAt: clock.now() }),
    (err: unknown) => err instanceof NetworkAuthError && /insufficientPermissions/.test(err.message),
  );
  await assert.rejects(
    adapter.remover!.remove(account, post),
    (err: unknown) => err instanceof NetworkAuthError && /insufficientPermissions/.test(err.message),
  );
  assert.equal(commentsOn(videoId).length, 0);
  assert.equal(yt.videos.get(videoId)!.uploadStatus, "processed", "nothing deleted");
});

test("removal deletes the channel's video (the delivery is removed); a video already gone counts as removed", async () => {
  const user = channelUser();
  const account = await connect(user);
  const videoId = videoOf(user);
  const { postId, deliveryId } = await published(account, videoId);
  const before = server.counter("youtube.deletes");
  assert.deepEqual(await removeCopies(app.ctx, owner, postId), [
    {
      delivery_id: deliveryId,
      network: "youtube",
      post_url: `https://www.youtube.com/watch?v=${videoId}`,
      result: "removed",
      reason: null,
    },
  ]);
  assert.equal(yt.videos.get(videoId)!.uploadStatus, "deleted");
  assert.equal(server.counter("youtube.deletes") - before, 1);
  const d = await delivery(deliveryId);
  assert.equal(d.status, "removed");
  assert.ok(d.removed_at);
  // Deleted in YouTube Studio by hand before the removal: YouTube answers 404 videoNotFound.
  const gone = videoOf(user);
  yt.videos.get(gone)!.uploadStatus = "deleted";
  const second = await published(account, gone);
  const [r] = await removeCopies(app.ctx, owner, second.postId);
  assert.equal(r!.result, "removed", r!.reason ?? "");
  assert.equal((await delivery(second.deliveryId)).status, "removed");
});

test("removal of another channel's video is refused (403 forbidden); the copy stays published", async () => {
  const other = channelUser();
  const user = channelUser();
  const theirs = videoOf(other);
  await assert.rejects(
    adapter.remover!.remove(asAdapterAccount(user), {
      networkPostId: theirs,
      postUrl: null,
      networkIds: {},
      type: "video",
    }),
    (err: unknown) =>
      err instanceof NetworkRejectedError && /\(forbidden\).*cannot be deleted/.test(err.message),
  );
  assert.equal(yt.videos.get(theirs)!.uploadStatus, "processed", "nothing deleted");
  // Through delete_post's removal: the copy fails with YouTube's reason and stays published.
  const account = await connect(user);
  const { postId, deliveryId } = await published(account, theirs);
  const [r] = await removeCopies(app.ctx, owner, postId);
  assert.equal(r!.result, "failed");
  assert.match(r!.reason!, /\(forbidden\).*; the post stays live$/);
  assert.equal((await delivery(deliveryId)).status, "published");
});

test("an account connected without youtube.force-ssl: its removal fails naming it, YouTube not asked", async () => {
  const user = channelUser(BEFORE);
  const account = await connect(user, BEFORE);
  const videoId = videoOf(user);
  const { postId, deliveryId } = await published(account, videoId);
  const hits = server.hits.length;
  const [r] = await removeCopies(app.ctx, owner, postId);
  assert.equal(r!.result, "failed");
  assert.match(
    r!.reason!,
    /connected without the https:\/\/www\.googleapis\.com\/auth\/youtube\.force-ssl permission, which deleting needs; reconnect it on \/settings\/social; the post stays live/,
  );
  assert.equal(server.hits.slice(hits).length, 0, "YouTube is not asked");
  assert.equal(yt.videos.get(videoId)!.uploadStatus, "processed");
  assert.equal((await delivery(deliveryId)).status, "published");
});
