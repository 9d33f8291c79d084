/**
 * The MediaStorage contract (src/providers/storage.ts), run against every implementation: local disk and
 * S3 (through s3rver). Each case writes, reads, range-reads and removes real bytes.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { test } from "node:test";
import type { MediaStorage } from "../../src/providers/storage.ts";

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

/** Registers the contract's tests for `name`; `storage()` is awaited inside each test. */
export function storageContract(name: string, storage: () => Promise<MediaStorage>): void {
  test(`${name}: putBytes then read returns the same bytes and length`, async () => {
    const s = await storage();
    const key = s.newKey("JPG");
    assert.match(key, /^[0-9a-f-]{36}\.jpg$/);
    const bytes = randomBytes(64 * 1024);
    await s.putBytes(key, bytes);
    const { stream, bytes: n } = await s.read(key);
    assert.equal(n, bytes.length);
    assert.deepEqual(await collect(stream), bytes);
  });

  test(`${name}: a byte range reads exactly those bytes (inclusive end)`, async () => {
    const s = await storage();
    const key = s.newKey("mp4");
    const bytes = randomBytes(10_000);
    await s.putBytes(key, bytes);
    const { stream, bytes: n } = await s.read(key, { start: 100, end: 1099 });
    assert.equal(n, 1000);
    assert.deepEqual(await collect(stream), bytes.subarray(100, 1100));
  });

  test(`${name}: putFile moves a finished temporary file into storage`, async () => {
    const s = await storage();
    const temp = await s.tempPath();
    const bytes = randomBytes(9 * 1024 * 1024 + 17);
    await writeFile(temp, bytes);
    const key = s.newKey("mp4");
    await s.putFile(key, temp);
    assert.equal(existsSync(temp), false, "the temporary file is gone");
    const { stream, bytes: n } = await s.read(key);
    assert.equal(n, bytes.length);
    assert.deepEqual(await collect(stream), bytes);
  });

  test(`${name}: remove deletes the file, twice without error; reading it then fails`, async () => {
    const s = await storage();
    const key = s.newKey("png");
    await s.putBytes(key, Buffer.from("x"));
    await s.remove(key);
    await s.remove(key);
    await assert.rejects(async () => collect((await s.read(key)).stream));
  });

  test(`${name}: keys that the service did not generate are refused`, async () => {
    const s = await storage();
    for (const bad of ["../etc/passwd", "a.jpg", "00000000-0000-0000-0000-000000000000.jpg/../x", ""]) {
      await assert.rejects(() => s.putBytes(bad, Buffer.from("x")), /invalid storage key/);
      await assert.rejects(() => s.read(bad), /invalid storage key/);
    }
  });
}
