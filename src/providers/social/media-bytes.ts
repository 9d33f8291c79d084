/**
 * Reading a post's media bytes for push uploads (networks that take the bytes in the request rather than
 * pulling a URL: X media upload, LinkedIn image and video parts; chunked uploads read one byte range per request).
 */
import type { JobMedia } from "./network.ts";
import { NetworkTransientError } from "./network.ts";

/**
 * Bytes `first..last` (inclusive, byte offsets) of `media`, read through `media.open(range)`.
 * @throws NetworkTransientError when the stored file ends before `last` (a storage hiccup: retried).
 */
export async function readMediaRange(media: JobMedia, first: number, last: number): Promise<Buffer> {
  const stream = await media.open({ start: first, end: last });
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  const buf = Buffer.concat(parts);
  const want = last - first + 1;
  if (buf.length < want)
    throw new NetworkTransientError(`the media file ended early (${buf.length} of ${want} bytes)`);
  return buf.length === want ? buf : buf.subarray(0, want);
}

/** All bytes of `media` (`media.bytes` of them). @throws NetworkTransientError as `readMediaRange`. */
export function readMediaBytes(media: JobMedia): Promise<Buffer> {
  return readMediaRange(media, 0, media.bytes - 1);
}
