/**
 * Alt text in the media library (docs/social.md "Alt text"): set at upload (the form's optional `alt_text`),
 * shown on /media in each asset's form, changed or cleared there (POST /media/alt-text, session + CSRF + same
 * origin); an alt text over 1,000 characters is refused with the reason on the page and nothing changes.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { sampleMedia } from "../fixtures/media/generate.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";

const media = await sampleMedia();
const app = await startTestApp({ queue: false });
const owner = await app.user();
const s = await browserSession(app.ctx, owner.user_id);

async function upload(altText: string | undefined) {
  const form = new FormData();
  form.append("csrf_token", s.csrf);
  form.append("workspace_id", owner.workspace_id);
  form.append("title", "Mug photo");
  if (altText !== undefined) form.append("alt_text", altText);
  form.append("file", new Blob([await readFile(media.png)]), path.basename(media.png));
  return fetch(`${app.url}/media`, {
    method: "POST",
    body: form,
    headers: { cookie: s.cookie },
    redirect: "manual",
  });
}

const setAlt = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/media/alt-text`, {
    method: "POST",
    body: new URLSearchParams({ csrf_token: s.csrf, workspace_id: owner.workspace_id, ...fields }),
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
    redirect: "manual",
  });

const altOf = async (id: string) =>
  (await app.ctx.db("media_assets").where({ id }).first("alt_text")).alt_text as string | null;

const mediaPage = async () =>
  (
    await fetch(`${app.url}/media?workspace_id=${owner.workspace_id}`, { headers: { cookie: s.cookie } })
  ).text();

test("an alt text given at upload is saved (trimmed) and shown in the asset's form on /media", async () => {
  const res = await upload("  A white mug on an oak desk  ");
  assert.equal(res.status, 303);
  const id = new URL(res.headers.get("location")!, app.url).searchParams.get("uploaded")!;
  assert.equal(await altOf(id), "A white mug on an oak desk");
  const page = await mediaPage();
  assert.match(page, /<textarea name="alt_text" rows="3" maxlength="1000"><\/textarea>/, "the upload field");
  assert.match(page, /maxlength="1000">A white mug on an oak desk<\/textarea>/);
  assert.ok(page.includes(`name="asset_id" value="${id}"`));
  // Without the field (or blank) the asset has none.
  const bare = await upload("   ");
  const bareId = new URL(bare.headers.get("location")!, app.url).searchParams.get("uploaded")!;
  assert.equal(await altOf(bareId), null);
});

test("an upload with an alt text over 1,000 characters is refused with the reason; nothing is stored", async () => {
  const before = await app.ctx.db("media_assets").count({ n: "*" }).first();
  const res = await upload("a".repeat(1001));
  assert.equal(res.status, 400);
  assert.match(
    await res.text(),
    /Nothing was uploaded: the alt text has 1001 characters; it may have at most 1000/,
  );
  // A field longer than the form parser keeps (4,096 bytes) is refused the same way, not cut and saved.
  const huge = await upload("b".repeat(6000));
  assert.equal(huge.status, 400);
  const after = await app.ctx.db("media_assets").count({ n: "*" }).first();
  assert.equal(Number(after?.n), Number(before?.n));
});

test("the alt text is changed and cleared on /media; too long, forged or foreign changes nothing", async () => {
  const res = await upload("First words");
  const id = new URL(res.headers.get("location")!, app.url).searchParams.get("uploaded")!;

  const changed = await setAlt({ asset_id: id, alt_text: "A blue mug, steam rising" });
  assert.equal(changed.status, 303);
  assert.match(changed.headers.get("location") ?? "", /alt=saved/);
  assert.equal(await altOf(id), "A blue mug, steam rising");
  assert.match(
    await (
      await fetch(new URL(changed.headers.get("location")!, app.url), { headers: { cookie: s.cookie } })
    ).text(),
    /Alt text saved\./,
  );

  const tooLong = await setAlt({ asset_id: id, alt_text: "é".repeat(1001) });
  assert.equal(tooLong.status, 400);
  assert.match(
    await tooLong.text(),
    /The alt text was not changed: the alt text has 1001 characters; it may have at most 1000/,
  );
  assert.equal(await altOf(id), "A blue mug, steam rising");
  // 1,000 characters (code points, not bytes) are taken.
  assert.equal((await setAlt({ asset_id: id, alt_text: "é".repeat(1000) })).status, 303);
  assert.equal(await altOf(id), "é".repeat(1000));

  const forged = await setAlt({ asset_id: id, alt_text: "Forged", csrf_token: "wrong" });
  assert.equal(forged.status, 403);
  const crossSite = await setAlt(
    { asset_id: id, alt_text: "Cross site" },
    { origin: "https://evil.example" },
  );
  assert.equal(crossSite.status, 403);
  const stranger = await app.user();
  const theirs = await upload("Mine");
  const theirId = new URL(theirs.headers.get("location")!, app.url).searchParams.get("uploaded")!;
  await app.ctx
    .db("media_assets")
    .where({ id: theirId })
    .update({ user_id: stranger.user_id, workspace_id: stranger.workspace_id });
  const foreign = await setAlt({ asset_id: theirId, alt_text: "Not yours" });
  assert.equal(foreign.status, 400);
  assert.match(await foreign.text(), /That media asset does not exist in this workspace/);
  assert.equal(await altOf(theirId), "Mine");
  assert.equal(await altOf(id), "é".repeat(1000));

  const cleared = await setAlt({ asset_id: id, alt_text: "  " });
  assert.equal(cleared.status, 303);
  assert.match(cleared.headers.get("location") ?? "", /alt=cleared/);
  assert.equal(await altOf(id), null);
  const anonymous = await fetch(`${app.url}/media/alt-text`, {
    method: "POST",
    body: new URLSearchParams({ asset_id: id, alt_text: "x" }),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.equal(anonymous.status, 401);
});
