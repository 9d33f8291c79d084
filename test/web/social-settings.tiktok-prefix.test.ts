/**
 * /settings/social tells the operator which URL prefix to verify with TikTok when TikTok is live
 * (docs/network-adapters.md "TikTok (Login Kit + Content Posting API, Direct Post)"): photo posts are pulled
 * by TikTok (PULL_FROM_URL) from the service's public media URLs, and TikTok refuses a prefix the app has not
 * verified (`url_ownership_unverified`). With TikTok in the sandbox, nothing is said.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

test("TikTok live: the connect list names {PUBLIC_BASE_URL}/media/public/ to verify; sandbox: no such note", async () => {
  for (const live of [true, false]) {
    const app = await startTestApp({
      env: {
        ...HIGH_LIMITS,
        ...(live ? { TIKTOK_CLIENT_ID: "tt-key", TIKTOK_CLIENT_SECRET: "tt-secret" } : {}),
      },
    });
    const me = await app.user({ workspace: "Prefix Studio" });
    const { cookie } = await browserSession(app.ctx, me.user_id);
    const res = await fetch(`${app.url}/settings/social`, { headers: { cookie } });
    assert.equal(res.status, 200);
    const $ = cheerio.load(await res.text());
    const note = $("#tiktok-url-prefix");
    if (live) {
      assert.equal(note.find("code").text(), `${app.ctx.config.publicBaseUrl}/media/public/`);
      assert.match(note.text(), /must be verified for your TikTok app .*url_ownership_unverified/);
    } else assert.equal(note.length, 0);
  }
});
