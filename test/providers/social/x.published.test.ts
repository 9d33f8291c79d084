/**
 * What the live X adapter does with a published post, against the provider-shaped fake (test/fakes/x.ts)
 * through the delivery engine: the first comment is a reply saved once on the delivery (id and URL); a lost
 * answer to the reply is reconciled from the author's timeline and ends with exactly one reply; a reply to a
 * post X does not have is refused (X's 403) and fails the first comment, not the published delivery;
 * delete_post's removal deletes the post (the delivery becomes `removed`, the analytics sync skips it), and
 * the fake refuses to delete another account's post.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deliveryRows } from "../../../src/domain/analytics/sync-account.ts";
import type { Owner } from "../../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { postFirstComment, runDueFirstComments } from "../../../src/domain/social/first-comment.ts";
import { removeCopies } from "../../../src/domain/social/removal.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { NetworkRejectedError } from "../../../src/providers/social/network.ts";
import { xRemover } from "../../../src/providers/social/x/published.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { connectedXAccount, X_API_HOST, type XUser, xFake } from "../../fakes/x.ts";
import { publishWithComment as publishWith } from "../../helpers/first-comment.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";

const server = await startFakeNetworks();
const x = xFake(server, FAKE_APPS.x);
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["x"]) } });
const alice = await app.user({ workspace: "Alice X comments" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;

const connect = async (user: XUser): Promise<string> => {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, connectedXAccount(user));
  return account.social_account_id;
};

const publishWithComment = (accountId: string, caption: string, firstComment: string) =>
  publishWith(app.ctx, owner, accountId, caption, firstComment);

const delivery = (id: string) => db("deliveries").where({ id }).first();

describe("the first comment on X", () => {
  test("posted as a reply once the post is live; its id and URL are saved on the delivery", async () => {
    const user = x.addUser({ username: "reply_ok" });
    const account = await connect(user);
    const before = x.replies;
    const { deliveryId } = await publishWithComment(
      account,
      "Launch day",
      "Link in bio: https://example.com/mug",
    );
    const d = await delivery(deliveryId);
    assert.equal(d.status, "published", d.error ?? "");
    assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
    const reply = x.tweets.get(d.first_comment_id)!;
    assert.equal(reply.inReplyTo, d.provider_post_id, "a reply to the published post");
    assert.equal(reply.authorId, user.id);
    assert.equal(reply.sent, "Link in bio: https://example.com/mug");
    assert.equal(d.first_comment_url, `https://x.com/reply_ok/status/${reply.id}`);
    assert.equal(x.replies - before, 1);
  });

  test("a lost answer to the reply: the next attempt reads the timeline and adopts it, exactly one reply", async () => {
    const user = x.addUser({ username: "reply_lost" });
    const account = await connect(user);
    const before = { replies: x.replies, posts: x.created };
    // The first POST /2/tweets (the post itself) goes through; the second (the reply) is done but its
    // answer is lost.
    server.fault({ host: X_API_HOST, path: "/2/tweets", method: "POST" }, { kind: "slow", delayMs: 0 });
    server.fault({ host: X_API_HOST, path: "/2/tweets", method: "POST" }, { kind: "lost" });
    const { deliveryId } = await publishWithComment(account, "Lost reply", "First comment, once");
    let d = await delivery(deliveryId);
    assert.equal(d.status, "published", "a lost comment does not touch the published delivery");
    assert.equal(d.first_comment_status, "pending");
    assert.ok(d.first_comment_sent_at, "the send is recorded before the reply is created");
    assert.equal(x.replies - before.replies, 1, "X made the reply");
    clock.advance(10);
    await runDueFirstComments(app.ctx);
    d = await delivery(deliveryId);
    assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
    const reply = x.postsOf(user.id).find((t) => t.inReplyTo === d.provider_post_id)!;
    assert.equal(d.first_comment_id, reply.id, "the reply X made is the one recorded");
    assert.equal(x.replies - before.replies, 1, "exactly one reply at X");
    assert.equal(x.created - before.posts, 1, "one post");
    // A later pass does nothing more.
    clock.advance(60);
    assert.equal(await postFirstComment(app.ctx, deliveryId), undefined);
    assert.equal(x.replies - before.replies, 1);
  });

  test("a reply to a post X does not have is refused: the first comment fails with X's reason, the delivery stays published", async () => {
    const user = x.addUser({ username: "reply_gone" });
    const account = await connect(user);
    // The post is deleted on X between its publication and the comment: hold the comment back first.
    server.fault(
      { host: X_API_HOST, path: "/2/tweets", method: "POST", times: 1 },
      { kind: "slow", delayMs: 0 },
    );
    server.fault(
      { host: X_API_HOST, path: "/2/tweets", method: "POST", times: 1 },
      { kind: "rate_limit", retryAfterSeconds: 30 },
    );
    const { deliveryId } = await publishWithComment(account, "Deleted before its comment", "Too late");
    let d = await delivery(deliveryId);
    assert.equal(d.first_comment_status, "pending");
    x.tweets.delete(d.provider_post_id);
    clock.advance(31);
    await runDueFirstComments(app.ctx);
    d = await delivery(deliveryId);
    assert.equal(d.status, "published");
    assert.equal(d.first_comment_status, "failed");
    assert.match(d.first_comment_reason, /reply to a Tweet that is deleted or not visible/);
    assert.equal(d.first_comment_id, null);
  });
});

describe("removal from X", () => {
  test("delete_post's removal deletes the post on X; the delivery is removed and the sync skips it", async () => {
    const user = x.addUser({ username: "remove_me" });
    const account = await connect(user);
    const { postId, deliveryId } = await publishWithComment(account, "Take me down", "and my comment");
    const published = await delivery(deliveryId);
    assert.ok(x.tweets.has(published.provider_post_id));
    assert.ok((await deliveryRows(app.ctx, account, clock.now())).some((r) => r.delivery_id === deliveryId));
    const results = await removeCopies(app.ctx, owner, postId);
    assert.deepEqual(results, [
      {
        delivery_id: deliveryId,
        network: "x",
        post_url: published.post_url,
        result: "removed",
        reason: null,
      },
    ]);
    assert.ok(!x.tweets.has(published.provider_post_id), "deleted at X");
    const d = await delivery(deliveryId);
    assert.equal(d.status, "removed");
    assert.ok(d.removed_at);
    // The analytics sync no longer reads it (the post itself is not deleted in the service here).
    const read = async () => (await deliveryRows(app.ctx, account, clock.now())).map((r) => r.delivery_id);
    assert.ok(!(await read()).includes(deliveryId));
  });

  test("the fake refuses to delete another account's post with X's 403; the removal reports it failed", async () => {
    const owner1 = x.addUser({ username: "author_one" });
    const other = x.addUser({ username: "author_two" });
    const theirs = x.addTweet(owner1.id);
    const remover = xRemover(createSocialHttp(server.url), () => clock.now());
    const account = { ...connectedXAccountAsAdapter(other) };
    await assert.rejects(
      remover.remove(account, { networkPostId: theirs, postUrl: null, networkIds: {}, type: "text" }),
      (err: unknown) =>
        err instanceof NetworkRejectedError && /not allowed to delete this Tweet/.test(err.message),
    );
    assert.ok(x.tweets.has(theirs), "nothing deleted");
  });
});

/** The adapter's view of an X user's account (tokens opened). */
function connectedXAccountAsAdapter(user: XUser) {
  return {
    id: "00000000-0000-4000-8000-000000000000",
    network: "x" as const,
    networkAccountId: user.id,
    handle: user.username,
    tokens: { accessToken: user.accessToken, scopes: [] },
    settings: {},
    metadata: { username: user.username },
  };
}
