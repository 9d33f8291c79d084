/**
 * The /media page in headless Chromium (service spec 1.7 "Media"): a signed-in user uploads a JPEG (made
 * with sharp) and an MP4 (made with the service's ffmpeg) through the page's real
 * form; both arrive as media assets of the workspace and are listed on the page. Regression: the page's
 * headers once made Chromium send `Origin: null` with the form, and the CSRF check refused the upload.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import sharp from "sharp";
import { sampleMedia } from "../fixtures/media/generate.ts";
import { startTestApp } from "../helpers/app.ts";
import { launchBrowser, openSignedIn, requireChromium } from "../helpers/browser.ts";

requireChromium();

const app = await startTestApp({ queue: false });
const browser = await launchBrowser();

async function jpeg(): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), "smcp-upload-")), "photo.jpg");
  await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .jpeg({ quality: 80 })
    .toFile(file);
  return file;
}

test("a JPEG and an MP4 upload through the /media page in Chromium", async () => {
  const owner = await app.user();
  const files = { jpg: await jpeg(), mp4: (await sampleMedia()).mp4 };
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const origins: Array<string | undefined> = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/media") origins.push(r.headers().origin);
    });
    await openSignedIn(page, `${app.url}/media`, owner);

    for (const [title, file] of [
      ["Product photo", files.jpg],
      ["Product clip", files.mp4],
    ] as const) {
      await page.fill('input[name="title"]', title);
      await page.setInputFiles('input[name="file"]', file);
      const [response] = await Promise.all([
        page.waitForResponse(
          (r) => new URL(r.url()).pathname === "/media" && r.request().method() === "POST",
        ),
        page.click('form[enctype="multipart/form-data"] button[type="submit"]'),
      ]);
      assert.equal(response.status(), 303, `upload of ${title} answered ${response.status()}`);
      await page.waitForURL((u) => u.pathname === "/media" && u.searchParams.has("uploaded"));
      assert.match((await page.textContent("[role=status]")) ?? "", /Uploaded/);
    }

    assert.deepEqual(origins, [app.url, app.url], "Chromium sends the page's own origin with the form");
    const rows = await app.ctx
      .db("media_assets")
      .where({ workspace_id: owner.workspace_id })
      .orderBy("created_at")
      .select("kind", "mime_type", "title", "width", "height");
    assert.deepEqual(
      rows.map((r) => [r.kind, r.mime_type, r.title]),
      [
        ["image", "image/jpeg", "Product photo"],
        ["video", "video/mp4", "Product clip"],
      ],
    );
    assert.equal(rows[0].width, 320);
    const listed = (await page.textContent("table")) ?? "";
    assert.ok(listed.includes("Product photo") && listed.includes("Product clip"));
  } finally {
    await context.close();
  }
});
