/**
 * Facebook's first comment and removal (src/providers/social/facebook/published.ts) against the
 * provider-shaped fake (test/fakes/facebook.ts), checked by the Graph description: the comment is posted as
 * the Page and found again after a lost answer (exactly one comment); a comment on a post that does not exist
 * and a delete of another Page's post are refused with Graph's error (code 100, subcode 33); a Page token
 * without pages_manage_engagement is refused (#200); the Page's own post is deleted.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { facebookAdapter } from "../../../src/providers/social/facebook/adapter.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import {
  type AdapterAccount,
  NetworkAuthError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../../../src/providers/social/network.ts";
import { FB_GRAPH_HOST, FB_SCOPES_GRANTED, type FacebookPage, facebookFake } from "../../fakes/facebook.ts";
import { drive, jobFor } from "../../fakes/jobs.ts";
import { startFakeNetworks } from "../../fakes/server.ts";

const credentials = { clientId: "fb-app-id", clientSecret: "fb-app-secret" };
const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const fb = facebookFake(server, credentials);
const adapter = facebookAdapter(credentials, {
  publicBaseUrl: "http://127.0.0.1",
  sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
  now: () => new Date(),
  http,
});
const ENGAGE = [...FB_SCOPES_GRANTED, "pages_manage_engagement"];

const account = (page: FacebookPage, scopes: string[] = ENGAGE): AdapterAccount => ({
  id: "00000000-0000-4000-8000-000000000001",
  network: "facebook",
  networkAccountId: page.id,
  handle: page.name,
  tokens: { accessToken: page.accessToken, scopes },
  settings: {},
  metadata: {},
});

/** Publishes a text post on `page`; its post id and URL. */
async function published(page: FacebookPage, caption: string) {
  const { result } = await drive(
    adapter.publisher,
    jobFor({
      network: "facebook",
      networkAccountId: page.id,
      tokens: page.accessToken,
      type: "text",
      media: [],
      caption,
    }),
  );
  assert.equal(result.state, "published");
  if (result.state !== "published") throw new Error("not published");
  return { networkPostId: result.networkPostId, postUrl: result.postUrl, networkIds: {}, type: "text" };
}

test("the first comment is posted as the Page; after a lost answer it is found, exactly one comment", async () => {
  const user = fb.addUser({ name: "Ana", pages: ["Ana's Bakery"], scopes: ENGAGE });
  const page = user.pages[0]!;
  const post = await published(page, "Fresh bread today");
  const before = server.counter("facebook.comments");
  server.fault(
    { host: FB_GRAPH_HOST, path: `/${post.networkPostId}/comments`, method: "POST" },
    { kind: "lost" },
  );
  const sentAt = new Date();
  const job = { account: account(page), post, text: "Order at the link in our bio", sentAt };
  await assert.rejects(
    adapter.comments!.create(job),
    (err: unknown) => err instanceof NetworkTransientError && err.afterCreate,
  );
  const found = await adapter.comments!.find(job);
  const made = fb.comments.filter((c) => c.postId === post.networkPostId);
  assert.equal(made.length, 1);
  assert.equal(found?.id, made[0]!.id, "the comment made is the one found");
  assert.equal(made[0]!.fromId, page.id, "as the Page");
  assert.match(found!.url!, /^https:\/\/www\.facebook\.com\/.+\?comment_id=\d+$/);
  assert.equal(server.counter("facebook.comments") - before, 1, "exactly one comment");
  assert.deepEqual(adapter.comments!.scopes, ["pages_manage_engagement"]);
});

test("a comment on a post that does not exist is refused with Graph's error", async () => {
  const user = fb.addUser({ name: "Bo", pages: ["Bo's Shop"], scopes: ENGAGE });
  const page = user.pages[0]!;
  const missing = `${page.id}_1234567890123456`;
  await assert.rejects(
    adapter.comments!.create({
      account: account(page),
      post: { networkPostId: missing, postUrl: null, networkIds: {}, type: "text" },
      text: "Hello",
      sentAt: new Date(),
    }),
    (err: unknown) =>
      err instanceof NetworkRejectedError && /does not exist, cannot be loaded/.test(err.message),
  );
});

test("a Page token without pages_manage_engagement is refused (#200)", async () => {
  const user = fb.addUser({ name: "Cy", pages: ["Cy's Cafe"] });
  const page = user.pages[0]!;
  const post = await published(page, "No engagement permission");
  await assert.rejects(
    adapter.comments!.create({
      account: account(page, FB_SCOPES_GRANTED),
      post,
      text: "Hi",
      sentAt: new Date(),
    }),
    (err: unknown) => err instanceof NetworkAuthError || err instanceof NetworkRejectedError,
  );
  assert.equal(fb.comments.filter((c) => c.postId === post.networkPostId).length, 0);
});

test("removal deletes the Page's own post; another Page's post is refused with Graph's error", async () => {
  const user = fb.addUser({ name: "Di", pages: ["Di's Deli", "Other Page"], scopes: ENGAGE });
  const [mine, other] = user.pages as [FacebookPage, FacebookPage];
  const post = await published(mine, "Delete me");
  const theirs = await published(other, "Not yours");
  await assert.rejects(
    adapter.remover!.remove(account(mine), theirs),
    (err: unknown) =>
      err instanceof NetworkRejectedError && /does not exist, cannot be loaded/.test(err.message),
  );
  assert.ok(fb.posts.has(theirs.networkPostId), "nothing deleted");
  await adapter.remover!.remove(account(mine), post);
  assert.ok(!fb.posts.has(post.networkPostId), "deleted");
});
