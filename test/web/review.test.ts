/**
 * The TikTok review UI over HTTP without JavaScript (service spec 1.11; networks.md 2.1 "Required UX"): the
 * queue, the form's defaults from a fresh creator_info, server-side refusals (no privacy, branded + private,
 * no consent, a Duet the creator turned off, no CSRF), "cannot post now", a video over the creator's limit,
 * and a valid Publish: consent recorded (user, time, IP, options), the delivery created with exactly those
 * options and published through the TikTok fake.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { Jar, login } from "../oauth/support.ts";
import { reviewWorld } from "./review-fixtures.ts";

const w = await reviewWorld();
const { app, tt } = w;
const alice = await app.user({ workspace: "Alice Studio" });
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const creator = tt.addCreator({ username: "alice.mugs", nickname: "Alice Mugs", duetDisabled: true });
const accountId = await w.connectCreator(owner, creator);

async function signedIn() {
  const jar = new Jar(app.url);
  assert.equal((await login(jar, alice.email, alice.password)).status, 303);
  return jar;
}

const base = (form: { csrf_token: string; content_fingerprint: string }, extra: Record<string, string>) => ({
  ...form,
  workspace_id: alice.workspace_id,
  account_id: accountId,
  title: "Caption from review",
  ...extra,
});

/**
 * The hidden fields of the review form (the page's first form is the account picker): the CSRF token and
 * the content fingerprint of what the page showed.
 */
const formOf = (html: string) => {
  const $ = cheerio.load(html);
  return {
    csrf_token: $("#review-form input[name=csrf_token]").attr("value")!,
    content_fingerprint: $("#review-form input[name=content_fingerprint]").attr("value")!,
  };
};

async function post(jar: Jar, postId: string, fields: Record<string, string>) {
  return jar.fetch(`/review/posts/${postId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

test("the queue lists waiting deliveries and approved posts", async () => {
  const waiting = await w.waitingDelivery(owner, accountId, "From the automation");
  const approved = await w.videoPost(owner, "Approved one");
  const jar = await signedIn();
  const $ = cheerio.load(await (await jar.fetch("/review")).text());
  const links = $("a")
    .map((_, a) => $(a).attr("href"))
    .get();
  assert.ok(
    links.some((l) => l.startsWith(`/review/posts/${waiting.postId}?delivery_id=${waiting.deliveryId}`)),
  );
  assert.ok(links.some((l) => l.startsWith(`/review/posts/${approved}?`)));
});

test("the form: nickname, preview, no privacy chosen, every toggle off, creator-disabled Duet, declaration", async () => {
  const postId = await w.videoPost(owner, "Form defaults");
  const jar = await signedIn();
  const res = await jar.fetch(`/review/posts/${postId}?workspace_id=${alice.workspace_id}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
  const $ = cheerio.load(await res.text());
  assert.equal($("#creator-nickname").text(), "Alice Mugs");
  assert.equal($("#preview video").length, 1);
  assert.deepEqual(
    $("input[name=privacy_level]")
      .map((_, e) => $(e).attr("value"))
      .get(),
    ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
  );
  assert.equal($("input[name=privacy_level][checked]").length, 0, "no default privacy");
  for (const name of [
    "allow_comment",
    "allow_duet",
    "allow_stitch",
    "disclose",
    "your_brand",
    "branded_content",
    "consent",
  ]) {
    assert.equal($(`input[name=${name}]`).attr("checked"), undefined, `${name} off by default`);
  }
  assert.notEqual($("input[name=allow_duet]").attr("disabled"), undefined, "Duet turned off by the creator");
  assert.equal($("input[name=allow_comment]").attr("disabled"), undefined);
  assert.match($("#declaration-plain").text(), /By posting, you agree to TikTok's Music Usage Confirmation/);
  assert.match($("#declaration-branded").text(), /Branded Content Policy/);
});

test("server-side refusals change nothing: no privacy, branded + Only me, no consent, Duet, missing CSRF", async () => {
  const postId = await w.videoPost(owner, "Refusals");
  const jar = await signedIn();
  const csrf = formOf(await (await jar.fetch(`/review/posts/${postId}`)).text());
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ consent: "on" }, /Choose who can view this post/],
    [
      { consent: "on", privacy_level: "SELF_ONLY", disclose: "on", branded_content: "on" },
      /Branded content visibility cannot be set to private\./,
    ],
    [{ privacy_level: "PUBLIC_TO_EVERYONE" }, /Confirm that you agree/],
    [{ privacy_level: "PUBLIC_TO_EVERYONE", consent: "on", disclose: "on" }, /Your brand.*Branded content/],
    [{ privacy_level: "PUBLIC_TO_EVERYONE", consent: "on", allow_duet: "on" }, /turned Duet off/],
  ];
  for (const [fields, message] of cases) {
    const res = await post(jar, postId, base(csrf, fields));
    assert.equal(res.status, 400);
    assert.match(await res.text(), message);
  }
  const forged = await post(jar, postId, {
    ...base({ ...csrf, csrf_token: "forged" }, { privacy_level: "PUBLIC_TO_EVERYONE", consent: "on" }),
  });
  assert.equal(forged.status, 403);
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
  assert.equal((await app.ctx.db("tiktok_consents").where({ post_id: postId })).length, 0);
});

test("cannot post now: the page says so and offers no Publish; a video over the limit is refused", async () => {
  const limited = tt.addCreator({
    username: "limited",
    nickname: "Limited",
    cannotPost: "spam_risk_too_many_posts",
  });
  const limitedId = await w.connectCreator(owner, limited);
  const postId = await w.videoPost(owner, "Cannot post");
  const jar = await signedIn();
  const $ = cheerio.load(await (await jar.fetch(`/review/posts/${postId}?account_id=${limitedId}`)).text());
  assert.match($("#cannot-post").text(), /daily posting limit/);
  assert.equal($("#publish").length, 0);
  const short = tt.addCreator({ username: "short", nickname: "Short", maxVideoPostDurationSec: 3 });
  const shortId = await w.connectCreator(owner, short);
  const longPost = await w.videoPost(owner, "Too long");
  const $2 = cheerio.load(await (await jar.fetch(`/review/posts/${longPost}?account_id=${shortId}`)).text());
  assert.match($2("#too-long").text(), /4 s long; this account can post videos up to 3 s/);
  assert.equal($2("#publish").length, 0);
});

test("Publish: consent recorded, the waiting delivery queued with exactly the options, published via TikTok", async () => {
  const { postId, deliveryId } = await w.waitingDelivery(owner, accountId, "From automation");
  const jar = await signedIn();
  const page = await (await jar.fetch(`/review/posts/${postId}?delivery_id=${deliveryId}`)).text();
  const csrf = formOf(page);
  const res = await post(jar, postId, {
    ...base(csrf, {
      delivery_id: deliveryId,
      privacy_level: "MUTUAL_FOLLOW_FRIENDS",
      allow_comment: "on",
      disclose: "on",
      your_brand: "on",
      consent: "on",
    }),
  });
  assert.equal(
    res.status,
    303,
    res.status === 303
      ? ""
      : cheerio
          .load(await res.text())(".error")
          .text(),
  );
  assert.equal(new URL(res.headers.get("location")!, app.url).pathname, `/review/deliveries/${deliveryId}`);
  const options = {
    privacy_level: "MUTUAL_FOLLOW_FRIENDS",
    disable_comment: false,
    disable_duet: true,
    disable_stitch: true,
    brand_content_toggle: false,
    brand_organic_toggle: true,
    title: "Caption from review",
  };
  const consent = await app.ctx.db("tiktok_consents").where({ delivery_id: deliveryId }).first();
  assert.equal(consent.user_id, alice.user_id);
  assert.equal(consent.social_account_id, accountId);
  assert.match(consent.ip, /127\.0\.0\.1/);
  assert.deepEqual(consent.options, options);
  assert.equal(consent.declaration, "By posting, you agree to TikTok's Music Usage Confirmation.");
  assert.ok(Date.now() - new Date(consent.consented_at).getTime() < 60_000);
  const delivery = await app.ctx.db("deliveries").where({ id: deliveryId }).first();
  assert.deepEqual(delivery.options, options);
  // The status page follows the delivery until TikTok says PUBLISH_COMPLETE with the public id.
  let state = "";
  let html = "";
  for (let i = 0; i < 60 && state !== "published" && state !== "failed"; i++) {
    html = await (await jar.fetch(res.headers.get("location")!)).text();
    state = cheerio.load(html)("#delivery-state").attr("data-state") ?? "";
    if (state !== "published") await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(state, "published", html);
  assert.match(html, /Processing can take a few minutes/);
  const publish = [...tt.publishes.values()].at(-1)!;
  assert.equal(publish.postInfo.privacy_level, "MUTUAL_FOLLOW_FRIENDS");
  assert.equal(publish.postInfo.brand_organic_toggle, true);
  assert.equal(publish.postInfo.disable_comment, false);
  assert.match(
    cheerio.load(html)("#post-url").attr("href") ?? "",
    /^https:\/\/www\.tiktok\.com\/@alice\.mugs\/video\/\d{19}$/,
  );
});

test("an approved carousel picked on /review: a photo post by PULL_FROM_URL of the signed JPEG URLs", async () => {
  const postId = await w.carouselPost(owner, "Three slides");
  const jar = await signedIn();
  const html = await (await jar.fetch(`/review/posts/${postId}`)).text();
  const $ = cheerio.load(html);
  assert.equal($("#preview img").length, 3);
  assert.equal($("input[name=allow_duet]").length, 0, "photo posts show only Comment");
  assert.equal($("input[name=allow_stitch]").length, 0);
  assert.equal($("textarea[name=description]").length, 1);
  const res = await post(jar, postId, {
    ...base(formOf(html), {
      privacy_level: "PUBLIC_TO_EVERYONE",
      consent: "on",
      description: "More words",
    }),
    title: "Three slides",
  });
  assert.equal(
    res.status,
    303,
    res.status === 303
      ? ""
      : cheerio
          .load(await res.text())(".error")
          .text(),
  );
  const deliveryId = new URL(res.headers.get("location")!, app.url).pathname.split("/").at(-1)!;
  let row: any;
  for (let i = 0; i < 60; i++) {
    row = await app.ctx.db("deliveries").where({ id: deliveryId }).first();
    if (row.status === "published" || row.status === "failed") break;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(row.status, "published", row.error ?? "");
  assert.match(row.post_url, /^https:\/\/www\.tiktok\.com\/@alice\.mugs\/photo\/\d{19}$/);
  assert.equal(row.post_id, postId, "a new delivery for the picked post");
  const publish = [...tt.publishes.values()].find((p) => p.kind === "photo")!;
  assert.equal(publish.postInfo.description, "More words");
  assert.equal(publish.postInfo.title, "Three slides");
});

test("an access token about to expire is refreshed before creator_info", async () => {
  const c = tt.addCreator({ username: "expiring", nickname: "Expiring" });
  const id = await w.connectCreator(owner, c);
  await app.ctx
    .db("social_accounts")
    .where({ id })
    .update({ token_expires_at: new Date(Date.now() - 1000) });
  const postId = await w.videoPost(owner, "Expiring token");
  const jar = await signedIn();
  const $ = cheerio.load(await (await jar.fetch(`/review/posts/${postId}?account_id=${id}`)).text());
  assert.equal($("#creator-nickname").text(), "Expiring");
  const row = await app.ctx.db("social_accounts").where({ id }).first();
  assert.ok(new Date(row.token_expires_at).getTime() > Date.now() + 23 * 3600_000, "new 24 h token saved");
});
