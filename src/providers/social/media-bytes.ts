/**
 * Reading a delivery's media bytes for push uploads (LinkedIn image and video parts): a whole file, or one
 * inclusive byte range of it, through `JobMedia.open` (./network.ts). Sizes and offsets in bytes.
 */
import type { JobMedia } from "./network.ts";
import { NetworkTransientError } from "./network.ts";

/**
 * Bytes `first..last` (inclusive) of `media`.
 * @throws NetworkTransientError when the stored file ends before `last` (storage hiccup: retried later).
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
