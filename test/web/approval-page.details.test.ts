/**
 * What an approval page shows (service spec 4.4; approvals stay honest): for schedule_post every picture of
 * the post, the full caption (not an excerpt), the destinations and the time; for enable/update/run of an
 * automation the configuration, destinations and daily times, and for an update each value as old -> new;
 * the client is marked unverified. The descriptions come from the real tools' `describe`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { handler as createHandler } from "../../src/tools/automations/create_automation.ts";
import { handler as enableHandler } from "../../src/tools/automations/enable_automation.ts";
import { handler as runHandler } from "../../src/tools/automations/run_automation.ts";
import { handler as updateHandler } from "../../src/tools/automations/update_automation.ts";
import { handler as scheduleHandler } from "../../src/tools/social/schedule_post.ts";
import { handler as approveHandler } from "../../src/tools/carousels/approve_carousel.ts";
import { renderApproval } from "../helpers/approval-page.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { problemsAtEverySize } from "../helpers/page-checks.ts";
import {
  account,
  inline,
  key,
  media,
  named,
  setupWithProduct,
  toolContext,
} from "../tools/carousels/fixtures.ts";

const create = named("create_automation", createHandler);
const { app, me, productId } = await setupWithProduct("growth", 10);
/** The approval pages the tests below render, checked in Chromium by the last test. */
const rendered: Array<{ name: string; html: string }> = [];

/** The account names of the page's destinations table, in order. */
const destinationNames = (html: string) => {
  const $ = cheerio.load(html);
  return $("#destinations tbody tr")
    .map((_, tr) => $(tr).find("td").eq(1).text())
    .get();
};

/** A draft image post of `me` with `caption` and the media `assets` (of `product` when given). */
async function imagePostOf(caption: string, assets: string[], product?: string): Promise<{ id: string }> {
  const [post] = await app.ctx
    .db("posts")
    .insert({
      user_id: me.user_id,
      workspace_id: me.workspace_id,
      type: "image",
      status: "draft",
      caption,
      product_id: product ?? null,
      media_asset_ids: JSON.stringify(assets),
    })
    .returning("id");
  return post;
}

test("schedule_post: the post's picture, the full caption, the destinations and the time", async () => {
  const insta = await account(app, me, "facebook", "Shop FB");
  const caption = `${"Long caption sentence about the serum. ".repeat(8)}#glow <b>bold?</b>`;
  const images = [await media(app, me, "image")];
  const post = await imagePostOf(caption, images);
  const at = new Date(Date.now() + 3 * 86400_000);
  const d = await scheduleHandler.describe!(
    {
      post_id: post.id,
      social_account_ids: [insta],
      scheduled_for: at.toISOString(),
      idempotency_key: key(),
    } as any,
    toolContext(app, me),
  );
  const html = renderApproval(d, "schedule_post");
  rendered.push({ name: "schedule_post", html });
  for (const id of images) assert.ok(html.includes(`src="/media/${id}/file"`));
  assert.ok(caption.length > 300);
  assert.ok(html.includes("Long caption sentence about the serum. ".repeat(8).trim()), "the whole caption");
  assert.ok(html.includes("&lt;b&gt;bold?&lt;/b&gt;"), "escaped, inert");
  const $ = cheerio.load(html);
  assert.deepEqual(
    $("#destinations tbody tr td")
      .map((_, td) => $(td).text())
      .get(),
    ["Facebook", "Shop FB", "@facebook_handle", "Shop FB", "—"],
  );
  assert.ok(html.includes(at.toISOString()));
  assert.match(html, /id="client-unverified"/);
});

test("automation pages: enable shows configuration, destinations and daily times; update shows old -> new", async () => {
  const insta = await account(app, me, "instagram", "Brand IG");
  const fb = await account(app, me, "facebook", "Brand FB");
  const a = await inline(app, me, create, {
    kind: "carousel",
    name: "Morning carousel",
    configuration: {
      product_id: productId,
      design_id: "bold-minimal",
      slide_count: 4,
      social_account_ids: [insta, fb],
    },
    daily_times: ["09:00", "18:30"],
    time_zone: "Europe/Paris",
    idempotency_key: key(),
  } as any);
  const id = a.data.automation_id;

  const enabled = renderApproval(
    await enableHandler.describe!({ automation_id: id, idempotency_key: key() }, toolContext(app, me)),
    "enable_automation",
  );
  assert.deepEqual(destinationNames(enabled), ["Brand IG", "Brand FB"]);
  assert.match(enabled, /daily at 09:00, 18:30 \(Europe\/Paris\)/);
  assert.match(enabled, /design id<\/th><td>bold-minimal/);
  assert.match(enabled, /slide count<\/th><td>4/);

  const ran = renderApproval(
    await runHandler.describe!({ automation_id: id, idempotency_key: key() }, toolContext(app, me)),
    "run_automation",
  );
  assert.ok(destinationNames(ran).includes("Brand FB"));
  assert.match(ran, /slide count<\/th><td>4/);

  const updated = renderApproval(
    await updateHandler.describe!(
      { automation_id: id, daily_times: ["20:00"], name: "Evening carousel", idempotency_key: key() },
      toolContext(app, me),
    ),
    "update_automation",
  );
  assert.match(updated, /<del>Morning carousel<\/del> → Evening carousel/);
  assert.match(updated, /<del>09:00, 18:30<\/del> → 20:00/);
  assert.match(updated, /Time zone<\/th><td>Europe\/Paris/, "unchanged values are shown without a strike");
  assert.match(updated, /daily at 20:00 \(Europe\/Paris\)/);
  rendered.push(
    { name: "enable_automation", html: enabled },
    { name: "run_automation", html: ran },
    { name: "update_automation", html: updated },
  );
});

test("publishing pages show every slide, the full caption, every destination, the Pinterest link, the time in the owner's zone and UTC, the credits", async () => {
  const fb = await account(app, me, "facebook", "Glow Page");
  const pins = await account(app, me, "pinterest", "Glow Pins");
  await app.ctx
    .db("social_accounts")
    .where({ id: pins })
    .update({ settings: JSON.stringify({ board_id: "549755885175" }) });
  const slides = [];
  for (let i = 0; i < 3; i++) slides.push(await media(app, me, "image"));
  const caption = `Three steps to a brighter morning. ${"Step by step. ".repeat(20)}`.trim();
  const post = await imagePostOf(caption, slides, productId);
  await app.ctx
    .db("products")
    .where({ id: productId })
    .update({ product_url: "https://shop.example/glow?a=1&b=2" });
  // 09:30 UTC on a winter day is 10:30 in Berlin.
  const at = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 15, 9, 30));
  const d = await scheduleHandler.describe!(
    {
      post_id: post.id,
      social_account_ids: [fb, pins],
      scheduled_for: at.toISOString(),
      idempotency_key: key(),
    } as any,
    toolContext(app, me),
  );
  const html = renderApproval(d, "schedule_post", "Europe/Berlin");
  const $ = cheerio.load(html);
  assert.deepEqual(
    $("#slides img")
      .map((_, img) => $(img).attr("src"))
      .get(),
    slides.map((id) => `/media/${id}/file`),
    "every slide, in order",
  );
  assert.equal($("#caption").text(), caption, "the full caption");
  assert.deepEqual(
    $("#destinations thead th")
      .map((_, th) => $(th).text())
      .get(),
    ["Network", "Account", "Handle", "Page", "Board"],
  );
  assert.deepEqual(
    $("#destinations tbody tr")
      .map((_, tr) => [
        $(tr)
          .find("td")
          .map((__, td) => $(td).text())
          .get(),
      ])
      .get(),
    [
      ["Facebook", "Glow Page", "@facebook_handle", "Glow Page", "—"],
      ["Pinterest", "Glow Pins", "@pinterest_handle", "—", "549755885175"],
    ],
  );
  assert.equal($("#pinterest-link a").attr("href"), "https://shop.example/glow?a=1&b=2");
  assert.equal($("#when time").attr("datetime"), at.toISOString());
  assert.match($("#when-local").text(), /10:30 .*\(Europe\/Berlin\)/);
  assert.match($("#when-utc").text(), /09:30 .*\(UTC\)/);
  // The summary says the time in words, not as an ISO string; the page's times are the owner's.
  assert.match(d.summary, / for \w+, 15 January \d{4} at 09:30 UTC to /);
  assert.doesNotMatch(d.summary, /\d{4}-\d{2}-\d{2}T/);
  assert.match($("#expires").text(), /^\w+, \d{1,2} \w+ \d{4} at \d{2}:\d{2} \(Europe\/Berlin\)/);
  assert.doesNotMatch($("#request").text(), /\d{4}-\d{2}-\d{2}T/, "no ISO time on the page");
  assert.match($("#credits").text(), /costs no credits/);
  assert.equal($("[style]").length, 0, "no inline styles");
  assert.ok(d.content && d.fingerprint, "the request records the content it shows");
  assert.equal(d.content.destinations[1]!.link, "https://shop.example/glow?a=1&b=2");

  // Without a chosen time zone: UTC, and where to choose one.
  const utcOnly = cheerio.load(renderApproval(d, "schedule_post"));
  assert.equal(utcOnly("#when-local").length, 0);
  assert.match(utcOnly("#when").text(), /09:30 .*\(UTC\).*settings/);
  assert.match(utcOnly("#expires").text(), /\(UTC\)/);
});

test("approve_carousel warns per connected account whose caption limit the caption exceeds", async () => {
  await account(app, me, "pinterest", "Long Pins");
  const [post] = await app.ctx
    .db("posts")
    .insert({
      user_id: me.user_id,
      workspace_id: me.workspace_id,
      type: "carousel",
      status: "draft",
      caption: "x".repeat(600),
      product_id: productId,
    })
    .returning("id");
  const [run] = await app.ctx
    .db("carousel_runs")
    .insert({
      user_id: me.user_id,
      workspace_id: me.workspace_id,
      post_id: post.id,
      product_id: productId,
      design_id: "bold-minimal",
      format: "square",
      slide_count: 4,
      kind: "generate",
      status: "succeeded",
      outline: JSON.stringify({ slides: [] }),
    })
    .returning("id");
  for (let position = 1; position <= 4; position++)
    await app.ctx.db("carousel_slides").insert({
      post_id: post.id,
      run_id: run.id,
      position,
      status: "ready",
      image_asset_id: await media(app, me, "image"),
    });
  const d = await approveHandler.describe!(
    { post_id: post.id, idempotency_key: key() },
    toolContext(app, me),
  );
  const carouselPage = renderApproval(d, "approve_carousel");
  rendered.push({ name: "approve_carousel", html: carouselPage });
  const $ = cheerio.load(carouselPage);
  assert.equal($("#slides img").length, 4);
  const pinsWarning = $("#warnings > ul > li").filter((_, li) => $(li).find("strong").text() === "Long Pins");
  assert.equal(pinsWarning.length, 1, $("#warnings").text());
  assert.match(pinsWarning.text(), /600/);
  assert.match(pinsWarning.text(), /500/);
  assert.equal(
    $("#warnings > ul > li").filter((_, li) => $(li).text().includes("(Facebook)")).length,
    0,
    "Facebook allows 63,206 characters",
  );
  assert.equal(d.content?.slide_asset_ids.length, 4);
});

test("every approval page rendered above passes the page checks in Chromium at desktop and phone size", async () => {
  assert.deepEqual(rendered.map((r) => r.name).sort(), [
    "approve_carousel",
    "enable_automation",
    "run_automation",
    "schedule_post",
    "update_automation",
  ]);
  // Each page is served on the service's origin with the service's own Content-Security-Policy, so its
  // stylesheets (/assets/...) load and its policy applies as they do in the browser (one navigation a page).
  const login = await fetch(`${app.url}/login`);
  await login.arrayBuffer();
  const csp = login.headers.get("content-security-policy");
  assert.ok(csp, "the service sends a Content-Security-Policy");
  const found = await problemsAtEverySize(
    await launchBrowser(),
    rendered.map(({ name, html }) => ({
      label: name,
      async open(page) {
        const url = `${app.url}/approval-preview/${name}`;
        await page.route(url, (route) =>
          route.fulfill({
            status: 200,
            contentType: "text/html; charset=utf-8",
            headers: { "content-security-policy": csp },
            body: html,
          }),
        );
        await page.goto(url, { waitUntil: "load" });
        await page.unroute(url);
        const sheets = await page.evaluate(() =>
          Array.from(document.styleSheets).map((sheet) => sheet.cssRules.length),
        );
        assert.ok(
          sheets.length >= 2 && sheets.every((rules) => rules > 0),
          `${name}: the stylesheets loaded`,
        );
      },
    })),
  );
  assert.deepEqual(found, []);
});
