/**
 * A LinkedIn carousel is shown as what it becomes there: check_post's destination says "document, 6 pages",
 * the approval page's destination reads "LinkedIn: document, 6 pages", the post view's LinkedIn preview has
 * the format and the document's pages; an account set to `linkedin_carousel: images` shows none of it; a
 * network without alt text (TikTok) is named "no alt text".
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import * as cheerio from "cheerio";
import type { OperationRow } from "../../../src/domain/operations/store.ts";
import { networkPreview } from "../../../src/mcp/apps/view-post.ts";
import { postMedia } from "../../../src/domain/social/validate.ts";
import { handler as checkHandler } from "../../../src/tools/social/check_post.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import { renderApprovalPage } from "../../../src/web/approval-page.ts";
import type { TestApp } from "../../helpers/app.ts";
import { account, inline, key, named, reviewed, setup, storedImage } from "../carousels/fixtures.ts";

const schedule = named("schedule_post", scheduleHandler);
const check = named("check_post", checkHandler);

const { app, me } = await setup();
const linkedin = await account(app, me, "linkedin", "Shop LinkedIn");
const linkedinImages = await account(app, me, "linkedin", "Shop LinkedIn (images)");
await app.ctx
  .db("social_accounts")
  .where({ id: linkedinImages })
  .update({ settings: { linkedin_carousel: "images" } });
const tiktok = await account(app, me, "tiktok", "Shop TikTok");
const insta = await account(app, me, "instagram", "Shop Insta");

/** An approved carousel with `slides` ready slides (stored JPEGs). */
async function carousel(a: TestApp, slides: number): Promise<string> {
  const [row] = await a.ctx
    .db("posts")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      type: "carousel",
      status: "draft",
      title: "Glow Serum",
      caption: "Glow all week.",
    })
    .returning("id");
  for (let i = 1; i <= slides; i++)
    await a.ctx.db("carousel_slides").insert({
      post_id: row.id,
      position: i,
      status: "ready",
      headline: `Slide ${i}`,
      image_asset_id: await storedImage(a, me),
    });
  return row.id;
}

test("check_post: a LinkedIn carousel is a document of 6 pages; images when the account says so; TikTok has no alt text", async () => {
  const postId = await carousel(app, 6);
  const { data } = await inline(app, me, check, {
    post_id: postId,
    social_account_ids: [linkedin, linkedinImages, tiktok, insta],
  });
  const by = new Map(data.destinations.map((d) => [d.social_account_id, d]));
  assert.equal(by.get(linkedin)!.format, "document, 6 pages");
  assert.equal(by.get(linkedinImages)!.format, undefined, "linkedin_carousel: images");
  assert.equal(by.get(tiktok)!.format, "no alt text");
  assert.equal(by.get(insta)!.format, undefined);
});

test("the approval page shows LinkedIn: document, 6 pages; the post view's LinkedIn preview has the pages", async () => {
  const postId = await carousel(app, 6);
  const { description } = await reviewed(app, me, schedule, {
    post_id: postId,
    scheduled_for: new Date(Date.now() + 7200_000).toISOString(),
    social_account_ids: [linkedin, linkedinImages],
    idempotency_key: key(),
  });
  const html = renderApprovalPage({
    op: {
      id: randomUUID(),
      tool: "schedule_post",
      state: "approval_required",
      approval_expires_at: new Date(Date.now() + 600_000),
      created_at: new Date(),
    } as OperationRow,
    toolTitle: "Schedule post",
    clientName: "Agent",
    clientVerified: true,
    description,
    csrfToken: "t",
    now: new Date(),
  });
  const $ = cheerio.load(html);
  const rows = $("#destinations tbody tr")
    .map((_, tr) => $(tr).find("td").first().text().trim())
    .get();
  assert.deepEqual(rows, ["LinkedIn: document, 6 pages", "LinkedIn"]);

  const media = await postMedia(app.ctx.db, { id: postId, type: "carousel", media_asset_ids: null });
  const preview = networkPreview("linkedin", "Glow all week.", media);
  assert.equal(preview.format, "document, 6 pages");
  assert.equal(preview.document_pages, 6);
  assert.equal(networkPreview("x", "Glow all week.", media.slice(0, 4)).document_pages, undefined);
});
