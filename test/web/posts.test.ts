/**
 * The posts page (/posts): posts newest first with thumbnails, caption start, status, schedules and
 * deliveries per network; filters by status and network; times in the owner's time zone; the week view; and
 * canceling a pending schedule in the browser (session + CSRF; service spec 1.9), which cancels its
 * deliveries that have not started. Another user's schedule is not found and stays as it was.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { setUserTimeZone } from "../../src/domain/account/time-zone.ts";
import { createImagePost, createTextPost } from "../../src/domain/content/posts.ts";
import { createMediaAsset } from "../../src/domain/media/media.ts";
import { connectSandboxAccounts } from "../../src/domain/social/connect.ts";
import { publishPost } from "../../src/domain/social/publish.ts";
import { CANCELED_REASON, cancelSchedule, schedulePost } from "../../src/domain/social/schedules.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";

const app = await startTestApp({ queue: false, env: { RATE_LIMIT_BROWSER: "1000" } });
const db = app.ctx.db;
const alice = await app.user({ workspace: "Alice Studio" });
const mallory = await app.user({ workspace: "Mallory's" });
const owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const theirs = { userId: mallory.user_id, workspaceId: mallory.workspace_id };

const account = async (who: typeof owner, network: "linkedin" | "x", name: string) =>
  (await connectSandboxAccounts(app.ctx, who, network, [name]))[0]!.social_account_id;
const linkedin = await account(owner, "linkedin", "Alice In");
const x = await account(owner, "x", "alice_x");

const image = await createMediaAsset(db, owner, {
  kind: "image",
  mimeType: "image/jpeg",
  bytes: 1000,
  width: 320,
  height: 320,
  labels: [],
  title: "Mug",
  originalName: "mug.jpg",
  storageKey: "00/mug.jpg",
  sha256: "0".repeat(64),
  source: "upload",
});
const draft = await createImagePost(db, owner, {
  media_asset_ids: [image.asset_id],
  caption: "A mug <b>for</b> mornings",
  title: "Mug photo",
  product_id: null,
});
const launched = await createTextPost(db, owner, {
  caption: `Launch day! ${"Long words go on and on. ".repeat(10)}`,
  title: null,
  product_id: null,
});
await publishPost(app.ctx, owner, { post_id: launched.post_id, social_account_ids: [linkedin] }, undefined);
const later = await createTextPost(db, owner, { caption: "Weekend sale", title: "Sale", product_id: null });
// 2030-06-03 is a Monday; 07:30 UTC is 09:30 in Berlin (CEST) and 03:30 in New York (EDT).
const at = "2030-06-03T07:30:00Z";
const schedule = await schedulePost(
  app.ctx,
  owner,
  { post_id: later.post_id, social_account_ids: [linkedin, x], scheduled_for: at },
  undefined,
);

const malloryPost = await createTextPost(db, theirs, { caption: "Not yours", title: null, product_id: null });
const malloryAccount = await account(theirs, "x", "mallory_x");
const malloryLater = await schedulePost(
  app.ctx,
  theirs,
  { post_id: malloryPost.post_id, social_account_ids: [malloryAccount], scheduled_for: at },
  undefined,
);

const aliceSession = await browserSession(app.ctx, alice.user_id);

async function get(path: string, session = aliceSession) {
  const res = await fetch(`${app.url}${path}`, { headers: { cookie: session.cookie }, redirect: "manual" });
  const body = await res.text();
  return { res, body, $: cheerio.load(body) };
}

function postCancel(scheduleId: string, fields: Record<string, string>, session = aliceSession) {
  return fetch(`${app.url}/posts/schedules/${scheduleId}/cancel`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

test("without a session /posts redirects to sign-in and the cancel form is refused", async () => {
  const res = await fetch(`${app.url}/posts`, { redirect: "manual" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/login?return_to=%2Fposts");
  assert.equal((await postCancel(schedule.schedule_id, {}, { cookie: "", csrf: "" })).status, 401);
});

test("posts are listed newest first with type, thumbnail, caption start, status, schedules and deliveries", async () => {
  const { res, body, $ } = await get("/posts");
  assert.equal(res.status, 200);
  assert.equal($('header.site a[aria-current="page"]').first().attr("href"), "/posts");
  const ids = $("article.post")
    .map((_, el) => $(el).attr("data-post-id"))
    .get();
  assert.deepEqual(ids, [later.post_id, launched.post_id, draft.post_id]);
  assert.ok(!ids.includes(malloryPost.post_id));
  assert.ok(!body.includes("<b>for</b>"), "captions are inert text");

  const mug = $(`#post-${draft.post_id}`);
  assert.equal(mug.find("img.thumb").attr("src"), `/media/${image.asset_id}/file`);
  assert.match(mug.find(".post-head").text(), /image post · Draft/);
  assert.match(mug.text(), /Not published or scheduled yet/);

  const launch = $(`#post-${launched.post_id}`);
  const start = launch.find(".caption-start").text();
  assert.ok(start.length <= 141 && start.endsWith("…"), start);
  const published = launch.find('tr[data-network="linkedin"]');
  assert.equal(published.attr("data-status"), "published");
  assert.match(published.find(".badge").text(), /Published/);
  assert.match(published.find("a.post-url").attr("href") ?? "", /\/sandbox\/linkedin\//);

  const block = $(`.schedule[data-schedule-id="${schedule.schedule_id}"]`);
  assert.equal(block.attr("data-status"), "scheduled");
  assert.deepEqual(
    block
      .find("tr[data-network]")
      .map((_, el) => $(el).attr("data-network"))
      .get(),
    ["linkedin", "x"],
  );
  assert.equal(
    block.find("a.cancel-schedule").attr("href"),
    `/posts/schedules/${schedule.schedule_id}/cancel?workspace_id=${alice.workspace_id}`,
  );
});

test("filters by status and by network", async () => {
  const byStatus = (await get("/posts?status=scheduled")).$;
  assert.deepEqual(
    byStatus("article.post")
      .map((_, el) => byStatus(el).attr("data-post-id"))
      .get(),
    [later.post_id],
  );
  assert.equal(byStatus('select[name="status"] option[selected]').attr("value"), "scheduled");

  const byNetwork = (await get("/posts?network=linkedin")).$;
  assert.deepEqual(
    byNetwork("article.post")
      .map((_, el) => byNetwork(el).attr("data-post-id"))
      .get(),
    [later.post_id, launched.post_id],
  );
  const onX = (await get("/posts?network=x&status=published")).$;
  assert.equal(onX("article.post").length, 0);
  assert.match(onX("#no-posts").text(), /No post matches these filters/);
  // Unknown filter values are ignored rather than failing the page.
  const all = (await get("/posts?status=nonsense&network=myspace")).$;
  assert.equal(all("article.post").length, 3);
});

test("times are shown in the owner's time zone, and the week view holds the schedule", async () => {
  await setUserTimeZone(db, alice.user_id, "Europe/Berlin");
  let { $ } = await get("/posts?week=2030-06-05");
  const heading = $(`.schedule[data-schedule-id="${schedule.schedule_id}"] h4`).text();
  assert.match(heading, /Mon, 3 Jun 2030, 09:30 CEST/);
  assert.equal(
    $(`.schedule[data-schedule-id="${schedule.schedule_id}"] time`).attr("datetime"),
    `${at.slice(0, 19)}.000Z`,
  );
  const monday = $('ol.week > li[data-date="2030-06-03"]');
  assert.equal(monday.find(`li[data-schedule-id="${schedule.schedule_id}"] strong`).text(), "09:30");
  assert.equal($("ol.week > li").length, 7);
  assert.match($("#week-title").text(), /Week of Mon 3 Jun to Sun 9 Jun/);

  await setUserTimeZone(db, alice.user_id, "America/New_York");
  ({ $ } = await get("/posts?week=2030-06-03"));
  assert.match(
    $(`.schedule[data-schedule-id="${schedule.schedule_id}"] h4`).text(),
    /Mon, 3 Jun 2030, 03:30 GMT-4/,
  );
  assert.match($("main > p.muted").first().text(), /Times are in America\/New_York/);
  await setUserTimeZone(db, alice.user_id, null);
});

test("another user's schedule is not found: no confirmation page, and a post changes nothing", async () => {
  const page = await get(`/posts/schedules/${malloryLater.schedule_id}/cancel`);
  assert.equal(page.res.status, 404);
  const res = await postCancel(malloryLater.schedule_id, {
    csrf_token: aliceSession.csrf,
    workspace_id: alice.workspace_id,
  });
  assert.equal(res.status, 404);
  // Naming Mallory's workspace does not help either.
  const other = await postCancel(malloryLater.schedule_id, {
    csrf_token: aliceSession.csrf,
    workspace_id: mallory.workspace_id,
  });
  assert.equal(other.status, 404);
  assert.equal((await db("schedules").where({ id: malloryLater.schedule_id }).first()).status, "scheduled");
  assert.deepEqual(
    (await db("deliveries").where({ schedule_id: malloryLater.schedule_id }).select("status")).map(
      (d) => d.status,
    ),
    ["pending"],
  );
});

test("canceling needs the session's CSRF token; then the schedule and its deliveries are canceled", async () => {
  const confirm = await get(
    `/posts/schedules/${schedule.schedule_id}/cancel?workspace_id=${alice.workspace_id}`,
  );
  assert.equal(confirm.res.status, 200);
  assert.match(confirm.$("h1").text(), /Cancel this schedule\?/);
  const form = confirm.$(`form[action="/posts/schedules/${schedule.schedule_id}/cancel"]`);
  assert.equal(form.find('input[name="csrf_token"]').attr("value"), aliceSession.csrf);

  const withoutToken: Array<Record<string, string>> = [
    { workspace_id: alice.workspace_id },
    { csrf_token: "forged", workspace_id: alice.workspace_id },
  ];
  for (const fields of withoutToken) {
    const refused = await postCancel(schedule.schedule_id, fields);
    assert.equal(refused.status, 403);
  }
  const crossSite = await fetch(`${app.url}/posts/schedules/${schedule.schedule_id}/cancel`, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: aliceSession.cookie,
      origin: "https://evil.example",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf_token: aliceSession.csrf, workspace_id: alice.workspace_id }).toString(),
  });
  assert.equal(crossSite.status, 403);
  assert.equal((await db("schedules").where({ id: schedule.schedule_id }).first()).status, "scheduled");

  const ok = await postCancel(schedule.schedule_id, {
    csrf_token: aliceSession.csrf,
    workspace_id: alice.workspace_id,
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get("location"), `/posts?workspace_id=${alice.workspace_id}&canceled=1`);
  const row = await db("schedules").where({ id: schedule.schedule_id }).first();
  assert.equal(row.status, "canceled");
  assert.equal(row.status_reason, CANCELED_REASON);
  const deliveries = await db("deliveries")
    .where({ schedule_id: schedule.schedule_id })
    .select("status", "error");
  assert.deepEqual(
    deliveries.map((d) => [d.status, d.error]),
    [
      ["failed", CANCELED_REASON],
      ["failed", CANCELED_REASON],
    ],
  );
  // Nothing of the post waits for a network any more.
  assert.notEqual((await db("posts").where({ id: later.post_id }).first()).status, "scheduled");

  const { $ } = await get(`/posts?workspace_id=${alice.workspace_id}&canceled=1`);
  assert.match($('p[role="status"]').text(), /The schedule was canceled/);
  const block = $(`.schedule[data-schedule-id="${schedule.schedule_id}"]`);
  assert.equal(block.attr("data-status"), "canceled");
  assert.equal(block.find("a.cancel-schedule").length, 0);
  assert.match(block.text(), /Canceled by the owner before it was published/);

  // Once canceled it cannot be canceled again.
  const again = await postCancel(schedule.schedule_id, {
    csrf_token: aliceSession.csrf,
    workspace_id: alice.workspace_id,
  });
  assert.equal(again.status, 409);
  assert.match(await again.text(), /The schedule is canceled; only a pending schedule can be canceled/);
});

test("a publishing schedule: only deliveries that have not started are canceled; none left is refused", async () => {
  const post = await createTextPost(db, owner, { caption: "Started", title: null, product_id: null });
  const started = await schedulePost(
    app.ctx,
    owner,
    { post_id: post.post_id, social_account_ids: [linkedin, x], scheduled_for: at },
    undefined,
  );
  await db("schedules").where({ id: started.schedule_id }).update({ status: "publishing" });
  const [first, second] = started.deliveries;
  await db("deliveries").where({ id: first!.delivery_id }).update({ status: "uploading" });
  assert.equal((await get(`/posts/schedules/${started.schedule_id}/cancel`)).res.status, 200);
  const form = { csrf_token: aliceSession.csrf, workspace_id: alice.workspace_id };
  assert.equal((await postCancel(started.schedule_id, form)).status, 303);
  assert.equal((await db("deliveries").where({ id: first!.delivery_id }).first()).status, "uploading");
  const canceled = await db("deliveries").where({ id: second!.delivery_id }).first();
  assert.deepEqual([canceled.status, canceled.error], ["failed", CANCELED_REASON]);
  assert.equal((await db("schedules").where({ id: started.schedule_id }).first()).status, "publishing");

  // Nothing is left to cancel: the page says so and the form is refused.
  assert.equal((await get(`/posts/schedules/${started.schedule_id}/cancel`)).res.status, 409);
  const res = await postCancel(started.schedule_id, form);
  assert.equal(res.status, 409);
  assert.match(await res.text(), /already started publishing/);
  assert.equal((await db("deliveries").where({ id: first!.delivery_id }).first()).status, "uploading");
});

test("the time zone is chosen on /settings with the session's CSRF token; an unknown zone changes nothing", async () => {
  const post = (fields: Record<string, string>) =>
    fetch(`${app.url}/settings/time-zone`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: aliceSession.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  await setUserTimeZone(db, alice.user_id, null);
  assert.equal((await post({ time_zone: "Asia/Tokyo" })).status, 403);
  assert.equal((await post({ csrf_token: aliceSession.csrf, time_zone: "Mars/Olympus_Mons" })).status, 400);
  assert.equal((await db("users").where({ id: alice.user_id }).first()).time_zone, null);
  assert.match((await get("/posts")).$("main > p.muted").first().text(), /Times are in UTC/);
  assert.equal((await post({ csrf_token: aliceSession.csrf, time_zone: "Asia/Tokyo" })).status, 303);
  assert.equal((await db("users").where({ id: alice.user_id }).first()).time_zone, "Asia/Tokyo");
  assert.equal(
    (await get("/settings")).$('select[name="time_zone"] option[selected]').attr("value"),
    "Asia/Tokyo",
  );
  assert.match((await get("/posts")).$("main > p.muted").first().text(), /Times are in Asia\/Tokyo/);
  await setUserTimeZone(db, alice.user_id, null);
});

test("canceling one schedule of a post published elsewhere leaves the post published", async () => {
  const post = await createTextPost(db, owner, { caption: "Twice", title: null, product_id: null });
  await publishPost(app.ctx, owner, { post_id: post.post_id, social_account_ids: [linkedin] }, undefined);
  const s = await schedulePost(
    app.ctx,
    owner,
    { post_id: post.post_id, social_account_ids: [x], scheduled_for: at },
    undefined,
  );
  const out = await cancelSchedule(app.ctx, owner, s.schedule_id);
  assert.deepEqual(out, {
    schedule_id: s.schedule_id,
    post_id: post.post_id,
    status: "canceled",
    canceled_deliveries: 1,
  });
  assert.equal((await db("posts").where({ id: post.post_id }).first()).status, "published");
  await assert.rejects(cancelSchedule(app.ctx, theirs, s.schedule_id), { code: "not_found" });
});

test("a failed delivery says why in plain words and what to do; a disconnected account says to connect it again", async () => {
  const post = await createTextPost(db, owner, { caption: "Will fail", title: null, product_id: null });
  const sent = await publishPost(
    app.ctx,
    owner,
    { post_id: post.post_id, social_account_ids: [linkedin, x] },
    undefined,
  );
  const [onLinkedin, onX] = sent.deliveries;
  await db("deliveries")
    .where({ id: onLinkedin!.delivery_id })
    .update({ status: "failed", error: "LinkedIn refused the image: it is larger than 36 megapixels" });
  await db("deliveries")
    .where({ id: onX!.delivery_id })
    .update({ status: "failed", error: "the token was revoked" });
  const xAccount = await account(owner, "x", "alice_x_old");
  await db("deliveries").where({ id: onX!.delivery_id }).update({ social_account_id: xAccount });
  await db("social_accounts").where({ id: xAccount }).update({ status: "disconnected" });

  const { $ } = await get("/posts");
  const row = (network: string) => $(`#post-${post.post_id} tr[data-network="${network}"]`);
  assert.equal(row("linkedin").attr("data-status"), "failed");
  assert.match(row("linkedin").find(".badge").text(), /Failed/);
  assert.equal(
    row("linkedin").find(".reason").text(),
    "LinkedIn refused the image: it is larger than 36 megapixels.",
  );
  assert.match(
    row("linkedin").find(".advice").text(),
    /Fix what the reason says, then ask your assistant to publish/,
  );
  assert.match(
    row("x").find(".advice").text(),
    /The account was disconnected\. Connect it again on Social accounts/,
  );
  assert.equal(row("x").find(".advice a").attr("href"), "/settings/social");
});
