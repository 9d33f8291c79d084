/**
 * Signed public media URLs (`/media/public/{asset}?exp=&sig=`, src/domain/media/public-url.ts,
 * src/web/media-public.ts): a valid URL serves the bytes with the right type and ranges; expired, tampered,
 * unsigned or deleted is 404. Also the test-only SOCIAL_HTTP_OVERRIDE rewrite and its production refusal.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { signedMediaUrl } from "../../src/domain/media/public-url.ts";
import { createSocialHttp, retryAfterSeconds } from "../../src/providers/social/http.ts";
import { TestClock } from "../helpers/app.ts";
import { setup, storedImage } from "../tools/carousels/fixtures.ts";

const { app, me } = await setup();
const assetId = await storedImage(app, me, 80);
const row = await app.ctx.db("media_assets").where({ id: assetId }).first();
const bytes = Buffer.concat(
  await (async () => {
    const chunks: Buffer[] = [];
    for await (const c of (await app.ctx.providers.storage.read(row.storage_key)).stream)
      chunks.push(c as Buffer);
    return chunks;
  })(),
);
const sign = (now = new Date(), ttl?: number) =>
  signedMediaUrl(app.url, app.ctx.keys.encryptionKeys, assetId, now, ttl);

test("a valid signed URL serves the file with its content type, length and Accept-Ranges", async () => {
  const url = sign();
  assert.match(url, new RegExp(`^${app.url}/media/public/${assetId}\\?exp=\\d+&sig=[A-Za-z0-9_-]{43}$`));
  const exp = Number(new URL(url).searchParams.get("exp"));
  assert.ok(Math.abs(exp - (Date.now() / 1000 + 3600)) < 5, "valid for one hour");
  const r = await fetch(url);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "image/jpeg");
  assert.equal(r.headers.get("accept-ranges"), "bytes");
  assert.equal(Number(r.headers.get("content-length")), bytes.length);
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), bytes);
});

test("byte ranges: 206 with Content-Range, suffix ranges, 416 when unsatisfiable", async () => {
  const url = sign();
  const r = await fetch(url, { headers: { range: "bytes=10-19" } });
  assert.equal(r.status, 206);
  assert.equal(r.headers.get("content-range"), `bytes 10-19/${bytes.length}`);
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), bytes.subarray(10, 20));
  const tail = await fetch(url, { headers: { range: "bytes=-5" } });
  assert.equal(tail.status, 206);
  assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 5));
  const open = await fetch(url, { headers: { range: `bytes=${bytes.length - 3}-` } });
  assert.deepEqual(Buffer.from(await open.arrayBuffer()), bytes.subarray(bytes.length - 3));
  const bad = await fetch(url, { headers: { range: `bytes=${bytes.length + 10}-` } });
  assert.equal(bad.status, 416);
  assert.equal(bad.headers.get("content-range"), `bytes */${bytes.length}`);
  await bad.arrayBuffer();
});

test("expired, tampered, unsigned and deleted are all 404", async () => {
  const clock = new TestClock();
  clock.advance(-3601);
  const expired = sign(clock.now());
  assert.equal((await fetch(expired)).status, 404);
  const url = new URL(sign());
  const sig = url.searchParams.get("sig")!;
  const tampered = new URL(url);
  tampered.searchParams.set("sig", `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`);
  assert.equal((await fetch(tampered)).status, 404);
  const longer = new URL(url);
  longer.searchParams.set("exp", String(Number(url.searchParams.get("exp")) + 86_400));
  assert.equal((await fetch(longer)).status, 404, "the expiry is signed");
  const other = new URL(url.toString().replace(assetId, "00000000-0000-4000-8000-000000000000"));
  assert.equal((await fetch(other)).status, 404, "the asset id is signed");
  assert.equal((await fetch(`${app.url}/media/public/${assetId}`)).status, 404);
  await app.ctx.db("media_assets").where({ id: assetId }).update({ deleted_at: new Date() });
  try {
    assert.equal((await fetch(sign())).status, 404);
  } finally {
    await app.ctx.db("media_assets").where({ id: assetId }).update({ deleted_at: null });
  }
});

test("SOCIAL_HTTP_OVERRIDE rewrites https://{host}{path} to {override}/{host}{path}, and is refused in production", () => {
  const http = createSocialHttp("http://127.0.0.1:9999");
  assert.equal(http.override, "http://127.0.0.1:9999");
  assert.equal(
    http.overrideUrl("https://graph.instagram.com/v21.0/me/media?fields=id"),
    "http://127.0.0.1:9999/graph.instagram.com/v21.0/me/media?fields=id",
  );
  assert.equal(
    http.overrideUrl("http://127.0.0.1:9999/x/upload"),
    "http://127.0.0.1:9999/x/upload",
    "as returned",
  );
  assert.equal(createSocialHttp(undefined).override, undefined);
  assert.throws(
    () => createSocialHttp("http://127.0.0.1:9999/path"),
    /SOCIAL_HTTP_OVERRIDE must be http:\/\/host:port/,
  );
  assert.equal(
    createSocialHttp(undefined).overrideUrl("https://graph.instagram.com/me"),
    "https://graph.instagram.com/me",
  );
  assert.throws(
    () =>
      loadConfig({
        NODE_ENV: "production",
        AI_TEXT_PROVIDER: "local",
        AI_IMAGE_PROVIDER: "local",
        SOCIAL_HTTP_OVERRIDE: "http://127.0.0.1:1",
        PUBLIC_BASE_URL: "https://x.example",
      }),
    (e: unknown) => e instanceof ConfigError && e.variable === "SOCIAL_HTTP_OVERRIDE",
  );
  assert.throws(
    () => loadConfig({ INSTAGRAM_CLIENT_ID: "id-only" }),
    (e: unknown) => e instanceof ConfigError && e.variable === "INSTAGRAM_CLIENT_SECRET",
  );
  const c = loadConfig({ TIKTOK_CLIENT_ID: "k", TIKTOK_CLIENT_SECRET: "s" });
  assert.deepEqual(c.social.credentials, { tiktok: { clientId: "k", clientSecret: "s" } });
});

test("Retry-After as seconds or an HTTP date", () => {
  const now = new Date("2026-11-23T10:00:00Z");
  assert.equal(retryAfterSeconds(new Headers({ "retry-after": "120" }), now), 120);
  assert.equal(retryAfterSeconds(new Headers({ "retry-after": "Mon, 23 Nov 2026 10:01:30 GMT" }), now), 90);
  assert.equal(retryAfterSeconds(new Headers({}), now), undefined);
});
