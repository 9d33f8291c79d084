/**
 * Pinterest publishing (API v5, networks.md 2.6): an image Pin, a carousel Pin (2 to 5 images of the same
 * size) or a video Pin, saved to the board chosen for the account on /settings/social
 * (https://developers.pinterest.com/docs/api/v5/pins-create,
 * https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/).
 *
 * Steps, one resumable step at a time:
 * - the board: the saved `boardId`, else the account's `board_id` setting, else its only board; none ->
 *   failed, asking the user to choose a board on /settings/social;
 * - video: `POST /v5/media` (saved `mediaId`), the multipart upload to S3 (saved `uploadedAt`), then
 *   `GET /v5/media/{media_id}` until `succeeded` (`failed` -> failed) (./upload.ts);
 * - the Pin: `pinRequestedAt` (the armed marker) is saved BEFORE `POST /v5/pins`, `pinId` right after.
 *
 * Pinterest has no idempotency key, so a create is never repeated blindly: a step or `reconcile` that finds
 * `pinRequestedAt` without `pinId` first looks for the Pin among the board's newest Pins (same title and
 * description, created after the marker; ./pin.ts `findPin`) and adopts it; only when nothing is there is
 * the marker cleared and the Pin created again. A create Pinterest answered with a refusal (4xx, 429) clears
 * the marker at once: nothing was created. A video whose upload answer was lost is not sent again when the
 * media status shows it arrived; a registration whose upload never arrived is replaced by a new one.
 * Saved ids: `boardId`, `mediaId`, `uploadedAt`, `pinRequestedAt`, `pinId`.
 */
import type { Pin } from "./contract.ts";
import type { SocialHttp } from "../http.ts";
import {
  type DeliveryJob,
  NetworkAuthError,
  NetworkRateLimitError,
  type NetworkPublisher,
  NetworkTransientError,
  type StepResult,
  trackedIds,
} from "../network.ts";
import { PinterestRejectedError, pinterestRequest } from "./api.ts";
import { BOARD_SETTING, listBoards } from "./boards.ts";
import { textRefusal } from "../rule-check.ts";
import { CAROUSEL_MAX, findPin, pinBody, pinUrl } from "./pin.ts";
import { mediaStatus, registerVideo, uploadVideo } from "./upload.ts";

/** Seconds between media status polls while Pinterest processes a video. */
export const VIDEO_POLL_SECONDS = 10;
/** Pinterest's error code for a board that does not exist (or is not the account's). */
const BOARD_NOT_FOUND = 40;

interface Ids {
  boardId?: string;
  mediaId?: string;
  uploadedAt?: string;
  /** Armed marker: set before `POST /v5/pins`; null once a refusal proved nothing was created. */
  pinRequestedAt?: string | null;
  pinId?: string;
}

type Save = (patch: Partial<Ids>) => Promise<void>;

/** The Pinterest publisher; requests go through `http` (../http.ts), `now` is the service clock. */
export function pinterestPublisher(http: SocialHttp, now: () => Date): NetworkPublisher {
  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.pinId) return published(ids.pinId);
      const refused = unsupported(job);
      if (refused) return { state: "failed", reason: refused };
      if (!ids.boardId) {
        const board = await chooseBoard(http, job);
        if ("reason" in board) return { state: "failed", reason: board.reason };
        await saveIds({ boardId: board.id });
      }
      const video = job.post.media.find((m) => m.kind === "video");
      if (video && !ids.pinRequestedAt) {
        if (!ids.uploadedAt) {
          if (ids.mediaId && (await status(http, job, ids.mediaId)) !== "registered") {
            // The upload arrived but its answer was lost: never send the file twice.
            await saveIds({ uploadedAt: now().toISOString() });
            return { state: "processing", pollAfterSeconds: VIDEO_POLL_SECONDS };
          }
          const upload = await registerVideo(http, job.account.tokens.accessToken, job.signal);
          await saveIds({ mediaId: upload.mediaId });
          await uploadVideo(http, upload, video, job.signal);
          await saveIds({ uploadedAt: now().toISOString() });
          return { state: "processing", pollAfterSeconds: VIDEO_POLL_SECONDS };
        }
        const s = await status(http, job, ids.mediaId!);
        if (s === "failed") return { state: "failed", reason: "Pinterest could not process the video." };
        if (s !== "succeeded") return { state: "processing", pollAfterSeconds: VIDEO_POLL_SECONDS };
      }
      if (ids.pinRequestedAt) {
        const found = await findPin(http, job, ids.boardId!, new Date(ids.pinRequestedAt));
        if (found) {
          await saveIds({ pinId: found });
          return published(found);
        }
      }
      return createPin(http, job, ids, saveIds, now);
    },

    async reconcile(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.pinId) return published(ids.pinId);
      if (!ids.pinRequestedAt || !ids.boardId) return { state: "not_created" };
      const found = await findPin(http, job, ids.boardId, new Date(ids.pinRequestedAt));
      if (found) {
        await saveIds({ pinId: found });
        return published(found);
      }
      // Not on the board: the create never landed, so it may be sent again.
      await saveIds({ pinRequestedAt: null });
      return { state: "not_created" };
    },
  };
}

function published(pinId: string): StepResult {
  return { state: "published", postUrl: pinUrl(pinId), networkPostId: pinId };
}

/** Why the post cannot be a Pin at all, or undefined. */
function unsupported(job: DeliveryJob): string | undefined {
  const text = textRefusal("pinterest", job.post);
  if (text) return `Pinterest would refuse the Pin: ${text}`;
  const images = job.post.media.filter((m) => m.kind === "image").length;
  const videos = job.post.media.filter((m) => m.kind === "video").length;
  if (images === 0 && videos === 0) return "Pinterest Pins need an image or a video.";
  if (videos > 1) return "A Pinterest Pin holds one video.";
  if (videos === 0 && images > CAROUSEL_MAX)
    return `A Pinterest carousel holds at most ${CAROUSEL_MAX} images; this post has ${images}.`;
  return undefined;
}

/**
 * The board of this delivery: the account's chosen board, else its only board.
 * @returns the id, or a reason naming /settings/social.
 */
async function chooseBoard(http: SocialHttp, job: DeliveryJob): Promise<{ id: string } | { reason: string }> {
  const chosen = job.account.settings[BOARD_SETTING];
  if (typeof chosen === "string" && chosen) return { id: chosen };
  const boards = await listBoards(http, job.account.tokens.accessToken, job.signal);
  if (boards.length === 1) return { id: boards[0]!.id };
  const who = `the Pinterest account ${job.account.handle ? `@${job.account.handle}` : job.account.id}`;
  return {
    reason:
      boards.length === 0
        ? `${who} has no board: create a board on Pinterest, then choose it on /settings/social.`
        : `${who} has no board chosen: choose the board for its Pins on /settings/social.`,
  };
}

function status(http: SocialHttp, job: DeliveryJob, mediaId: string) {
  return mediaStatus(http, job.account.tokens.accessToken, mediaId, job.signal);
}

/** Arms the marker, sends `POST /v5/pins`, saves the Pin id. */
async function createPin(
  http: SocialHttp,
  job: DeliveryJob,
  ids: Ids,
  save: Save,
  now: () => Date,
): Promise<StepResult> {
  const body = pinBody(
    job,
    ids.boardId!,
    job.post.media.some((m) => m.kind === "video") ? ids.mediaId : undefined,
  );
  await save({ pinRequestedAt: now().toISOString() });
  let pin: Partial<Pin>;
  try {
    pin = await pinterestRequest<Partial<Pin>>(http, {
      method: "POST",
      path: "/pins",
      json: body,
      accessToken: job.account.tokens.accessToken,
      create: true,
      signal: job.signal,
    });
  } catch (err) {
    // An answer that refuses the request proves nothing was created: disarm before reporting it.
    if (
      err instanceof PinterestRejectedError ||
      err instanceof NetworkRateLimitError ||
      err instanceof NetworkAuthError
    )
      await save({ pinRequestedAt: null });
    if (err instanceof PinterestRejectedError && err.code === BOARD_NOT_FOUND)
      return {
        state: "failed",
        reason:
          "The Pinterest board chosen for this account no longer exists: choose another board on /settings/social.",
      };
    throw err;
  }
  if (!pin.id) throw new NetworkTransientError("Pinterest answered the Pin creation without an id", true);
  await save({ pinId: String(pin.id) });
  return published(String(pin.id));
}
