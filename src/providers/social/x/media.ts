/**
 * X media upload (API v2) for a post's images or video, resumable from the saved ids.
 *
 * Endpoints (https://docs.x.com/x-api/media/upload-media, .../media/initialize-media-upload,
 * .../media/append-media-upload, .../media/finalize-media-upload, .../media/get-media-upload-status,
 * .../media/quickstart/best-practices):
 * - image: `POST /2/media/upload` multipart (`media` = the bytes, `media_category=tweet_image`,
 *   `media_type`) -> `{data:{id, media_key, size, expires_after_secs}}`;
 * - video: `POST /2/media/upload/initialize` JSON `{media_type, total_bytes, media_category:"tweet_video"}`
 *   -> `{data:{id, media_key, expires_after_secs}}`; then `POST /2/media/upload/{id}/append` multipart
 *   (`media` = one segment, `segment_index` 0..999) for each segment; then
 *   `POST /2/media/upload/{id}/finalize` -> `{data:{..., processing_info?}}`; while `processing_info` is
 *   present and not `succeeded`, `GET /2/media/upload?command=STATUS&media_id={id}` after
 *   `check_after_secs` (`pending` -> `in_progress` -> `succeeded` | `failed` with `error.message`).
 *   The API reference and the best-practices page use these dedicated paths; the chunked quickstart page
 *   still shows the older single-path form (`POST /2/media/upload` with `command=INIT|APPEND|FINALIZE`).
 *
 * - alt text: `POST /2/media/metadata {id, metadata:{alt_text:{text}}}` for each image that has one
 *   (https://docs.x.com/x-api/media/metadata-create), once its media id exists; the same field carries a
 *   video's description once the video is processed (the v2 reference takes `alt_text` for any media id:
 *   "Description of media", at most 1,000 characters).
 *
 * Saved ids (`MediaIds`): image ids and media keys in post order as each upload returns, how many images had
 * their alt text sent; the video's media
 * id, key and expiry right after INIT, the count of appended segments after each APPEND (a restarted worker
 * resumes at the next segment), and its state. Media ids expire (`expires_after_secs`, about 24 h): an
 * expired id is not resumed, the upload starts over.
 */
import type { MediaUploadData, MediaUploadInitialize } from "./contract.ts";
import { readMediaRange } from "../media-bytes.ts";
import {
  type DeliveryJob,
  type JobMedia,
  NetworkRejectedError,
  NetworkTransientError,
  type StepResult,
} from "../network.ts";
import type { SocialHttp } from "../http.ts";
import { xRequest } from "./api.ts";

const MiB = 1024 * 1024;
/** Size of one APPEND segment, bytes (more when a video needs it to stay within `MAX_SEGMENTS`). */
export const SEGMENT_BYTES = 4 * MiB;
/** `segment_index` runs 0..999. */
export const MAX_SEGMENTS = 1000;
/** Lifetime assumed when X gives no `expires_after_secs`, seconds. */
const DEFAULT_LIFETIME_SECONDS = 86_400;
/** A media id this close to its expiry is not used any more (the post could not be created in time), seconds. */
const EXPIRY_MARGIN_SECONDS = 600;
/** Poll interval when X's `processing_info` has no `check_after_secs`, seconds. */
export const DEFAULT_CHECK_AFTER_SECONDS = 5;

/** The upload state saved with the delivery (see the module comment). */
export interface MediaIds {
  imageMediaIds?: string[];
  imageMediaKeys?: string[];
  /** ISO time the first of the uploaded images expires. */
  imagesExpireAt?: string;
  /** Images 0..altTextsSent-1 had their alt text sent (or have none). */
  altTextsSent?: number;
  videoMediaId?: string;
  videoMediaKey?: string;
  /** ISO time the video's media id expires. */
  videoExpiresAt?: string;
  segmentBytes?: number;
  segmentCount?: number;
  /** Segments 0..segmentsSent-1 were appended. */
  segmentsSent?: number;
  videoState?: "uploading" | "processing" | "ready";
  /** The video's description was sent as its `alt_text` (or it has none). */
  videoDescriptionSent?: boolean;
}

/**
 * A media upload answer's `data` as the description types it. `processing_info.error` is in neither of X's
 * v2 descriptions (X's v1.1 media reference names it): read only when present.
 */
type UploadAnswer = Partial<MediaUploadData> & {
  processing_info?: MediaUploadData["processing_info"] & {
    error?: { code?: number; name?: string; message?: string };
  };
};

/** The media ready to attach, or the step result to return while they are not. */
export type MediaOutcome =
  | { ready: true; mediaIds: string[]; mediaKeys: string[] }
  | { ready: false; result: StepResult };

interface Ctx {
  http: SocialHttp;
  job: DeliveryJob;
  now: () => Date;
  ids: MediaIds;
  saveIds: (patch: MediaIds) => Promise<void>;
}

/** The segment plan of a video of `totalBytes`: `SEGMENT_BYTES` each, larger when over 1000 segments. */
export function segmentPlan(totalBytes: number): { segmentBytes: number; segmentCount: number } {
  const segmentBytes = Math.max(SEGMENT_BYTES, Math.ceil(totalBytes / MAX_SEGMENTS));
  return { segmentBytes, segmentCount: Math.max(1, Math.ceil(totalBytes / segmentBytes)) };
}

/**
 * Uploads what is missing of the post's media (all images in one step; a video over several steps: INIT,
 * then APPEND + FINALIZE, then STATUS polls) and says whether the media ids are ready to attach.
 * @throws NetworkAuthError | NetworkRateLimitError | NetworkRejectedError | NetworkTransientError
 */
export async function prepareMedia(ctx: Ctx): Promise<MediaOutcome> {
  const media = ctx.job.post.media;
  const video = media.find((m) => m.kind === "video");
  if (video) return prepareVideo(ctx, video);
  return prepareImages(ctx, media);
}

const expiresAt = (now: Date, seconds: number | undefined) =>
  new Date(
    now.getTime() + (seconds && seconds > 0 ? seconds : DEFAULT_LIFETIME_SECONDS) * 1000,
  ).toISOString();

const expired = (now: Date, at: string | undefined) =>
  at !== undefined && Date.parse(at) - EXPIRY_MARGIN_SECONDS * 1000 <= now.getTime();

async function prepareImages(ctx: Ctx, images: JobMedia[]): Promise<MediaOutcome> {
  const { ids, job } = ctx;
  let mediaIds = ids.imageMediaIds ?? [];
  let mediaKeys = ids.imageMediaKeys ?? [];
  let firstExpiry = ids.imagesExpireAt;
  if (mediaIds.length > 0 && expired(ctx.now(), firstExpiry)) {
    mediaIds = [];
    mediaKeys = [];
    firstExpiry = undefined;
  }
  for (let i = mediaIds.length; i < images.length; i++) {
    const image = images[i]!;
    const form = new FormData();
    // `media` and `media_category` only: X's 2026-07 description takes no `media_type` here (the bytes say
    // it), so the request is valid against both of X's descriptions (test/contracts/x-*.json).
    form.append("media_category", "tweet_image");
    const bytes = await readMediaRange(image, 0, image.bytes - 1);
    form.append("media", new Blob([new Uint8Array(bytes)], { type: image.mime }), `image-${i + 1}`);
    const r = await xRequest<UploadAnswer>(
      ctx.http,
      {
        method: "POST",
        path: "/2/media/upload",
        body: form,
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
        timeoutSeconds: 120,
      },
      ctx.now,
    );
    if (!r.data?.id) throw new NetworkTransientError("X answered the image upload without a media id");
    const expiry = expiresAt(ctx.now(), r.data.expires_after_secs);
    mediaIds = [...mediaIds, r.data.id];
    mediaKeys = [...mediaKeys, r.data.media_key ?? ""];
    firstExpiry = firstExpiry && firstExpiry < expiry ? firstExpiry : expiry;
    await ctx.saveIds({
      imageMediaIds: mediaIds,
      imageMediaKeys: mediaKeys,
      imagesExpireAt: firstExpiry,
      ...(i === 0 ? { altTextsSent: 0 } : {}),
    });
  }
  // Alt text: `POST /2/media/metadata {id, metadata:{alt_text:{text}}}` per image that has one
  // (https://docs.x.com/x-api/media/metadata-create; at most 1,000 characters, rules.ts `altText`).
  for (let i = ids.altTextsSent ?? 0; i < images.length; i++) {
    const text = images[i]!.altText;
    if (text)
      await xRequest(
        ctx.http,
        {
          method: "POST",
          path: "/2/media/metadata",
          json: { id: mediaIds[i], metadata: { alt_text: { text } } },
          accessToken: job.account.tokens.accessToken,
          signal: job.signal,
        },
        ctx.now,
      );
    await ctx.saveIds({ altTextsSent: i + 1 });
  }
  return { ready: true, mediaIds, mediaKeys };
}

async function prepareVideo(ctx: Ctx, video: JobMedia): Promise<MediaOutcome> {
  const { ids, job } = ctx;
  const token = job.account.tokens.accessToken;
  if (!ids.videoMediaId || expired(ctx.now(), ids.videoExpiresAt)) {
    const plan = segmentPlan(video.bytes);
    const r = await xRequest<UploadAnswer>(
      ctx.http,
      {
        method: "POST",
        path: "/2/media/upload/initialize",
        json: {
          media_type: (video.mime || "video/mp4") as MediaUploadInitialize["media_type"],
          total_bytes: video.bytes,
          media_category: "tweet_video",
        } satisfies MediaUploadInitialize,
        accessToken: token,
        signal: job.signal,
      },
      ctx.now,
    );
    if (!r.data?.id) throw new NetworkTransientError("X answered the video upload without a media id");
    await ctx.saveIds({
      videoMediaId: r.data.id,
      videoMediaKey: r.data.media_key ?? "",
      videoExpiresAt: expiresAt(ctx.now(), r.data.expires_after_secs),
      segmentBytes: plan.segmentBytes,
      segmentCount: plan.segmentCount,
      segmentsSent: 0,
      videoState: "uploading",
      videoDescriptionSent: false,
    });
    return { ready: false, result: { state: "uploading", pollAfterSeconds: 0 } };
  }
  const id = ids.videoMediaId;
  let answer: UploadAnswer | undefined;
  if (ids.videoState === "uploading") {
    const count = ids.segmentCount ?? 1;
    const size = ids.segmentBytes ?? SEGMENT_BYTES;
    for (let i = ids.segmentsSent ?? 0; i < count; i++) {
      const first = i * size;
      const last = Math.min(video.bytes, first + size) - 1;
      const form = new FormData();
      form.append("segment_index", String(i));
      const bytes = await readMediaRange(video, first, last);
      form.append(
        "media",
        new Blob([new Uint8Array(bytes)], { type: "application/octet-stream" }),
        "segment",
      );
      await xRequest(
        ctx.http,
        {
          method: "POST",
          path: `/2/media/upload/${encodeURIComponent(id)}/append`,
          body: form,
          accessToken: token,
          signal: job.signal,
          timeoutSeconds: 300,
        },
        ctx.now,
      );
      await ctx.saveIds({ segmentsSent: i + 1 });
    }
    const r = await xRequest<UploadAnswer>(
      ctx.http,
      {
        method: "POST",
        path: `/2/media/upload/${encodeURIComponent(id)}/finalize`,
        accessToken: token,
        signal: job.signal,
      },
      ctx.now,
    );
    answer = r.data ?? {};
  } else if (ids.videoState === "processing") {
    const r = await xRequest<UploadAnswer>(
      ctx.http,
      {
        method: "GET",
        path: "/2/media/upload",
        query: { command: "STATUS", media_id: id },
        accessToken: token,
        signal: job.signal,
      },
      ctx.now,
    );
    answer = r.data ?? {};
  }
  if (answer) {
    const info = answer.processing_info;
    if (info?.state === "failed") {
      const why = info.error?.message ?? info.error?.name ?? "no reason given";
      return { ready: false, result: { state: "failed", reason: `X could not process the video (${why}).` } };
    }
    const expiry = answer.expires_after_secs ? expiresAt(ctx.now(), answer.expires_after_secs) : undefined;
    if (info && info.state !== "succeeded") {
      await ctx.saveIds({ videoState: "processing", ...(expiry ? { videoExpiresAt: expiry } : {}) });
      return {
        ready: false,
        result: {
          state: "processing",
          pollAfterSeconds: info.check_after_secs ?? DEFAULT_CHECK_AFTER_SECONDS,
        },
      };
    }
    await ctx.saveIds({ videoState: "ready", ...(expiry ? { videoExpiresAt: expiry } : {}) });
  }
  if (ctx.ids.videoState !== "ready")
    throw new NetworkRejectedError("the X video upload is in an unknown state");
  // The video's description as its alt text (rules.ts `videoDescription`), once, on the processed media id.
  // A definite refusal of the description alone (4xx) does not hold the post back: the video goes without it.
  if (video.altText && !ctx.ids.videoDescriptionSent) {
    try {
      await xRequest(
        ctx.http,
        {
          method: "POST",
          path: "/2/media/metadata",
          json: { id, metadata: { alt_text: { text: video.altText } } },
          accessToken: token,
          signal: job.signal,
        },
        ctx.now,
      );
    } catch (err) {
      if (!(err instanceof NetworkRejectedError)) throw err;
    }
    await ctx.saveIds({ videoDescriptionSent: true });
  }
  return { ready: true, mediaIds: [id], mediaKeys: [ctx.ids.videoMediaKey ?? ""] };
}
