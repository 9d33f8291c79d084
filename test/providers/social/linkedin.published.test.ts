/**
 * What the live LinkedIn adapter does with a published post (src/providers/social/linkedin/published.ts),
 * against the provider-shaped fake (test/fakes/linkedin.ts, ./linkedin-published.ts) through the delivery
 * engine: the first comment is posted as the post's author and saved once on the delivery (its comment URN
 * and the post's URL with it); a lost answer is reconciled from the post's comments and ends with exactly
 * one comment, and where LinkedIn does not let the app read a member's comments it fails asking to check
 * instead of commenting twice; a comment on a post LinkedIn no longer has is refused (404) and fails the first
 * comment, not the published delivery; delete_post's removal deletes the post (the delivery becomes
 * `removed`), a post already deleted or unknown counts as removed, another account's post is refused (403).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Owner } from "../../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../../src/domain/social/accounts.ts";
import { postFirstComment, runDueFirstComments } from "../../../src/domain/social/first-comment.ts";
import { removeCopies } from "../../../src/domain/social/removal.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { linkedinAdapter } from "../../../src/providers/social/linkedin/adapter.ts";
import { LINKEDIN_CAPABILITIES } from "../../../src/providers/social/linkedin/oauth.ts";
import { type AdapterAccount, NetworkRejectedError } from "../../../src/providers/social/network.ts";
import {
  LI_API_HOST,
  LI_ORGANIZATION_APP_SCOPES,
  type LinkedInMember,
  linkedinFake,
} from "../../fakes/linkedin.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { publishWithComment as publishWith } from "../../helpers/first-comment.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";

const server = await startFakeNetworks();
const li = linkedinFake(server, { ...FAKE_APPS.linkedin, appScopes: LI_ORGANIZATION_APP_SCOPES });
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({
  clock,
  env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["linkedin"]), LINKEDIN_ORGANIZATIONS: "true" },
});
const alice = await app.user({ workspace: "Alice LinkedIn comments" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;
const COMMENTS = /^\/rest\/socialActions\/[^/]+\/comments$/;

/** Connects `author` (the member's URN or one of their pages) with the member's tokens. */
async function connect(m: LinkedInMember, author: string): Promise<string> {
  const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
    network: "linkedin",
    mode: "live",
    account: {
      networkAccountId: author,
      handle: author,
      capabilities: LINKEDIN_CAPABILITIES,
      metadata: { authorUrn: author, authorType: author.includes(":person:") ? "person" : "organization" },
    },
    tokens: {
      accessToken: m.accessToken,
      refreshToken: m.refreshToken,
      expiresAt: new Date(Date.now() + 50 * 86_400_000),
      scopes: m.scopes,
    },
    now: new Date(),
  });
  return account.social_account_id;
}

const publishWithComment = (accountId: string, caption: string, firstComment: string) =>
  publishWith(app.ctx, owner, accountId, caption, firstComment);

const delivery = (id: string) => db("deliveries").where({ id }).first();
const commentsOn = (urn: string) => li.comments.get(urn) ?? [];

/** The adapter's view of an account posting as `author` with `m`'s token. */
const adapterAccount = (m: LinkedInMember, author: string): AdapterAccount => ({
  id: "00000000-0000-4000-8000-000000000002",
  network: "linkedin",
  networkAccountId: author,
  handle: author,
  tokens: { accessToken: m.accessToken, scopes: m.scopes },
  settings: {},
  metadata: { authorUrn: author },
});

describe("the first comment on LinkedIn", () => {
  test("posted as the page once the post is live; its comment URN and URL are saved on the delivery", async () => {
    const m = li.addMember({ name: "Page Admin", pages: [{ name: "Mug Shop" }] });
    const page = m.organizations[0]!.urn;
    const account = await connect(m, page);
    const before = server.counter("linkedin.comments");
    const { deliveryId } = await publishWithComment(
      account,
      "Launch day",
      "Link: https://example.com/mug (#1)",
    );
    const d = await delivery(deliveryId);
    assert.equal(d.status, "published", d.error ?? "");
    assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
    const made = commentsOn(d.provider_post_id);
    assert.equal(made.length, 1);
    assert.equal(made[0]!.actor, page, "as the page");
    assert.equal(made[0]!.text, "Link: https://example.com/mug (#1)", "sent as it is, not as little text");
    assert.equal(d.first_comment_id, made[0]!.urn);
    const url = new URL(d.first_comment_url);
    assert.equal(`${url.origin}${url.pathname}`, d.post_url, "the post's URL");
    assert.equal(url.searchParams.get("commentUrn"), made[0]!.urn, "with the comment");
    assert.equal(server.counter("linkedin.comments") - before, 1);
    // A later pass posts nothing more.
    clock.advance(60);
    assert.equal(await postFirstComment(app.ctx, deliveryId), undefined);
    assert.equal(server.counter("linkedin.comments") - before, 1);
  });

  test("a lost answer: the next attempt reads the post's comments and adopts it, exactly one comment", async () => {
    const m = li.addMember({ name: "Lost Admin", pages: [{ name: "Lost Shop" }] });
    const account = await connect(m, m.organizations[0]!.urn);
    server.fault({ host: LI_API_HOST, path: COMMENTS, method: "POST" }, { kind: "lost" });
    const { deliveryId } = await publishWithComment(account, "Lost comment", "First comment, once");
    let d = await delivery(deliveryId);
    assert.equal(d.status, "published", "a lost comment does not touch the published delivery");
    assert.equal(d.first_comment_status, "pending");
    assert.ok(d.first_comment_sent_at, "the send is recorded before the comment is created");
    assert.equal(commentsOn(d.provider_post_id).length, 1, "LinkedIn made the comment");
    clock.advance(10);
    await runDueFirstComments(app.ctx);
    d = await delivery(deliveryId);
    assert.equal(d.first_comment_status, "posted", d.first_comment_reason ?? "");
    const made = commentsOn(d.provider_post_id);
    assert.equal(made.length, 1, "exactly one comment at LinkedIn");
    assert.equal(d.first_comment_id, made[0]!.urn, "the comment LinkedIn made is the one recorded");
  });

  test("a lost answer as a member, whose comments LinkedIn does not let the app read: failed asking to check, never a second comment", async () => {
    const m = li.addMember({ name: "Member Only" });
    const account = await connect(m, m.urn);
    server.fault({ host: LI_API_HOST, path: COMMENTS, method: "POST" }, { kind: "lost" });
    const { deliveryId } = await publishWithComment(account, "Member post", "Member comment");
    clock.advance(10);
    await runDueFirstComments(app.ctx);
    const d = await delivery(deliveryId);
    assert.equal(d.status, "published");
    assert.equal(d.first_comment_status, "failed");
    assert.match(d.first_comment_reason, /does not let this app read the post's comments; check the post/);
    assert.equal(commentsOn(d.provider_post_id).length, 1, "one comment, not two");
  });

  test("a comment on a post LinkedIn no longer has is refused (404): the first comment fails, the delivery stays published", async () => {
    const m = li.addMember({ name: "Gone Admin", pages: [{ name: "Gone Shop" }] });
    const account = await connect(m, m.organizations[0]!.urn);
    // The post is deleted on LinkedIn between its publication and the comment: hold the comment back first.
    server.fault(
      { host: LI_API_HOST, path: COMMENTS, method: "POST" },
      { kind: "rate_limit", retryAfterSeconds: 30, body: { status: 429, message: "Too many requests" } },
    );
    const { deliveryId } = await publishWithComment(account, "Deleted before its comment", "Too late");
    let d = await delivery(deliveryId);
    assert.equal(d.first_comment_status, "pending");
    li.deletePost(d.provider_post_id);
    clock.advance(31);
    await runDueFirstComments(app.ctx);
    d = await delivery(deliveryId);
    assert.equal(d.status, "published");
    assert.equal(d.first_comment_status, "failed");
    assert.match(d.first_comment_reason, /LinkedIn refused the request \(NOT_FOUND\): .*does not exist/);
    assert.equal(d.first_comment_id, null);
    assert.equal(commentsOn(d.provider_post_id).length, 0);
  });
});

describe("removal from LinkedIn", () => {
  test("delete_post's removal deletes the post on LinkedIn; the delivery is removed", async () => {
    const m = li.addMember({ name: "Remover", pages: [{ name: "Remove Shop" }] });
    const account = await connect(m, m.organizations[0]!.urn);
    const { postId, deliveryId } = await publishWithComment(account, "Take me down", "and my comment");
    const published = await delivery(deliveryId);
    assert.ok(li.posts.has(published.provider_post_id));
    const results = await removeCopies(app.ctx, owner, postId);
    assert.deepEqual(results, [
      {
        delivery_id: deliveryId,
        network: "linkedin",
        post_url: published.post_url,
        result: "removed",
        reason: null,
      },
    ]);
    assert.ok(!li.posts.has(published.provider_post_id), "deleted at LinkedIn");
    const d = await delivery(deliveryId);
    assert.equal(d.status, "removed");
    assert.ok(d.removed_at);
  });

  test("a post already deleted on LinkedIn, or one it never had, counts as removed", async () => {
    const m = li.addMember({ name: "Late Remover" });
    const account = await connect(m, m.urn);
    const { postId, deliveryId } = await publishWithComment(account, "Deleted by hand", "comment");
    const published = await delivery(deliveryId);
    li.deletePost(published.provider_post_id);
    const [result] = await removeCopies(app.ctx, owner, postId);
    assert.equal(result!.result, "removed", result!.reason ?? "");
    // A URN LinkedIn never had answers 404: nothing is left to remove either.
    const deletes = server.counter("linkedin.deletes");
    const adapter = linkedinAdapter(FAKE_APPS.linkedin, {
      publicBaseUrl: "http://127.0.0.1",
      sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
      now: () => clock.now(),
      http: createSocialHttp(server.url),
    });
    await adapter.remover!.remove(adapterAccount(m, m.urn), {
      networkPostId: "urn:li:share:1000000000000000001",
      postUrl: null,
      networkIds: {},
      type: "text",
    });
    assert.equal(server.counter("linkedin.deletes"), deletes, "nothing deleted");
    assert.equal(server.hitsFor(LI_API_HOST, /^\/rest\/posts\//, "DELETE").at(-1)?.status, 404);
  });

  test("another account's post is refused (403) as a rejection; nothing is deleted and the removal fails", async () => {
    const author = li.addMember({ name: "Author", pages: [{ name: "Author Page" }] });
    const other = li.addMember({ name: "Other", pages: [{ name: "Other Page" }] });
    const mine = await connect(author, author.organizations[0]!.urn);
    const { deliveryId } = await publishWithComment(mine, "Not yours to delete", "comment");
    const theirs = (await delivery(deliveryId)).provider_post_id as string;
    const adapter = linkedinAdapter(FAKE_APPS.linkedin, {
      publicBaseUrl: "http://127.0.0.1",
      sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
      now: () => clock.now(),
      http: createSocialHttp(server.url),
      linkedinOrganizations: true,
    });
    await assert.rejects(
      adapter.remover!.remove(adapterAccount(other, other.organizations[0]!.urn), {
        networkPostId: theirs,
        postUrl: null,
        networkIds: {},
        type: "text",
      }),
      (err: unknown) =>
        err instanceof NetworkRejectedError &&
        /LinkedIn refused the delete \(ACCESS_DENIED\)/.test(err.message),
    );
    assert.ok(li.posts.has(theirs), "nothing deleted");
  });
});
