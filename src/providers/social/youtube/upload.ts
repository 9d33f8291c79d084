/**
 * The resumable upload protocol of `videos.insert`
 * (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * 1. `POST https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with
 *    the video resource as JSON and `X-Upload-Content-Length` / `X-Upload-Content-Type`; the session URI
 *    comes back in the `Location` header (`startUploadSession`);
 * 2. `PUT {session}` of each chunk with `Content-Range: bytes first-last/total`; every chunk but the last is
 *    a multiple of 256 KiB (`CHUNK_BYTES` = 8 MiB). `308 Resume Incomplete` with `Range: bytes=0-N` says what
 *    arrived (no `Range`: nothing); `200`/`201` carries the new video resource (`sendChunk`);
 * 3. `PUT {session}` with an empty body and `Content-Range: bytes *\/total` asks where the upload stands: the
 *    same answers (`querySession`). A session that is gone (404/410: expired or closed) must be started over.
 * Sizes and offsets are bytes; the session URI is used as Google returned it (absolute).
 */
import { NetworkTransientError } from "../network.ts";
import { type YouTubeAnswer, type YouTubeDeps, YT_UPLOAD_URL, youtubeRequest } from "./api.ts";

/** Bytes per PUT: 8 MiB (a multiple of the protocol's 256 KiB granule). */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** Every chunk but the last must be a multiple of this, bytes. */
export const CHUNK_GRANULE_BYTES = 256 * 1024;
/** Timeout of one chunk PUT, seconds. */
export const CHUNK_TIMEOUT_SECONDS = 120;

/** A video resource as `videos.insert` / `videos.list` return it (the parts this adapter reads). */
export interface VideoResource {
  id?: string;
  snippet?: { title?: string; description?: string; publishedAt?: string; channelId?: string };
  status?: {
    uploadStatus?: "uploaded" | "processed" | "failed" | "rejected" | "deleted";
    failureReason?: string;
    rejectionReason?: string;
    privacyStatus?: string;
  };
  processingDetails?: {
    processingStatus?: "processing" | "succeeded" | "failed" | "terminated";
    processingFailureReason?: string;
  };
}

/** Where a session stands. */
export type SessionState =
  | { kind: "complete"; videoId: string }
  | { kind: "incomplete"; received: number }
  | { kind: "gone" };

/** The `videos.insert` metadata sent when the session starts. */
export interface InsertMetadata {
  snippet: { title: string; description: string };
  status: { privacyStatus: string; selfDeclaredMadeForKids: boolean };
}

interface SessionCall {
  accessToken: string;
  signal?: AbortSignal | undefined;
}

/**
 * Starts a resumable session for `bytes` bytes of type `mime` (the `videos.insert` call: it spends the
 * upload quota; a quota answer fails the delivery, see ./api.ts).
 * @returns the session URI.
 * @throws the errors of `youtubeRequest`; NetworkTransientError when Google answers without a Location.
 */
export async function startUploadSession(
  deps: YouTubeDeps,
  call: SessionCall & { bytes: number; mime: string; metadata: InsertMetadata },
): Promise<string> {
  const r = await youtubeRequest(deps, {
    method: "POST",
    path: YT_UPLOAD_URL,
    query: { uploadType: "resumable", part: "snippet,status" },
    json: call.metadata,
    headers: { "x-upload-content-length": String(call.bytes), "x-upload-content-type": call.mime },
    accessToken: call.accessToken,
    quota: "fail",
    signal: call.signal,
  });
  const location = r.headers.get("location");
  if (!location) throw new NetworkTransientError("YouTube answered the upload request without a session URI");
  return location;
}

/**
 * Asks the session how many of `total` bytes arrived (`Content-Range: bytes *\/total`).
 * @throws the errors of `youtubeRequest` (5xx and lost answers: transient; a lost answer here changes
 *   nothing on YouTube's side).
 */
export async function querySession(
  deps: YouTubeDeps,
  call: SessionCall & { uri: string; total: number },
): Promise<SessionState> {
  const r = await youtubeRequest<VideoResource>(deps, {
    method: "PUT",
    path: call.uri,
    body: new Uint8Array(0),
    headers: { "content-range": `bytes */${call.total}` },
    accessToken: call.accessToken,
    accept: [308, 404, 410],
    signal: call.signal,
  });
  return sessionState(r, false);
}

/**
 * Sends `bytes` starting at byte `first` of `total`. `final`: this chunk ends the file, so its answer
 * carries the new video (a lost answer is then `NetworkTransientError` with `afterCreate`).
 */
export async function sendChunk(
  deps: YouTubeDeps,
  call: SessionCall & {
    uri: string;
    total: number;
    first: number;
    bytes: Buffer;
    mime: string;
    final: boolean;
  },
): Promise<SessionState> {
  const last = call.first + call.bytes.length - 1;
  const r = await youtubeRequest<VideoResource>(deps, {
    method: "PUT",
    path: call.uri,
    body: new Uint8Array(call.bytes),
    headers: { "content-type": call.mime, "content-range": `bytes ${call.first}-${last}/${call.total}` },
    accessToken: call.accessToken,
    create: call.final,
    accept: [308, 404, 410],
    timeoutSeconds: CHUNK_TIMEOUT_SECONDS,
    signal: call.signal,
  });
  return sessionState(r, call.final);
}

/** Reads a session answer: 200/201 + video, 308 + Range, 404/410. */
function sessionState(r: YouTubeAnswer<VideoResource>, afterCreate: boolean): SessionState {
  if (r.status === 404 || r.status === 410) return { kind: "gone" };
  if (r.status === 308) {
    const m = /^bytes=(\d+)-(\d+)$/.exec(r.headers.get("range")?.trim() ?? "");
    return { kind: "incomplete", received: m ? Number(m[2]) + 1 : 0 };
  }
  if (!r.body?.id)
    throw new NetworkTransientError("YouTube finished the upload without returning the video", afterCreate);
  return { kind: "complete", videoId: r.body.id };
}
