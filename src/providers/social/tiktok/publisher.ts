/**
 * TikTok Direct Post through the Content Posting API (networks.md 2.1;
 * https://developers.tiktok.com/doc/content-posting-api-reference-direct-post, .../media-transfer-guide,
 * .../content-posting-api-reference-photo-post, .../content-posting-api-reference-get-video-status):
 * - video: `POST /v2/post/publish/video/init/` with FILE_UPLOAD and the chunk plan (./chunks.ts), then
 *   `PUT` each chunk in order to the returned `upload_url` with `Content-Range`;
 * - photos: `POST /v2/post/publish/content/init/` with PULL_FROM_URL (signed public JPEG URLs, whose URL
 *   prefix `{PUBLIC_BASE_URL}/media/public/` must be verified for the TikTok app: else the delivery fails
 *   naming it, `url_ownership_unverified`),
 *   `media_type=PHOTO`, `post_mode=DIRECT_POST`;
 * - then `POST /v2/post/publish/status/fetch/` until PUBLISH_COMPLETE or FAILED (`fail_reason`). The public
 *   post id (`publicaly_available_post_id`) can arrive after PUBLISH_COMPLETE (moderation): polling goes on at
 *   a slower pace without failing; a SELF_ONLY post never gets one and is published at the creator's profile.
 *
 * Creator options come from the review page (./options.ts), stored with the delivery; a delivery without
 * them is refused (spec 1.11: no TikTok post without the creator's choices and consent).
 * Saved ids: `publishId`, `uploadUrl`, `chunkSize`, `totalChunkCount`, `chunksSent`, `completedAt`.
 */
import type { SocialHttp } from "../http.ts";
import { readMediaRange } from "../media-bytes.ts";
import {
  type DeliveryJob,
  type JobMedia,
  type NetworkPublisher,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  trackedIds,
  type StepResult,
} from "../network.ts";
import { rawIdList, TikTokRejectedError, tiktokRequest } from "./api.ts";
import { chunkPlan, chunkRange } from "./chunks.ts";
import { readTikTokOptions, type TikTokPostOptions } from "./options.ts";

/** Seconds between status polls while TikTok processes the post. */
export const STATUS_POLL_SECONDS = 5;
/** Seconds between polls once complete but the public post id has not arrived (moderation). */
export const POST_ID_POLL_SECONDS = 60;
/** After this long without a public id, the post is recorded at the creator's profile, seconds. */
export const POST_ID_PATIENCE_SECONDS = 24 * 3600;

interface Ids {
  publishId?: string;
  uploadUrl?: string;
  chunkSize?: number;
  totalChunkCount?: number;
  chunksSent?: number;
  completedAt?: string;
}

interface StatusData {
  status?: string;
  fail_reason?: string;
}

/** The TikTok publisher; requests go through `http` (../http.ts), `now` is the service clock. */
export function tiktokPublisher(http: SocialHttp, now: () => Date): NetworkPublisher {
  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      const options = readTikTokOptions(job.post.options);
      if (!options) {
        return {
          state: "failed",
          reason: "TikTok posts need the creator's choices and consent on the review page (/review).",
        };
      }
      const media = job.post.media;
      const video = media.find((m) => m.kind === "video");
      if (!ids.publishId) {
        if (video) {
          await initCall(() => initVideo(http, job, video, options, saveIds));
          return { state: "uploading", pollAfterSeconds: 0 };
        }
        if (media.length === 0) throw new NetworkRejectedError("TikTok posts need a video or photos.");
        try {
          await initCall(() => initPhotos(http, job, media, options, saveIds));
        } catch (err) {
          if (!(err instanceof TikTokRejectedError && err.code === "url_ownership_unverified")) throw err;
          return { state: "failed", reason: unverifiedPrefixReason(media[0]!.publicUrl()) };
        }
        return { state: "processing", pollAfterSeconds: STATUS_POLL_SECONDS };
      }
      if (video && (ids.chunksSent ?? 0) < (ids.totalChunkCount ?? 0)) {
        await uploadChunks(http, job, video, ids, saveIds);
        return { state: "processing", pollAfterSeconds: STATUS_POLL_SECONDS };
      }
      return status(http, job, ids, options, saveIds, now);
    },

    async reconcile(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      const options = readTikTokOptions(job.post.options);
      const video = job.post.media.some((m) => m.kind === "video");
      if (!ids.publishId) {
        // A video init whose answer was lost has no upload, so it can never be posted: safe to init again.
        if (video || !options) return { state: "not_created" };
        return {
          state: "failed",
          reason:
            "TikTok did not confirm the photo post and it cannot be looked up; check the TikTok profile before posting it again.",
        };
      }
      if (video && (ids.chunksSent ?? 0) < (ids.totalChunkCount ?? 0)) return { state: "not_created" };
      if (!options) return { state: "not_created" };
      return status(http, job, ids, options, saveIds, now);
    },

    startWindow: INIT_WINDOW,
  };
}

function postInfo(options: TikTokPostOptions): Record<string, unknown> {
  return {
    title: options.title,
    privacy_level: options.privacy_level,
    disable_comment: options.disable_comment,
    brand_content_toggle: options.brand_content_toggle,
    brand_organic_toggle: options.brand_organic_toggle,
  };
}

/**
 * The init endpoints' budget: each user access token 6 requests a minute
 * (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post), counted over a sliding
 * minute (https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit), with no header saying when a call is
 * free again.
 */
export const INIT_WINDOW = { calls: 6, seconds: 60 } as const;

/**
 * Runs a post's init call. Its rate limit is the init endpoints' own (each user access token 6 requests a
 * minute: https://developers.tiktok.com/doc/content-posting-api-reference-direct-post; the other endpoints
 * have theirs: https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit), so a 429 says that only the
 * account's posts not started yet wait (NetworkRateLimitError `startsOnly`), not its uploads or status polls;
 * the engine waits until its oldest init in the publisher's window (`INIT_WINDOW`) leaves it.
 * @throws what `init` throws, a NetworkRateLimitError with `startsOnly` set.
 */
async function initCall(init: () => Promise<void>): Promise<void> {
  try {
    await init();
  } catch (err) {
    if (err instanceof NetworkRateLimitError && !err.startsOnly)
      throw new NetworkRateLimitError(err.message, err.retryAfterSeconds, err.scope, { startsOnly: true });
    throw err;
  }
}

async function initVideo(
  http: SocialHttp,
  job: DeliveryJob,
  video: JobMedia,
  options: TikTokPostOptions,
  save: (patch: Ids) => Promise<void>,
): Promise<void> {
  let plan: ReturnType<typeof chunkPlan>;
  try {
    plan = chunkPlan(video.bytes);
  } catch (err) {
    throw new NetworkRejectedError((err as Error).message);
  }
  const r = await tiktokRequest<{ publish_id?: string; upload_url?: string }>(http, {
    method: "POST",
    path: "/v2/post/publish/video/init/",
    json: {
      post_info: {
        ...postInfo(options),
        disable_duet: options.disable_duet,
        disable_stitch: options.disable_stitch,
      },
      source_info: {
        source: "FILE_UPLOAD",
        video_size: plan.videoSize,
        chunk_size: plan.chunkSize,
        total_chunk_count: plan.totalChunkCount,
      },
    },
    accessToken: job.account.tokens.accessToken,
    create: true,
    signal: job.signal,
  });
  if (!r.data.publish_id || !r.data.upload_url)
    throw new NetworkTransientError("TikTok answered no publish_id", true);
  await save({
    publishId: r.data.publish_id,
    uploadUrl: r.data.upload_url,
    chunkSize: plan.chunkSize,
    totalChunkCount: plan.totalChunkCount,
    chunksSent: 0,
  });
}

/** PUTs the remaining chunks in order, saving the count after each. */
async function uploadChunks(
  http: SocialHttp,
  job: DeliveryJob,
  video: JobMedia,
  ids: Ids,
  save: (patch: Ids) => Promise<void>,
): Promise<void> {
  const plan = { videoSize: video.bytes, chunkSize: ids.chunkSize!, totalChunkCount: ids.totalChunkCount! };
  for (let i = ids.chunksSent ?? 0; i < plan.totalChunkCount; i++) {
    const { first, last } = chunkRange(plan, i);
    const bytes = await readMediaRange(video, first, last);
    let res: Response;
    try {
      // The upload URL is used as TikTok returned it (already absolute; not rewritten by the override).
      res = await http.fetch(ids.uploadUrl!, {
        method: "PUT",
        headers: {
          "content-type": video.mime || "video/mp4",
          "content-range": `bytes ${first}-${last}/${plan.videoSize}`,
        },
        body: new Uint8Array(bytes),
        signal: job.signal,
        timeoutSeconds: 300,
      });
      await res.arrayBuffer();
    } catch (err) {
      throw new NetworkTransientError(`the TikTok upload did not answer (${(err as Error).name})`);
    }
    if (res.status >= 500) throw new NetworkTransientError(`the TikTok upload failed (HTTP ${res.status})`);
    if (res.status !== 206 && res.status !== 201 && res.status !== 200) {
      throw new NetworkRejectedError(
        `TikTok refused video chunk ${i + 1} of ${plan.totalChunkCount} (HTTP ${res.status}).`,
      );
    }
    await save({ chunksSent: i + 1 });
  }
}

/**
 * The reason of a photo post TikTok would not pull (`url_ownership_unverified`): the URL prefix of the
 * service's public media (the photo URL up to its last `/`) must be verified for the TikTok app.
 */
export function unverifiedPrefixReason(photoUrl: string): string {
  const u = new URL(photoUrl);
  const prefix = `${u.origin}${u.pathname.slice(0, u.pathname.lastIndexOf("/") + 1)}`;
  return `TikTok refused to pull the photos (url_ownership_unverified): the URL prefix ${prefix} is not verified for this TikTok app. Verify it in the TikTok developer portal (Content Posting API, URL properties), then publish again.`;
}

async function initPhotos(
  http: SocialHttp,
  job: DeliveryJob,
  media: JobMedia[],
  options: TikTokPostOptions,
  save: (patch: Ids) => Promise<void>,
): Promise<void> {
  const r = await tiktokRequest<{ publish_id?: string }>(http, {
    method: "POST",
    path: "/v2/post/publish/content/init/",
    json: {
      post_info: { ...postInfo(options), description: options.description ?? "", auto_add_music: true },
      source_info: {
        source: "PULL_FROM_URL",
        photo_cover_index: 0,
        photo_images: media.map((m) => m.publicUrl()),
      },
      post_mode: "DIRECT_POST",
      media_type: "PHOTO",
    },
    accessToken: job.account.tokens.accessToken,
    create: true,
    signal: job.signal,
  });
  if (!r.data.publish_id) throw new NetworkTransientError("TikTok answered no publish_id", true);
  await save({ publishId: r.data.publish_id });
}

async function status(
  http: SocialHttp,
  job: DeliveryJob,
  ids: Ids,
  options: TikTokPostOptions,
  save: (patch: Ids) => Promise<void>,
  now: () => Date,
): Promise<StepResult> {
  const r = await tiktokRequest<StatusData>(http, {
    method: "POST",
    path: "/v2/post/publish/status/fetch/",
    json: { publish_id: ids.publishId },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  const s = r.data.status;
  if (s === "FAILED") {
    return {
      state: "failed",
      reason: `TikTok could not publish the post (${r.data.fail_reason ?? "no reason given"}).`,
    };
  }
  if (s === "SEND_TO_USER_INBOX") {
    return {
      state: "failed",
      reason: "TikTok sent the post to the creator's inbox instead of publishing it.",
    };
  }
  if (s !== "PUBLISH_COMPLETE") return { state: "processing", pollAfterSeconds: STATUS_POLL_SECONDS };
  const kind = job.post.media.some((m) => m.kind === "video") ? "video" : "photo";
  const postId = rawIdList(r.raw, "publicaly_available_post_id")[0];
  if (postId) {
    return {
      state: "published",
      postUrl: tiktokPostUrl(job.account, kind, postId),
      networkPostId: postId,
      postUrlKind: "post",
    };
  }
  // No public id: the URL is the creator's profile, said so (`postUrlKind`), and the network id is the
  // publish_id, which the analytics sync never queries as a video id (./metrics.ts `resolvePublicPost`
  // picks up the real id once TikTok reports it).
  const atProfile = {
    state: "published" as const,
    postUrl: tiktokProfileUrl(job.account),
    networkPostId: ids.publishId!,
    postUrlKind: "profile" as const,
  };
  if (options.privacy_level === "SELF_ONLY") return atProfile;
  if (!ids.completedAt) await save({ completedAt: now().toISOString() });
  const waited = (now().getTime() - Date.parse(ids.completedAt!)) / 1000;
  if (waited >= POST_ID_PATIENCE_SECONDS) return atProfile;
  return { state: "processing", pollAfterSeconds: POST_ID_POLL_SECONDS };
}

/** The creator's profile page, `https://www.tiktok.com/@{username}`. */
export function tiktokProfileUrl(account: Pick<DeliveryJob["account"], "metadata" | "handle">): string {
  const handle = String(account.metadata.username ?? account.handle ?? "");
  return `https://www.tiktok.com/@${encodeURIComponent(handle)}`;
}

/** A public post's page, `https://www.tiktok.com/@{username}/{video|photo}/{id}`. */
export function tiktokPostUrl(
  account: Pick<DeliveryJob["account"], "metadata" | "handle">,
  kind: "video" | "photo",
  postId: string,
): string {
  return `${tiktokProfileUrl(account)}/${kind}/${postId}`;
}
