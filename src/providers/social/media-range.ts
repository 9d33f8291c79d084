/**
 * Reading one byte range of a post's media into memory, for adapters that push bytes in chunks (YouTube's
 * resumable upload; any chunked upload protocol). Sizes and offsets are bytes.
 */
import type { JobMedia } from "./network.ts";
import { NetworkTransientError } from "./network.ts";

/**
 * Bytes `first..last` (inclusive, 0-based) of `media`, read through `media.open({start, end})`.
 * @throws NetworkTransientError when the stored file ends before `last` (the step is tried again later).
 */
export async function readMediaRange(media: JobMedia, first: number, last: number): Promise<Buffer> {
  const stream = await media.open({ start: first, end: last });
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  const buf = Buffer.concat(parts);
  const want = last - first + 1;
  if (buf.length < want)
    throw new NetworkTransientError(`the video file ended early (${buf.length} of ${want} bytes)`);
  return buf.length === want ? buf : buf.subarray(0, want);
}
