/**
 * Media file storage: an interface with a local-disk default under config `media.dir` (`./.data/media`)
 * and an S3 implementation (src/providers/storage-s3.ts, `MEDIA_STORAGE=s3`). Keys are opaque, generated
 * by the service (`<uuid>.<ext>`), never user input and never
 * exposed through tools; the database asset id is the public handle.
 */
import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";

export interface MediaStorage {
  /** A new unique key for a file with extension `ext` (e.g. "png"). */
  newKey(ext: string): string;
  /** Moves a finished temporary file (from `tempPath()`) into storage under `key`. */
  putFile(key: string, tempFile: string): Promise<void>;
  /** Writes bytes under `key`. */
  putBytes(key: string, bytes: Uint8Array): Promise<void>;
  /**
   * A read stream of the stored file, or of the inclusive byte `range` of it; `bytes` is the length of what
   * the stream yields. @throws when missing.
   */
  read(key: string, range?: { start: number; end: number }): Promise<{ stream: Readable; bytes: number }>;
  /** Removes the file (no error when missing). */
  remove(key: string): Promise<void>;
  /** A fresh path for an upload in progress, on the same file system as the store. */
  tempPath(): Promise<string>;
  /**
   * A URL anyone can GET the file from for `expiresInSeconds` (S3: a presigned GET). Absent on stores that
   * cannot sign (local disk: the service serves its own signed URLs instead).
   */
  presignedGetUrl?(key: string, expiresInSeconds: number): Promise<string>;
}

const KEY = /^[0-9a-f-]{36}\.[a-z0-9]{1,5}$/;

/** @throws Error when `key` is not a key this service generated (`<uuid>.<ext>`). */
export function assertStorageKey(key: string): void {
  if (!KEY.test(key)) throw new Error("invalid storage key");
}

/** A new unique storage key for a file with extension `ext` (e.g. "jpg"). */
export function newStorageKey(ext: string): string {
  return `${randomUUID()}.${
    ext
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")
      .slice(0, 5) || "bin"
  }`;
}

/** Local-disk storage rooted at `dir` (created on first use). */
export function localDiskStorage(dir: string): MediaStorage {
  const root = path.resolve(dir);
  const tmp = path.join(root, ".tmp");
  const fileOf = (key: string) => {
    assertStorageKey(key);
    return path.join(root, key.slice(0, 2), key);
  };
  return {
    newKey: newStorageKey,
    async putFile(key, tempFile) {
      const target = fileOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(tempFile, target);
    },
    async putBytes(key, bytes) {
      const target = fileOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, bytes, { mode: 0o600 });
    },
    async read(key, range) {
      const file = fileOf(key);
      const info = await stat(file);
      if (!range) return { stream: createReadStream(file), bytes: info.size };
      const end = Math.min(range.end, info.size - 1);
      return { stream: createReadStream(file, { start: range.start, end }), bytes: end - range.start + 1 };
    },
    async remove(key) {
      await rm(fileOf(key), { force: true });
    },
    async tempPath() {
      await mkdir(tmp, { recursive: true });
      return path.join(tmp, `${randomUUID()}.part`);
    },
  };
}
