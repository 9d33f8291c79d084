/**
 * Pinterest video upload (API v5 media): register the upload, then send the file to the returned S3
 * `upload_url` as a `multipart/form-data` POST with every `upload_parameters` field first and the file last
 * (the S3 POST policy form), then read the media status
 * (https://developers.pinterest.com/docs/api/v5/media-create, .../media-get,
 * https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/#creating-video-pins,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html).
 *
 * The file is streamed (never held in memory) with an exact `Content-Length` (S3 refuses chunked POSTs).
 * The `upload_parameters` are a one-time signed policy: they are used at once and never saved.
 */
import type { Media, MediaUploadCreate, MediaUpload as RegisteredUpload } from "./contract.ts";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { SocialHttp } from "../http.ts";
import { type JobMedia, NetworkRejectedError, NetworkTransientError } from "../network.ts";
import { pinterestRequest } from "./api.ts";

/** Timeout of the file POST, seconds (videos up to 2 GB). */
const UPLOAD_TIMEOUT_SECONDS = 1800;

/** Processing states of a registered media (`GET /v5/media/{media_id}`). */
export type MediaStatus = "registered" | "processing" | "succeeded" | "failed";

export interface MediaUpload {
  mediaId: string;
  uploadUrl: string;
  uploadParameters: Record<string, string>;
}

/**
 * `POST /v5/media {media_type: "video"}`: registers an upload (nothing is published by it; an unused
 * registration is simply never attached to a Pin).
 * @throws as `pinterestRequest`; NetworkTransientError when the answer lacks the upload target.
 */
export async function registerVideo(
  http: SocialHttp,
  accessToken: string,
  signal?: AbortSignal,
): Promise<MediaUpload> {
  const register: MediaUploadCreate = { media_type: "video" };
  const r = await pinterestRequest<Partial<RegisteredUpload>>(http, {
    method: "POST",
    path: "/media",
    json: register,
    accessToken,
    signal,
  });
  if (!r.media_id || !r.upload_url)
    throw new NetworkTransientError("Pinterest answered the media registration without an upload target");
  const uploadParameters: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.upload_parameters ?? {})) uploadParameters[k] = String(v);
  return { mediaId: String(r.media_id), uploadUrl: r.upload_url, uploadParameters };
}

/**
 * Sends `video` to the upload target: every upload parameter as a form field, in the order given, then the
 * file as `file`. S3 answers 204 (or 200/201) when the object is stored.
 * @throws NetworkTransientError (no answer, 5xx, or 403: an expired policy; the next step registers again)
 *   | NetworkRejectedError (S3 refused the file itself, e.g. EntityTooLarge).
 */
export async function uploadVideo(
  http: SocialHttp,
  upload: MediaUpload,
  video: JobMedia,
  signal?: AbortSignal,
): Promise<void> {
  const boundary = `----pinterest${randomBytes(12).toString("hex")}`;
  const head = Buffer.from(
    Object.entries(upload.uploadParameters)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join("") +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\n` +
      `Content-Type: ${video.mime || "video/mp4"}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts() {
    yield head;
    for await (const chunk of await video.open()) yield chunk as Buffer;
    yield tail;
  }
  let res: Response;
  let text: string;
  try {
    res = await http.fetch(upload.uploadUrl, {
      method: "POST",
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(head.length + video.bytes + tail.length),
      },
      body: Readable.toWeb(Readable.from(parts())) as ReadableStream,
      duplex: "half",
      signal,
      timeoutSeconds: UPLOAD_TIMEOUT_SECONDS,
    } as RequestInit & { duplex: "half"; timeoutSeconds: number });
    text = await res.text();
  } catch (err) {
    throw new NetworkTransientError(`the Pinterest video upload did not answer (${(err as Error).name})`);
  }
  if (res.ok) return;
  const code = /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1] ?? `HTTP ${res.status}`;
  if (res.status >= 500 || res.status === 403)
    throw new NetworkTransientError(`the Pinterest video upload failed (${code})`);
  throw new NetworkRejectedError(`Pinterest's upload storage refused the video (${code}).`);
}

/** `GET /v5/media/{media_id}`: the processing status of an upload. @throws as `pinterestRequest`. */
export async function mediaStatus(
  http: SocialHttp,
  accessToken: string,
  mediaId: string,
  signal?: AbortSignal,
): Promise<MediaStatus> {
  const r = await pinterestRequest<Partial<Media>>(http, {
    method: "GET",
    path: `/media/${encodeURIComponent(mediaId)}`,
    accessToken,
    signal,
  });
  return r.status ?? "registered";
}
