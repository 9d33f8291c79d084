/**
 * Video uploads of the LinkedIn Videos API (networks.md 2.5;
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api):
 * 1. `POST /rest/videos?action=initializeUpload {initializeUploadRequest:{owner, fileSizeBytes,
 *    uploadCaptions:false, uploadThumbnail:false}}` -> `{value:{video, uploadToken, uploadUrlsExpireAt,
 *    uploadInstructions:[{uploadUrl, firstByte, lastByte}]}}` (parts of 4 MB, the last one shorter);
 * 2. `PUT` each part's bytes `firstByte..lastByte` to its `uploadUrl`; each answer's `ETag` header is the
 *    part id;
 * 3. `POST /rest/videos?action=finalizeUpload {finalizeUploadRequest:{video, uploadToken,
 *    uploadedPartIds:[etags in part order]}}`;
 * 4. `GET /rest/videos/{video urn}` until `status` is `AVAILABLE` (`PROCESSING`, `WAITING_UPLOAD`;
 *    `PROCESSING_FAILED` with `processingFailureReason` -> the delivery fails).
 *
 * Saved as it goes (`SavedVideo`): the video URN, upload token and part URLs when initialized, each part's
 * ETag when its PUT answered, `finalizeRequestedAt` before finalizing and `finalized` after. A restarted step
 * sends only the parts without an ETag; a lost finalize answer is settled by reading the video's status
 * (anything but WAITING_UPLOAD means it was finalized). Parts whose URLs expired before the upload finished
 * are initialized again (an unfinished video is not a post).
 */
import { readMediaRange } from "../media-bytes.ts";
import type { DeliveryJob, JobMedia } from "../network.ts";
import { NetworkTransientError } from "../network.ts";
import { encodeUrn, type LinkedInClient, linkedinRequest, putUploadBytes } from "./api.ts";

/** The upload state of a post's video as saved in the delivery's network ids. */
export interface SavedVideo {
  /** The video URN (`urn:li:video:...`). */
  video?: string | undefined;
  uploadToken?: string | undefined;
  parts?: Array<{ uploadUrl: string; firstByte: number; lastByte: number }> | undefined;
  /** When the part URLs stop working, epoch milliseconds. */
  partsExpireAt?: number | undefined;
  /** The ETag of each uploaded part, in part order. */
  etags?: string[] | undefined;
  finalizeRequestedAt?: string | undefined;
  finalized?: boolean | undefined;
}

/** Where the video stands after one step. */
export type VideoProgress =
  | { kind: "uploading" }
  | { kind: "processing" }
  | { kind: "failed"; reason: string }
  | { kind: "available"; video: string };

/** Wall-clock seconds of part uploads in one step before handing back (the step lease is 5 minutes). */
export const PART_BUDGET_SECONDS = 120;

interface InitAnswer {
  value?: {
    video?: string;
    uploadToken?: string;
    uploadUrlsExpireAt?: number;
    uploadInstructions?: Array<{ uploadUrl?: string; firstByte?: number; lastByte?: number }>;
  };
}

/**
 * Advances the video of `job` (its first media item) by as much as fits in one step.
 * @throws the errors of ./api.ts; NetworkRejectedError when LinkedIn refuses a part.
 */
export async function advanceVideo(
  client: LinkedInClient,
  job: DeliveryJob,
  owner: string,
  saved: SavedVideo | undefined,
  save: (video: SavedVideo) => Promise<void>,
): Promise<VideoProgress> {
  const media = job.post.media[0]!;
  const token = job.account.tokens.accessToken;
  let v: SavedVideo = { ...(saved ?? {}) };
  const update = async (patch: SavedVideo) => {
    v = { ...v, ...patch };
    await save(v);
  };
  const partsLeft = () => (v.parts?.length ?? 0) - (v.etags?.length ?? 0);
  const expired =
    v.partsExpireAt !== undefined && v.partsExpireAt <= client.now().getTime() && partsLeft() > 0;
  if (!v.video || (expired && !v.finalizeRequestedAt)) {
    const r = await linkedinRequest<InitAnswer>(client, {
      method: "POST",
      path: "/rest/videos?action=initializeUpload",
      json: {
        initializeUploadRequest: {
          owner,
          fileSizeBytes: media.bytes,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      },
      accessToken: token,
      signal: job.signal,
    });
    const value = r.body.value;
    const parts = (value?.uploadInstructions ?? []).map((p) => ({
      uploadUrl: String(p.uploadUrl ?? ""),
      firstByte: Number(p.firstByte),
      lastByte: Number(p.lastByte),
    }));
    if (!value?.video || parts.length === 0 || parts.some((p) => !p.uploadUrl))
      throw new NetworkTransientError("LinkedIn answered no video upload instructions");
    v = {};
    await update({
      video: value.video,
      uploadToken: value.uploadToken ?? "",
      parts,
      partsExpireAt: value.uploadUrlsExpireAt,
      etags: [],
    });
  }

  const deadline = performance.now() + PART_BUDGET_SECONDS * 1000;
  for (let i = v.etags?.length ?? 0, sent = 0; i < v.parts!.length; i++, sent++) {
    // At least one part per step, then hand back once the budget is spent (the next step goes on).
    if (sent > 0 && performance.now() > deadline) return { kind: "uploading" };
    const etag = await putPart(client, job, media, v.parts![i]!, i, v.parts!.length);
    await update({ etags: [...(v.etags ?? []), etag] });
  }

  if (!v.finalized) {
    if (v.finalizeRequestedAt) {
      // An earlier finalize may have been applied without its answer reaching us.
      const status = await videoStatus(client, job, v.video!);
      if (status.status !== "WAITING_UPLOAD") await update({ finalized: true });
    }
    if (!v.finalized) {
      await update({ finalizeRequestedAt: client.now().toISOString() });
      await linkedinRequest(client, {
        method: "POST",
        path: "/rest/videos?action=finalizeUpload",
        json: {
          finalizeUploadRequest: {
            video: v.video,
            uploadToken: v.uploadToken ?? "",
            uploadedPartIds: v.etags,
          },
        },
        accessToken: token,
        signal: job.signal,
      });
      await update({ finalized: true });
    }
  }

  const status = await videoStatus(client, job, v.video!);
  if (status.status === "AVAILABLE") return { kind: "available", video: v.video! };
  if (status.status === "PROCESSING_FAILED") {
    return {
      kind: "failed",
      reason: `LinkedIn could not process the video (${status.processingFailureReason ?? "no reason given"}).`,
    };
  }
  return { kind: "processing" };
}

async function videoStatus(
  client: LinkedInClient,
  job: DeliveryJob,
  video: string,
): Promise<{ status?: string; processingFailureReason?: string }> {
  const r = await linkedinRequest<{ status?: string; processingFailureReason?: string }>(client, {
    method: "GET",
    path: `/rest/videos/${encodeUrn(video)}`,
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  return r.body;
}

/** PUTs one part; returns its ETag. */
async function putPart(
  client: LinkedInClient,
  job: DeliveryJob,
  media: JobMedia,
  part: { uploadUrl: string; firstByte: number; lastByte: number },
  index: number,
  count: number,
): Promise<string> {
  const res = await putUploadBytes(
    client,
    {
      url: part.uploadUrl,
      bytes: await readMediaRange(media, part.firstByte, part.lastByte),
      contentType: "application/octet-stream",
      signal: job.signal,
      timeoutSeconds: 300,
    },
    `video part ${index + 1} of ${count}`,
  );
  const etag = res.headers.get("etag");
  if (!etag) throw new NetworkTransientError(`LinkedIn answered no ETag for video part ${index + 1}`);
  return etag;
}
