// test-process: own (it counts the descriptors of its whole process)
/**
 * An upload the client abandons mid-stream leaves nothing behind: 50 aborted uploads, then no temporary
 * file under the media store's `.tmp` and no file descriptor of this (server) process open on one; the
 * server still accepts a complete upload afterwards, and no abort raises an error nothing handles.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir, readlink } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import { sha256 } from "../../src/crypto/seal.ts";
import sharp from "sharp";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false, env: { RATE_LIMIT_UPLOADS: "1000" } });
const owner = await app.user();
const tmpDir = path.join(path.resolve(app.ctx.config.media.dir), ".tmp");

const sessionId = randomBytes(32).toString("base64url");
const csrf = randomBytes(32).toString("base64url");
await app.ctx.db("browser_sessions").insert({
  id_hash: sha256(sessionId),
  user_id: owner.user_id,
  csrf_token: csrf,
  expires_at: new Date(Date.now() + 3600_000),
});

/** Temp files now in the store's .tmp folder. */
const tempFiles = async () =>
  (await readdir(tmpDir).catch(() => [] as string[])).filter((f) => f.endsWith(".part"));

/** This process's descriptors: all of them, and those open on a temp upload. */
async function fds(): Promise<{ total: number; temp: number; files: number }> {
  const entries = await readdir("/proc/self/fd");
  let temp = 0;
  let files = 0;
  for (const e of entries) {
    const target = await readlink(`/proc/self/fd/${e}`).catch(() => "");
    if (target.startsWith(tmpDir)) temp += 1;
    if (target.startsWith("/") && !target.startsWith("/dev/")) files += 1;
  }
  return { total: entries.length, temp, files };
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

const BOUNDARY = "----abort-test-boundary";
const jpeg = await sharp({ create: { width: 120, height: 80, channels: 3, background: "#2050c0" } })
  .jpeg()
  .toBuffer();

/** Starts a multipart upload announcing 5 MB, sends the CSRF field and the first bytes, then drops the socket. */
async function abortedUpload(): Promise<void> {
  const url = new URL(app.url);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise<void>((r) => socket.once("connect", () => r()));
  socket.on("error", () => {});
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n${csrf}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\n` +
      "Content-Type: image/jpeg\r\n\r\n",
  );
  socket.write(
    `POST /media HTTP/1.1\r\nHost: ${url.host}\r\nCookie: smcp_session=${sessionId}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 5000000\r\n\r\n`,
  );
  socket.write(head);
  // Enough of a real JPEG to be sniffed, then filler: the temp file exists and is being written.
  socket.write(jpeg);
  socket.write(randomBytes(64 * 1024));
  const started = await until(async () => (await tempFiles()).length > 0, 3000);
  assert.ok(started, "the upload reached its temp file before the abort");
  socket.destroy();
}

/** Errors nothing handled in this process (node:test reports them but, after a test's end, does not fail it). */
const uncaught: string[] = [];
process.on("uncaughtExceptionMonitor", (err) =>
  uncaught.push(`${(err as Error).name}: ${(err as Error).message}`),
);

test("50 uploads aborted mid-stream leave no temp file and no open descriptor", async () => {
  await abortedUpload(); // warm-up: pools and lazily opened files are in place before the baseline
  await until(async () => (await tempFiles()).length === 0, 5000);
  const before = await fds();
  for (let i = 0; i < 50; i++) await abortedUpload();
  const clean = await until(async () => (await tempFiles()).length === 0 && (await fds()).temp === 0, 10_000);
  assert.ok(clean, `left behind: ${JSON.stringify({ files: await tempFiles(), fds: await fds() })}`);
  const after = await fds();
  assert.equal(after.temp, 0);
  // Sockets come and go with keep-alive and the database pools; open files must not grow.
  assert.ok(after.files <= before.files, `open files grew from ${before.files} to ${after.files}`);
  assert.ok(after.total < before.total + 50, `descriptors grew from ${before.total} to ${after.total}`);
  // Nothing else happens: no abort surfaces later as an uncaught error (which would stop the service).
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(uncaught, [], "an aborted upload raised an error nothing handled");

  // The server still works: a complete upload succeeds.
  const form = new FormData();
  form.append("csrf_token", csrf);
  form.append("file", new Blob([jpeg], { type: "image/jpeg" }), "ok.jpg");
  const res = await fetch(`${app.url}/media`, {
    method: "POST",
    body: form,
    headers: { cookie: `smcp_session=${sessionId}` },
    redirect: "manual",
  });
  assert.equal(res.status, 303);
  assert.deepEqual(await tempFiles(), []);
});
