/**
 * The S3 adapter (src/providers/storage-s3.ts) against s3rver, an S3-compatible server started here on a
 * loopback port (no Docker): the same contract as the local disk, plus presigned GET URLs.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import S3rver from "s3rver";
import { loadConfig } from "../../src/config/index.ts";
import { buildProviders } from "../../src/providers/providers.ts";
import { s3Storage } from "../../src/providers/storage-s3.ts";
import { storageContract } from "./storage.contract.ts";

const directory = await mkdtemp(path.join(os.tmpdir(), "smcp-s3rver-"));
const server = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: "media", configs: [] }],
});
const info: AddressInfo = await server.run();
after(() => server.close());
const endpoint = `http://127.0.0.1:${info.port}`;
const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
const storage = s3Storage({
  bucket: "media",
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  client: { credentials },
});

storageContract("s3", async () => storage);

test("s3: a presigned GET URL (SigV4, the requested expiry) serves the object without credentials", async () => {
  const key = storage.newKey("jpg");
  await storage.putBytes(key, Buffer.from("presigned bytes"));
  const url = await storage.presignedGetUrl!(key, 60);
  assert.ok(url.startsWith(`${endpoint}/media/${key}?`));
  assert.match(url, /X-Amz-Expires=60/);
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "presigned bytes");
  // s3rver serves presigned GETs but does not verify their signatures, so only the shape is checked here;
  // the SigV4 signing itself is the AWS SDK's.
  const params = new URL(url).searchParams;
  assert.equal(params.get("X-Amz-Algorithm"), "AWS4-HMAC-SHA256");
  assert.match(params.get("X-Amz-Credential") ?? "", /^S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request$/);
  assert.match(params.get("X-Amz-Signature") ?? "", /^[0-9a-f]{64}$/);
});

test("MEDIA_STORAGE=s3 selects the S3 adapter; S3_BUCKET is then required", () => {
  assert.throws(() => loadConfig({ MEDIA_STORAGE: "s3" }), /S3_BUCKET/);
  const config = loadConfig({ MEDIA_STORAGE: "s3", S3_BUCKET: "media", S3_ENDPOINT: endpoint });
  assert.deepEqual(config.media.s3, { bucket: "media", endpoint, region: "us-east-1", forcePathStyle: true });
  const providers = buildProviders(config);
  assert.equal(typeof providers.storage.presignedGetUrl, "function");
  assert.equal(typeof buildProviders(loadConfig({})).storage.presignedGetUrl, "undefined");
});
