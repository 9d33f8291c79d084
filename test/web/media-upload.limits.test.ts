/**
 * Upload limits of the media library: a per-user upload rate (RATE_LIMIT_UPLOADS per window, 429 with
 * Retry-After and a clear message, other users unaffected, recovery after the window) and a per-workspace
 * storage quota by the owner's plan (STORAGE_QUOTA_<PLAN>_BYTES: 413 naming the plan and the usage; nothing
 * recorded or stored).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import sharp from "sharp";
import { sha256 } from "../../src/crypto/seal.ts";
import { startTestApp } from "../helpers/app.ts";

const jpeg = await sharp({ create: { width: 120, height: 80, channels: 3, background: "#c02050" } })
  .jpeg()
  .toBuffer();
const app = await startTestApp({
  queue: false,
  env: {
    RATE_LIMIT_UPLOADS: "3",
    RATE_LIMIT_WINDOW_SECONDS: "2",
    STORAGE_QUOTA_CREATOR_BYTES: String(Math.floor(jpeg.length * 2.5)),
    STORAGE_QUOTA_GROWTH_BYTES: String(jpeg.length * 100),
  },
});

async function session(userId: string) {
  const id = randomBytes(32).toString("base64url");
  const csrf = randomBytes(32).toString("base64url");
  await app.ctx.db("browser_sessions").insert({
    id_hash: sha256(id),
    user_id: userId,
    csrf_token: csrf,
    expires_at: new Date(Date.now() + 3600_000),
  });
  return { cookie: `smcp_session=${id}`, csrf };
}

function upload(s: { cookie: string; csrf: string }) {
  const form = new FormData();
  form.append("csrf_token", s.csrf);
  form.append("file", new Blob([jpeg], { type: "image/jpeg" }), "photo.jpg");
  return fetch(`${app.url}/media`, {
    method: "POST",
    body: form,
    headers: { cookie: s.cookie },
    redirect: "manual",
  });
}

const assets = async (userId: string) => (await app.ctx.db("media_assets").where({ user_id: userId })).length;

async function storedFiles(): Promise<number> {
  const root = path.resolve(app.ctx.config.media.dir);
  let n = 0;
  for (const d of await readdir(root).catch(() => [] as string[])) {
    if (d.startsWith(".")) continue;
    n += (await readdir(path.join(root, d)).catch(() => [])).length;
  }
  return n;
}

test("a user's uploads beyond the rate are refused with 429, Retry-After and a clear message; then recover", async () => {
  const u = await app.user({ plan: "growth" });
  const s = await session(u.user_id);
  for (let i = 0; i < 3; i++) assert.equal((await upload(s)).status, 303);
  const refused = await upload(s);
  assert.equal(refused.status, 429);
  const retryAfter = Number(refused.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 2);
  assert.match(
    await refused.text(),
    /Too many uploads: at most 3 per 2 seconds\. Try again in \d+ seconds\./,
  );
  assert.equal(await assets(u.user_id), 3);
  // Another user is not affected.
  const other = await app.user({ plan: "growth" });
  assert.equal((await upload(await session(other.user_id))).status, 303);
  await new Promise((r) => setTimeout(r, 2200));
  assert.equal((await upload(s)).status, 303);
});

test("an upload past the workspace's storage quota for its plan is refused with 413; nothing is kept", async () => {
  const u = await app.user({ plan: "creator" });
  const s = await session(u.user_id);
  assert.equal((await upload(s)).status, 303);
  assert.equal((await upload(s)).status, 303);
  const files = await storedFiles();
  const refused = await upload(s);
  assert.equal(refused.status, 413);
  assert.match(
    await refused.text(),
    /media storage is full for the creator plan: [\d.]+ \w+ of [\d.]+ \w+ used, and the file is [\d.]+ \w+; delete media or upgrade the plan/,
  );
  assert.equal(await assets(u.user_id), 2);
  assert.equal(await storedFiles(), files, "the refused file is not kept in storage");
  // Deleting media frees room.
  await app.ctx.db("media_assets").where({ user_id: u.user_id }).limit(1).update({ deleted_at: new Date() });
  await new Promise((r) => setTimeout(r, 2200)); // the upload rate window
  assert.equal((await upload(s)).status, 303);
});
