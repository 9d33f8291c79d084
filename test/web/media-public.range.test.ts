/**
 * Range reads of signed public media (src/web/media-public.ts) and of the owner's files (src/web/media.ts):
 * the range is passed to `MediaStorage.read`, so a range of a large object reads only that range from the
 * store (local disk and S3, the latter through s3rver), never the whole object; a HEAD reads nothing; the
 * public route is under a per-IP limit.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Transform } from "node:stream";
import { after, test } from "node:test";
import S3rver from "s3rver";
import { signedMediaUrl } from "../../src/domain/media/public-url.ts";
import { localDiskStorage, type MediaStorage } from "../../src/providers/storage.ts";
import { s3Storage } from "../../src/providers/storage-s3.ts";
import { browserSession } from "../helpers/browser.ts";
import { startTestApp } from "../helpers/app.ts";

/** A store that records each read's range and counts the bytes its streams yield. */
function spied(inner: MediaStorage) {
  const reads: Array<{ range: { start: number; end: number } | undefined; streamed: number }> = [];
  const storage: MediaStorage = {
    ...inner,
    async read(key, range) {
      const out = await inner.read(key, range);
      const entry = { range, streamed: 0 };
      reads.push(entry);
      const counted = new Transform({
        transform(chunk: Buffer, _enc, done) {
          entry.streamed += chunk.length;
          done(null, chunk);
        },
      });
      out.stream.on("error", (err) => counted.destroy(err));
      return { stream: out.stream.pipe(counted), bytes: out.bytes };
    },
  };
  return { storage, reads };
}

const directory = await mkdtemp(path.join(os.tmpdir(), "smcp-s3rver-"));
const s3 = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: "media", configs: [] }],
});
const info: AddressInfo = await s3.run();
after(() => s3.close());
const stores: Record<string, () => Promise<MediaStorage>> = {
  disk: async () => localDiskStorage(await mkdtemp(path.join(os.tmpdir(), "smcp-range-"))),
  s3: async () =>
    s3Storage({
      bucket: "media",
      endpoint: `http://127.0.0.1:${info.port}`,
      region: "us-east-1",
      forcePathStyle: true,
      client: { credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } },
    }),
};

/** 12 MiB of random bytes: a video-sized object. */
const LARGE = randomBytes(12 * 1024 * 1024);

for (const [name, make] of Object.entries(stores)) {
  test(`${name}: a range read of a large object reads only its range, on the public and the owner's route`, async () => {
    const spy = spied(await make());
    const app = await startTestApp({ queue: false, providers: { storage: spy.storage } });
    const me = await app.user();
    const key = spy.storage.newKey("mp4");
    await spy.storage.putBytes(key, LARGE);
    const [asset] = await app.ctx
      .db("media_assets")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        kind: "video",
        mime_type: "video/mp4",
        bytes: LARGE.length,
        storage_key: key,
        sha256: "0".repeat(64),
        source: "upload",
      })
      .returning("id");
    const url = signedMediaUrl(app.url, app.ctx.keys.encryptionKeys, asset.id, new Date());
    const start = 5 * 1024 * 1024;
    const r = await fetch(url, { headers: { range: `bytes=${start}-${start + 999}` } });
    assert.equal(r.status, 206);
    assert.equal(r.headers.get("content-range"), `bytes ${start}-${start + 999}/${LARGE.length}`);
    assert.deepEqual(Buffer.from(await r.arrayBuffer()), LARGE.subarray(start, start + 1000));
    assert.deepEqual(spy.reads, [{ range: { start, end: start + 999 }, streamed: 1000 }]);

    const head = await fetch(url, { method: "HEAD", headers: { range: "bytes=0-9" } });
    assert.equal(head.status, 206);
    assert.equal(head.headers.get("content-length"), "10");
    assert.equal(spy.reads.length, 1, "a HEAD reads nothing from the store");

    const s = await browserSession(app.ctx, me.user_id);
    const own = await fetch(`${app.url}/media/${asset.id}/file`, {
      headers: { cookie: s.cookie, range: "bytes=100-199" },
    });
    assert.equal(own.status, 206);
    assert.deepEqual(Buffer.from(await own.arrayBuffer()), LARGE.subarray(100, 200));
    assert.deepEqual(spy.reads[1], { range: { start: 100, end: 199 }, streamed: 100 });
    await app.close();
  });
}

test("the public media route is under a per-IP limit (RATE_LIMIT_MEDIA_PUBLIC)", async () => {
  const app = await startTestApp({ queue: false, env: { RATE_LIMIT_MEDIA_PUBLIC: "3" } });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${app.url}/media/public/00000000-0000-4000-8000-000000000000?exp=1&sig=x`);
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  assert.deepEqual(statuses, [404, 404, 404, 429]);
  await app.close();
});
