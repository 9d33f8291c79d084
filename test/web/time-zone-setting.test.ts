/**
 * The owner's time zone on /settings (approval pages show a schedule's time in it beside UTC): the select
 * shows the saved zone; saving needs the session and the CSRF token; an unknown zone is refused and changes
 * nothing; the approval page of the owner's request then shows the time in that zone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { userTimeZone } from "../../src/domain/account/time-zone.ts";
import { createRuntime } from "../../src/runtime/pipeline.ts";
import { startTestApp } from "../helpers/app.ts";
import { HIGH_LIMITS, Jar, login } from "../oauth/support.ts";
import { call, connection, key } from "../operations/helpers.ts";
import { account, textPost } from "../tools/carousels/fixtures.ts";

const app = await startTestApp({ env: HIGH_LIMITS });
const alice = await app.user({ workspace: "Alice Studio" });

async function signedIn() {
  const jar = new Jar(app.url);
  assert.equal((await login(jar, alice.email, alice.password)).status, 303);
  return jar;
}

const save = (jar: Jar, fields: Record<string, string>) =>
  jar.fetch("/settings/time-zone", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

test("the time zone is chosen on /settings and used on approval pages", async () => {
  const jar = await signedIn();
  const $ = cheerio.load(await (await jar.fetch("/settings")).text());
  assert.equal($("#time-zone option[selected]").attr("value"), "", "not set yet");
  assert.ok($("#time-zone option[value='Europe/Berlin']").length === 1);
  const csrf = $("#time-zone-form input[name=csrf_token]").attr("value")!;

  assert.equal((await save(jar, { csrf_token: "forged", time_zone: "Asia/Tokyo" })).status, 403);
  assert.equal((await save(jar, { csrf_token: csrf, time_zone: "Mars/Olympus" })).status, 400);
  assert.equal(await userTimeZone(app.ctx.db, alice.user_id), null, "refusals change nothing");
  const saved = await save(jar, { csrf_token: csrf, time_zone: "America/New_York" });
  assert.equal(saved.status, 303);
  assert.equal(await userTimeZone(app.ctx.db, alice.user_id), "America/New_York");
  const again = cheerio.load(await (await jar.fetch("/settings")).text());
  assert.equal(again("#time-zone option[selected]").attr("value"), "America/New_York");

  // A schedule request: its page shows the time in New York and in UTC.
  const rt = createRuntime(app.ctx, [TOOLS_BY_NAME.get("schedule_post")!]);
  const auth = await connection(app, alice, ["schedule:content"]);
  const at = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 6, 4, 16, 0));
  const req = await call(rt, auth, "schedule_post", {
    post_id: await textPost(app, alice, "Fourth of July sale"),
    social_account_ids: [await account(app, alice, "facebook", "Shop FB")],
    scheduled_for: at.toISOString(),
    idempotency_key: key(),
  });
  assert.equal(req.status, "approval_required", JSON.stringify(req));
  const page = cheerio.load(await (await jar.fetch(new URL(req.approval_url!).pathname)).text());
  assert.match(page("#when-local").text(), /12:00 .*\(America\/New_York\)/);
  assert.match(page("#when-utc").text(), /16:00 .*\(UTC\)/);
  assert.match(page("#credits").text(), /costs no credits/);
});
