/**
 * YouTube publishing through the Data API v3: one video per post (a Short when vertical and at most
 * 3 minutes long, else a regular video) by the resumable upload protocol (./upload.ts), then
 * `videos.list part=status,processingDetails` until YouTube has processed it (networks.md 2.4;
 * https://developers.google.com/youtube/v3/docs/videos/insert, .../guides/using_resumable_upload_protocol,
 * .../docs/videos#status, .../docs/videos#processingDetails).
 *
 * Saved network ids (`delivery.networkIds`), each the moment it exists:
 * - `uploadUrl`: the session URI, saved before the first byte is sent (null once a dead session is given up);
 *   `sessionStartedAt` (ISO), `bytesTotal`;
 * - `bytesReceived`: what YouTube confirmed so far (progress; a step always asks the session first);
 * - `finalChunkAt` (ISO): set before the chunk that completes the file is sent (from then on the video may
 *   exist: never start over without looking for it);
 * - `videoId`, `uploadedAt` (ISO): saved as soon as the final answer carries the video.
 *
 * Steps: no session -> start one and upload; a saved session -> `PUT bytes *\/N` first and go on from the
 * returned `Range` (a restarted worker never re-sends what arrived); each step uploads for at most
 * `UPLOAD_STEP_SECONDS` (the engine's step lease is 300 s) and returns `uploading` to continue. A session
 * that is gone (404/410) is started over only when its final chunk was never sent; otherwise the video is
 * looked for among the channel's recent uploads (./find-upload.ts).
 * Reconcile (lost answer of the final chunk): the session query answers with the video (200/201) or with
 * the range (-> `not_created`, the next step resumes); a gone session -> the uploads lookup.
 * Quota: `quotaExceeded` / `uploadLimitExceeded` on the session start fail the delivery with the time to
 * publish again (nothing was created); on a status read the step waits for the next quota day (./api.ts).
 */
import { readMediaRange } from "../media-bytes.ts";
import { textRefusal } from "../rule-check.ts";
import type { DeliveryJob, JobMedia, NetworkPublisher, StepResult } from "../network.ts";
import { NetworkRejectedError, NetworkTransientError, trackedIds } from "../network.ts";
import { type YouTubeDeps, youtubeRequest } from "./api.ts";
import { findRecentUpload } from "./find-upload.ts";
import { videoDescription, videoTitle } from "./metadata.ts";
import { videoStatus } from "./settings.ts";
import {
  CHUNK_BYTES,
  type InsertMetadata,
  querySession,
  type SessionState,
  sendChunk,
  startUploadSession,
  type VideoResource,
} from "./upload.ts";

/** Wall time one step spends uploading before it hands over to the next step, seconds. */
export const UPLOAD_STEP_SECONDS = 120;
/** Longest video YouTube shows as a Short, seconds (vertical videos only). */
export const SHORTS_MAX_SECONDS = 180;
/** After this long unprocessed, the delivery fails pointing at YouTube Studio, seconds. */
export const PROCESSING_PATIENCE_SECONDS = 24 * 3600;
/** A video `videos.list` does not show for this long after its upload was deleted or removed, seconds. */
export const MISSING_PATIENCE_SECONDS = 15 * 60;
/** Chunks in a row that YouTube may accept without a new byte before the step gives up for now. */
const MAX_STALLS = 3;

interface Ids {
  uploadUrl?: string | null;
  sessionStartedAt?: string;
  bytesTotal?: number;
  bytesReceived?: number;
  finalChunkAt?: string;
  videoId?: string;
  uploadedAt?: string;
}

type Save = (patch: Partial<Ids>) => Promise<void>;

/** Seconds until the next status poll, by how long ago the upload finished. */
export function processingPollSeconds(sinceUploadSeconds: number): number {
  if (sinceUploadSeconds < 60) return 5;
  if (sinceUploadSeconds < 300) return 15;
  if (sinceUploadSeconds < 3600) return 60;
  return 300;
}

/** The public URL of a video: `/shorts/{id}` for a vertical video of at most 3 minutes, else `/watch?v=`. */
export function videoPermalink(
  videoId: string,
  media: Pick<JobMedia, "width" | "height" | "durationSeconds">,
) {
  const vertical = media.width !== null && media.height !== null && media.height > media.width;
  const short =
    vertical && media.durationSeconds !== undefined && media.durationSeconds <= SHORTS_MAX_SECONDS;
  return short
    ? `https://www.youtube.com/shorts/${encodeURIComponent(videoId)}`
    : `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`;
}

/** The `videos.insert` metadata of a post; the fallback title is dated by when the session started. */
export function insertMetadata(job: DeliveryJob, startedAt: Date): InsertMetadata {
  return {
    snippet: {
      title: videoTitle(job.post, `Video of ${startedAt.toISOString().slice(0, 10)}`),
      description: videoDescription(job.post.caption),
    },
    status: videoStatus(job.account.settings),
  };
}

/** The YouTube publisher; requests go through `deps.http`, `deps.now` is the service clock. */
export function youtubePublisher(deps: YouTubeDeps): NetworkPublisher {
  const since = (iso: string | undefined) =>
    iso ? Math.max(0, (deps.now().getTime() - Date.parse(iso)) / 1000) : 0;

  const adopt = async (save: Save, videoId: string): Promise<StepResult> => {
    await save({ videoId, uploadedAt: deps.now().toISOString() });
    return { state: "processing", pollAfterSeconds: processingPollSeconds(0) };
  };

  /** A gone session: start over when nothing can have been created, else look among the uploads. */
  const sessionGone = async (job: DeliveryJob, ids: Ids, save: Save): Promise<StepResult | "restart"> => {
    if (!ids.finalChunkAt) {
      await save({ uploadUrl: null, bytesReceived: 0 });
      return "restart";
    }
    const startedAt = new Date(ids.sessionStartedAt ?? ids.finalChunkAt);
    const { title, description } = insertMetadata(job, startedAt).snippet;
    const videoId = await findRecentUpload(
      deps,
      job.account,
      { title, description, since: startedAt },
      job.signal,
    );
    if (videoId) return adopt(save, videoId);
    throw new NetworkTransientError(
      "YouTube closed the upload session after the last chunk and the video is not among the channel's uploads yet",
      true,
    );
  };

  const settle = async (
    job: DeliveryJob,
    ids: Ids,
    save: Save,
    state: Exclude<SessionState, { kind: "incomplete" }>,
  ): Promise<StepResult | "restart"> =>
    state.kind === "complete" ? adopt(save, state.videoId) : sessionGone(job, ids, save);

  const upload = async (
    job: DeliveryJob,
    video: JobMedia,
    ids: Ids,
    save: Save,
    from: number,
  ): Promise<StepResult> => {
    const total = ids.bytesTotal ?? video.bytes;
    const started = Date.now();
    let offset = from;
    let stalls = 0;
    for (;;) {
      if (offset >= total)
        throw new NetworkTransientError(
          "YouTube holds every byte of the video but returned no video yet",
          true,
        );
      const last = Math.min(offset + CHUNK_BYTES, total) - 1;
      const final = last === total - 1;
      if (final && !ids.finalChunkAt) await save({ finalChunkAt: deps.now().toISOString() });
      const bytes = await readMediaRange(video, offset, last);
      const state = await sendChunk(deps, {
        uri: ids.uploadUrl!,
        total,
        first: offset,
        bytes,
        mime: video.mime || "video/mp4",
        final,
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      if (state.kind !== "incomplete") {
        const r = await settle(job, ids, save, state);
        return r === "restart" ? { state: "uploading", pollAfterSeconds: 0 } : r;
      }
      stalls = state.received > offset ? 0 : stalls + 1;
      if (stalls >= MAX_STALLS) throw new NetworkTransientError("YouTube accepted no new bytes of the video");
      offset = state.received;
      await save({ bytesReceived: offset });
      if ((Date.now() - started) / 1000 >= UPLOAD_STEP_SECONDS)
        return { state: "uploading", pollAfterSeconds: 0 };
    }
  };

  const processing = async (job: DeliveryJob, ids: Ids): Promise<StepResult> => {
    const r = await youtubeRequest<{ items?: VideoResource[] }>(deps, {
      method: "GET",
      path: "/videos",
      query: { part: "status,processingDetails", id: ids.videoId! },
      accessToken: job.account.tokens.accessToken,
      signal: job.signal,
    });
    const waited = since(ids.uploadedAt);
    const v = r.body?.items?.[0];
    if (!v) {
      if (waited >= MISSING_PATIENCE_SECONDS)
        return {
          state: "failed",
          reason: `YouTube no longer lists the uploaded video ${ids.videoId} (it was deleted or removed).`,
        };
      return { state: "processing", pollAfterSeconds: processingPollSeconds(waited) };
    }
    const status = v.status?.uploadStatus;
    if (status === "processed") {
      const video = job.post.media.find((m) => m.kind === "video");
      return {
        state: "published",
        postUrl: videoPermalink(
          ids.videoId!,
          video ?? { width: null, height: null, durationSeconds: undefined },
        ),
        networkPostId: ids.videoId!,
      };
    }
    if (status === "failed")
      return {
        state: "failed",
        reason: `YouTube could not process the video (${v.status?.failureReason ?? "no reason given"}).`,
      };
    if (status === "rejected")
      return {
        state: "failed",
        reason: `YouTube rejected the video (${v.status?.rejectionReason ?? "no reason given"}).`,
      };
    if (status === "deleted")
      return { state: "failed", reason: "The video was deleted on YouTube before it finished processing." };
    const processingStatus = v.processingDetails?.processingStatus;
    if (processingStatus === "failed" || processingStatus === "terminated")
      return {
        state: "failed",
        reason: `YouTube could not process the video (${v.processingDetails?.processingFailureReason ?? processingStatus}).`,
      };
    if (waited >= PROCESSING_PATIENCE_SECONDS)
      return {
        state: "failed",
        reason: `YouTube has not finished processing video ${ids.videoId} after 24 hours; check it in YouTube Studio.`,
      };
    return { state: "processing", pollAfterSeconds: processingPollSeconds(waited) };
  };

  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.videoId) return processing(job, ids);
      const video = onlyVideo(job);
      if (!ids.uploadUrl) {
        const refused = textRefusal("youtube", job.post);
        if (refused) return { state: "failed", reason: `YouTube would refuse the post: ${refused}` };
        const startedAt = deps.now();
        const uri = await startUploadSession(deps, {
          bytes: video.bytes,
          mime: video.mime || "video/mp4",
          metadata: insertMetadata(job, startedAt),
          accessToken: job.account.tokens.accessToken,
          signal: job.signal,
        });
        await saveIds({
          uploadUrl: uri,
          sessionStartedAt: startedAt.toISOString(),
          bytesTotal: video.bytes,
          bytesReceived: 0,
        });
        return upload(job, video, ids, saveIds, 0);
      }
      const state = await querySession(deps, {
        uri: ids.uploadUrl,
        total: ids.bytesTotal ?? video.bytes,
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      if (state.kind === "incomplete") return upload(job, video, ids, saveIds, state.received);
      const r = await settle(job, ids, saveIds, state);
      return r === "restart" ? { state: "uploading", pollAfterSeconds: 0 } : r;
    },

    async reconcile(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.videoId) return processing(job, ids);
      // A session start whose answer was lost has no bytes: it can never become a video.
      if (!ids.uploadUrl) return { state: "not_created" };
      const state = await querySession(deps, {
        uri: ids.uploadUrl,
        total: ids.bytesTotal ?? onlyVideo(job).bytes,
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      if (state.kind === "incomplete") {
        await saveIds({ bytesReceived: state.received });
        return { state: "not_created" };
      }
      const r = await settle(job, ids, saveIds, state);
      return r === "restart" ? { state: "not_created" } : r;
    },
  };
}

/** The post's single video. @throws NetworkRejectedError for anything else (YouTube takes videos only). */
function onlyVideo(job: DeliveryJob): JobMedia {
  const media = job.post.media;
  if (media.length !== 1 || media[0]!.kind !== "video")
    throw new NetworkRejectedError(
      `YouTube accepts one video per post; this post has ${media.length} media item(s) of kind ${[...new Set(media.map((m) => m.kind))].join(", ") || "none"}.`,
    );
  return media[0]!;
}
