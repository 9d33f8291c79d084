/**
 * Media storage on any S3-compatible object store (`MEDIA_STORAGE=s3`): AWS S3, MinIO, Ceph, R2, or s3rver
 * in tests. Same contract as the local disk (src/providers/storage.ts), so every instance of the service
 * sees every file: objects under the opaque key (`<uuid>.<ext>`), uploads in progress as local temporary
 * files (one request's stream lands on the local disk, then goes up once complete), large files sent by
 * multipart upload (@aws-sdk/lib-storage, 8 MiB parts, 4 at a time). Public URLs for the networks are
 * presigned GETs (@aws-sdk/s3-request-presigner, SigV4, `expiresInSeconds`). Credentials and region come
 * from the standard AWS variables and files (the SDK's default chain); nothing secret is stored here.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/ShareObjectPreSignedURL.html
 */
import { createReadStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { randomUUID } from "node:crypto";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { assertStorageKey, type MediaStorage, newStorageKey } from "./storage.ts";

export interface S3StorageOptions {
  bucket: string;
  /** An S3-compatible endpoint (`http://127.0.0.1:4569`); unset for AWS itself. */
  endpoint?: string | undefined;
  region: string;
  /** Path-style addressing (`{endpoint}/{bucket}/{key}`), needed by most self-hosted stores. */
  forcePathStyle: boolean;
  /** Directory for uploads in progress (default: the OS temp dir). */
  tempDir?: string;
  /** Extra client settings (tests pass static credentials). */
  client?: Partial<S3ClientConfig>;
}

/** Multipart part size in bytes (S3's minimum is 5 MiB). */
const PART_SIZE = 8 * 1024 * 1024;

/** An S3-backed MediaStorage. Errors of the store propagate as the SDK's errors (`read` of a missing key too). */
export function s3Storage(options: S3StorageOptions): MediaStorage {
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...options.client,
  });
  const bucket = options.bucket;
  const tmp = options.tempDir ?? path.join(os.tmpdir(), "social-mcp-uploads");
  return {
    newKey: newStorageKey,
    async putFile(key, tempFile) {
      assertStorageKey(key);
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: createReadStream(tempFile) },
        partSize: PART_SIZE,
        queueSize: 4,
      });
      await upload.done();
      await rm(tempFile, { force: true });
    },
    async putBytes(key, bytes) {
      assertStorageKey(key);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes }));
    },
    async read(key, range) {
      assertStorageKey(key);
      const out = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return { stream: out.Body as Readable, bytes: Number(out.ContentLength ?? 0) };
    },
    async remove(key) {
      assertStorageKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (err) {
        if (!(err instanceof NoSuchKey)) throw err;
      }
    },
    async tempPath() {
      await mkdir(tmp, { recursive: true });
      return path.join(tmp, `${randomUUID()}.part`);
    },
    async presignedGetUrl(key, expiresInSeconds) {
      assertStorageKey(key);
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), {
        expiresIn: expiresInSeconds,
      });
    },
  };
}
