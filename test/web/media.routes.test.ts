import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { addMember } from "../../src/domain/account/accounts.ts";
import { sampleMedia } from "../fixtures/media/generate.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";

const media = await sampleMedia();
const app = await startTestApp({
  queue: false,
  env: { MEDIA_MAX_IMAGE_BYTES: "400000", MEDIA_MAX_VIDEO_BYTES: "2000000" },
});

const session = (userId: string) => browserSession(app.ctx, userId);

async function upload(
  s: { cookie: string; csrf: string },
  file: string,
  opts: {
    csrf?: string | null;
    workspaceId?: string;
    name?: string;
    type?: string;
    title?: string;
    labels?: string;
  } = {},
) {
  const form = new FormData();
  if (opts.csrf !== null) form.append("csrf_token", opts.csrf ?? s.csrf);
  if (opts.workspaceId) form.append("workspace_id", opts.workspaceId);
  if (opts.title) form.append("title", opts.title);
  if (opts.labels) form.append("labels", opts.labels);
  const bytes = await readFile(file);
  form.append(
    "file",
    new Blob([bytes], { type: opts.type ?? "application/octet-stream" }),
    opts.name ?? path.basename(file),
  );
  return fetch(`${app.url}/media`, {
    method: "POST",
    body: form,
    headers: { cookie: s.cookie },
    redirect: "manual",
  });
}

const owner = await app.user();
const ownerSession = await session(owner.user_id);

test("GET /media needs a session and shows the form with the CSRF token", async () => {
  const anon = await fetch(`${app.url}/media`, { redirect: "manual" });
  assert.equal(anon.status, 303);
  assert.match(anon.headers.get("location") ?? "", /^\/login\?return_to=/);
  const res = await fetch(`${app.url}/media`, { headers: { cookie: ownerSession.cookie } });
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.ok(html.includes(`name="csrf_token" value="${ownerSession.csrf}"`));
  assert.ok(html.includes(`value="${owner.workspace_id}"`));
  assert.match(html, /enctype="multipart\/form-data"/);
  const post = await fetch(`${app.url}/media`, { method: "POST" });
  assert.equal(post.status, 401);
});

test("uploads PNG, JPEG, WEBP and MP4 with sniffed type, dimensions and duration; serves to the owner only", async () => {
  const expected = [
    [media.png, "image/png", 64, 48],
    [media.jpg, "image/jpeg", 120, 80],
    [media.webp, "image/webp", 32, 32],
    [media.mp4, "video/mp4", 160, 120],
  ] as const;
  const stranger = await app.user();
  const strangerSession = await session(stranger.user_id);
  for (const [file, mime, width, height] of expected) {
    const res = await upload(ownerSession, file, {
      title: `Sample ${mime}`,
      labels: "red, sample",
      name: "renamed.txt",
    });
    assert.equal(res.status, 303, `${mime}: ${res.status}`);
    const id = new URL(res.headers.get("location")!, app.url).searchParams.get("uploaded")!;
    const row = await app.ctx.db("media_assets").where({ id }).first();
    assert.equal(row.mime_type, mime);
    assert.equal(row.kind, mime.startsWith("video/") ? "video" : "image");
    assert.equal(row.width, width);
    assert.equal(row.height, height);
    assert.equal(row.user_id, owner.user_id);
    assert.equal(row.workspace_id, owner.workspace_id);
    assert.deepEqual(row.labels, ["red", "sample"]);
    if (mime === "video/mp4")
      assert.ok(Math.abs(row.duration_seconds - 1) < 0.2, String(row.duration_seconds));
    else assert.equal(row.duration_seconds, null);
    const served = await fetch(`${app.url}/media/${id}/file`, { headers: { cookie: ownerSession.cookie } });
    assert.equal(served.status, 200);
    assert.equal(served.headers.get("content-type"), mime);
    assert.equal(served.headers.get("x-content-type-options"), "nosniff");
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), await readFile(file));
    if (mime === "video/mp4") {
      // <video> players read byte ranges (RFC 9110 section 14).
      assert.equal(served.headers.get("accept-ranges"), "bytes");
      const whole = await readFile(file);
      const part = await fetch(`${app.url}/media/${id}/file`, {
        headers: { cookie: ownerSession.cookie, range: "bytes=100-1123" },
      });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get("content-type"), "video/mp4");
      assert.equal(part.headers.get("content-range"), `bytes 100-1123/${whole.length}`);
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), whole.subarray(100, 1124));
      const tail = await fetch(`${app.url}/media/${id}/file`, {
        headers: { cookie: ownerSession.cookie, range: "bytes=-10" },
      });
      assert.equal(tail.status, 206);
      assert.deepEqual(Buffer.from(await tail.arrayBuffer()), whole.subarray(whole.length - 10));
      const beyond = await fetch(`${app.url}/media/${id}/file`, {
        headers: { cookie: ownerSession.cookie, range: `bytes=${whole.length + 5}-` },
      });
      assert.equal(beyond.status, 416);
      assert.equal(beyond.headers.get("content-range"), `bytes */${whole.length}`);
    }
    const denied = await fetch(`${app.url}/media/${id}/file`, {
      headers: { cookie: strangerSession.cookie },
    });
    assert.equal(denied.status, 404);
  }
  const page = await (await fetch(`${app.url}/media`, { headers: { cookie: ownerSession.cookie } })).text();
  assert.match(page, /Sample image\/png/);
});

test("refuses unknown content (whatever the name), missing CSRF and oversize files; stores nothing", async () => {
  const before = await app.ctx.db("media_assets").count({ n: "*" }).first();
  const fake = path.join(path.dirname(media.png), "fake.png");
  await import("node:fs/promises").then((fs) => fs.writeFile(fake, "<html>not an image</html>".repeat(300)));
  const wrongType = await upload(ownerSession, fake, { name: "photo.png", type: "image/png" });
  assert.equal(wrongType.status, 415);
  const noCsrf = await upload(ownerSession, media.png, { csrf: null });
  assert.equal(noCsrf.status, 403);
  const badCsrf = await upload(ownerSession, media.png, { csrf: "wrong" });
  assert.equal(badCsrf.status, 403);
  const big = await upload(ownerSession, media.bigPng);
  assert.equal(big.status, 413);
  assert.match(await big.text(), /larger than 400000 bytes/);
  const after = await app.ctx.db("media_assets").count({ n: "*" }).first();
  assert.equal(Number(after?.n), Number(before?.n));
});

test("workspace_id picks a workspace the user belongs to; others are 404", async () => {
  const other = await app.user();
  await addMember(app.ctx.db, other.workspace_id, owner.email);
  const res = await upload(ownerSession, media.png, { workspaceId: other.workspace_id });
  assert.equal(res.status, 303);
  const id = new URL(res.headers.get("location")!, app.url).searchParams.get("uploaded")!;
  const row = await app.ctx.db("media_assets").where({ id }).first();
  assert.equal(row.workspace_id, other.workspace_id);
  assert.equal(row.user_id, owner.user_id);
  const foreign = await app.user();
  assert.equal((await upload(ownerSession, media.png, { workspaceId: foreign.workspace_id })).status, 404);
  const page = await fetch(`${app.url}/media?workspace_id=${foreign.workspace_id}`, {
    headers: { cookie: ownerSession.cookie },
  });
  assert.equal(page.status, 404);
});
