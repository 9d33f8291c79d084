/**
 * The approval page plays the video it asks the user to publish: publish_post of a video post (through the
 * real tool pipeline) -> the approval page in headless Chromium has a <video> whose source is the post's
 * MP4 from the owner-only media route, and Chromium loads its metadata (duration, 1080x1920) over byte
 * ranges.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { binaries } from "../helpers/video.ts";
import { browserSession, call, connection, key, useTools } from "../operations/helpers.ts";
import { account } from "../tools/carousels/fixtures.ts";
import { storedCta } from "../tools/automations/video-fixtures.ts";
import { localVideoProvider } from "../../src/providers/video/local.ts";
import { createReadStream } from "node:fs";
import { renderAndStoreVideo } from "../../src/domain/media/generated-video.ts";
import { readFile } from "node:fs/promises";
import { makeImage } from "../helpers/video.ts";
import os from "node:os";
import path from "node:path";

const app = await startTestApp({
  env: { RATE_LIMIT_BROWSER: "1000" },
  providers: { video: localVideoProvider({ ffmpeg: binaries.ffmpeg, ffprobe: binaries.ffprobe }) },
});
const rt = useTools(app, [...TOOLS]);
const browser = await launchBrowser();

test("publish_post approval page plays the post's rendered MP4", async () => {
  const owner = await app.user();
  const who = { userId: owner.user_id, workspaceId: owner.workspace_id };
  const cta = await storedCta(app, owner, 3);
  const png = path.join(os.tmpdir(), `smcp-approval-${key()}.png`);
  await makeImage(png);
  const video = await renderAndStoreVideo(
    app.ctx,
    who,
    {
      template: "ugc-video",
      images: [await readFile(png)],
      hook: "Wait for the glow",
      cta: { open: async () => createReadStream(cta.file) },
      seed: "approval",
    },
    { title: "UGC", labels: [] },
  );
  const [post] = await app.ctx
    .db("posts")
    .insert({
      user_id: owner.user_id,
      workspace_id: owner.workspace_id,
      type: "video",
      status: "draft",
      caption: "Glow in 7 seconds",
      media_asset_ids: JSON.stringify([video.asset_id]),
    })
    .returning("id");
  const insta = await account(app, owner, "instagram");
  const auth = await connection(app, owner, ["publish:content"]);
  const env = await call(rt, auth, "publish_post", {
    post_id: post.id,
    social_account_ids: [insta],
    idempotency_key: key(),
  });
  assert.equal(env.status, "approval_required");

  const session = await browserSession(app.ctx, owner.user_id);
  const context = await browser.newContext();
  await context.addCookies([{ name: "smcp_session", value: session.cookie.split("=")[1]!, url: app.url }]);
  const page = await context.newPage();
  const response = await page.goto(env.approval_url as string);
  assert.equal(response?.status(), 200);
  const src = await page.locator("#media video").getAttribute("src");
  assert.equal(src, `/media/${video.asset_id}/file`);
  // A string script: tsx would wrap named inner functions in a helper the page does not have.
  const meta = (await page.evaluate(`new Promise((resolve) => {
    const el = document.querySelector("#media video");
    const done = () => resolve({ duration: el.duration, width: el.videoWidth, height: el.videoHeight,
      error: el.error ? el.error.code : null });
    el.addEventListener("loadedmetadata", done, { once: true });
    el.addEventListener("error", done, { once: true });
    if (el.readyState >= 1) done(); else el.load();
  })`)) as { duration: number; width: number; height: number; error: number | null };
  assert.equal(meta.error, null, "Chromium could load the video");
  assert.deepEqual([meta.width, meta.height], [1080, 1920]);
  assert.ok(Math.abs(meta.duration - video.duration_seconds) < 0.2, `${meta.duration}`);
  await context.close();
});
