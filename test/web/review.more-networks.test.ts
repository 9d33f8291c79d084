/**
 * A post goes to more networks (docs/social.md "More networks for one post"): an approved carousel is
 * published to Instagram, then to LinkedIn (sandbox accounts, publish_post's describe and approved execute),
 * then picked on /review for a live TikTok account (the TikTok fake) and published there: exactly one post
 * per network. A destination that already has the post (published, scheduled or on its way) is refused with
 * validation_failed naming the account; /review lists the post for TikTok accounts that do not have it, and
 * no longer once it is there.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { handler as publishHandler } from "../../src/tools/social/publish_post.ts";
import { handler as scheduleHandler } from "../../src/tools/social/schedule_post.ts";
import { Jar, login } from "../oauth/support.ts";
import { waitFor } from "../operations/helpers.ts";
import { account, key, named, reviewed, toolContext, toolError } from "../tools/carousels/fixtures.ts";
import { reviewWorld } from "./review-fixtures.ts";

const publish = named("publish_post", publishHandler);
const schedule = named("schedule_post", scheduleHandler);
const w = await reviewWorld();
const { app, tt } = w;
const alice = await app.user({ workspace: "Alice Studio" });
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const me = alice;
const tiktok = await w.connectCreator(
  owner,
  tt.addCreator({ username: "alice.mugs", nickname: "Alice Mugs" }),
);
const instagram = await account(app, me, "instagram", "Alice Insta");
const linkedin = await account(app, me, "linkedin", "Alice LinkedIn");

async function signedIn() {
  const jar = new Jar(app.url);
  assert.equal((await login(jar, alice.email, alice.password)).status, 303);
  return jar;
}

/** The post ids /review offers for the TikTok account `accountId`. */
async function offeredFor(jar: Jar, accountId: string): Promise<string[]> {
  const $ = cheerio.load(await (await jar.fetch("/review")).text());
  return $(`section[data-account="${accountId}"] a`)
    .map((_, a) => new URL($(a).attr("href")!, app.url).pathname.split("/").at(-1)!)
    .get();
}

/** Posts the review form of `postId` for the TikTok account with public privacy and consent. */
const consent = (jar: Jar, postId: string, fields: Record<string, string>) =>
  jar.fetch(`/review/posts/${postId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      workspace_id: alice.workspace_id,
      account_id: tiktok,
      title: "Three mugs",
      privacy_level: "PUBLIC_TO_EVERYONE",
      consent: "on",
      ...fields,
    }).toString(),
    redirect: "manual",
  });

test("Instagram, then LinkedIn, then TikTok through /review: one post per network, no second post anywhere", async () => {
  const postId = await w.carouselPost(owner, "Three mugs for slow mornings");
  const jar = await signedIn();
  assert.ok((await offeredFor(jar, tiktok)).includes(postId), "approved: offered for TikTok");

  const first = await reviewed(app, me, publish, {
    post_id: postId,
    social_account_ids: [instagram],
    idempotency_key: key(),
  });
  assert.equal(first.result.data.deliveries[0]!.status, "published");
  assert.equal((await app.ctx.db("posts").where({ id: postId }).first()).status, "published");

  // Already published on Instagram: refused, naming the account, at the call and for a schedule too.
  for (const refused of [
    () =>
      publish.describe!(
        { post_id: postId, social_account_ids: [linkedin, instagram], idempotency_key: key() },
        toolContext(app, me),
      ),
    () =>
      schedule.describe!(
        {
          post_id: postId,
          social_account_ids: [instagram],
          scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
          idempotency_key: key(),
        },
        toolContext(app, me),
      ),
  ]) {
    const err = await toolError(refused());
    assert.equal(err.code, "validation_failed");
    assert.match(
      err.message,
      /"Alice Insta" \(instagram, social_account_id [0-9a-f-]{36}\): already published there/,
    );
    assert.doesNotMatch(err.message, /Alice LinkedIn/);
  }

  // A post published elsewhere goes on to LinkedIn.
  const second = await reviewed(app, me, publish, {
    post_id: postId,
    social_account_ids: [linkedin],
    idempotency_key: key(),
  });
  assert.equal(second.result.data.deliveries[0]!.status, "published");

  // /review offers it for TikTok as published elsewhere; the owner picks it and consents.
  const $ = cheerio.load(await (await jar.fetch("/review")).text());
  const item = $(`section[data-account="${tiktok}"] li`).filter((_, li) =>
    ($(li).find("a").attr("href") ?? "").startsWith(`/review/posts/${postId}?`),
  );
  assert.equal(item.length, 1);
  assert.match(item.text(), /published on Instagram, LinkedIn/);
  const form = await (await jar.fetch(item.find("a").attr("href")!)).text();
  const $form = cheerio.load(form);
  const csrf = $form("#review-form input[name=csrf_token]").attr("value")!;
  const shown = $form("#review-form input[name=content_fingerprint]").attr("value")!;
  const res = await consent(jar, postId, {
    csrf_token: csrf,
    content_fingerprint: shown,
    description: "Slow mornings",
  });
  assert.equal(res.status, 303, res.status === 303 ? "" : await res.text());
  const deliveryId = new URL(res.headers.get("location")!, app.url).pathname.split("/").at(-1)!;
  const row = await waitFor(
    () => app.ctx.db("deliveries").where({ id: deliveryId }).first(),
    (d) => d.status === "published" || d.status === "failed",
    30_000,
  );
  assert.equal(row.status, "published", row.error ?? "");
  assert.match(row.content_fingerprint, /^[0-9a-f]{64}$/, "the consent binds the content");

  const published = await app.ctx
    .db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .where({ "d.post_id": postId, "d.status": "published" })
    .select("a.network");
  assert.deepEqual(published.map((r: { network: string }) => r.network).sort(), [
    "instagram",
    "linkedin",
    "tiktok",
  ]);
  assert.equal(
    [...tt.publishes.values()].filter((p) => p.postInfo.title === "Three mugs").length,
    1,
    "one TikTok post",
  );
  assert.ok(!(await offeredFor(jar, tiktok)).includes(postId), "no longer offered for that TikTok account");

  // A second consent for the same account is refused: the post is already there.
  const again = await consent(jar, postId, { csrf_token: csrf, content_fingerprint: shown });
  assert.equal(again.status, 400);
  assert.match(await again.text(), /already published there/);
  assert.equal(
    (await app.ctx.db("deliveries").where({ post_id: postId, social_account_id: tiktok })).length,
    1,
  );
});
