/**
 * The FILE_UPLOAD chunk plan of the TikTok Content Posting API (networks.md 2.1;
 * https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide): a video under 5 MB goes as one
 * chunk of its size; otherwise chunks are 5 to 64 MB, `total_chunk_count = floor(video_size / chunk_size)`,
 * the remainder joins the last chunk (at most 128 MB), at most 1000 chunks. Sizes in bytes.
 */

const MB = 1024 * 1024;
export const MIN_CHUNK_BYTES = 5 * MB;
export const MAX_CHUNK_BYTES = 64 * MB;
export const MAX_LAST_CHUNK_BYTES = 128 * MB;
export const MAX_CHUNKS = 1000;
/** The chunk size we prefer: small enough to hold in memory, large enough for few requests. */
export const PREFERRED_CHUNK_BYTES = 10 * MB;

export interface ChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
}

/**
 * The plan for a video of `videoSize` bytes.
 * @throws RangeError when the video is empty or too large for 1000 chunks of 64 MB.
 */
export function chunkPlan(videoSize: number): ChunkPlan {
  if (!Number.isInteger(videoSize) || videoSize <= 0)
    throw new RangeError("video_size must be a positive integer");
  if (videoSize < MIN_CHUNK_BYTES || videoSize < PREFERRED_CHUNK_BYTES) {
    return { videoSize, chunkSize: videoSize, totalChunkCount: 1 };
  }
  const chunkSize = Math.max(PREFERRED_CHUNK_BYTES, Math.ceil(videoSize / MAX_CHUNKS));
  if (chunkSize > MAX_CHUNK_BYTES)
    throw new RangeError("the video is too large for TikTok's 1000 chunks of 64 MB");
  return { videoSize, chunkSize, totalChunkCount: Math.floor(videoSize / chunkSize) };
}

/** The inclusive byte range of chunk `index` (0-based) of `plan`. */
export function chunkRange(plan: ChunkPlan, index: number): { first: number; last: number } {
  const first = index * plan.chunkSize;
  const last = index === plan.totalChunkCount - 1 ? plan.videoSize - 1 : first + plan.chunkSize - 1;
  return { first, last };
}
