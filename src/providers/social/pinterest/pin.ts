/**
 * One Pin as Pinterest API v5 takes it (`POST /v5/pins`, https://developers.pinterest.com/docs/api/v5/pins-create):
 * `{board_id, title (≤ 100), description, link (≤ 2048), media_source}` with `media_source` one of
 * - `{source_type: "image_url", url}` (one image, pulled by Pinterest from the signed public URL),
 * - `{source_type: "multiple_image_urls", items: [{url}]}` (a carousel of 2 to 5 images of the same size),
 * - `{source_type: "video_id", media_id, cover_image_url | cover_image_key_frame_time}` (an uploaded video;
 *   the cover is the post's first image, else the first frame: key frame time 0 s),
 * and how a Pin whose create answer was lost is found again among the board's Pins
 * (`GET /v5/boards/{board_id}/pins`, https://developers.pinterest.com/docs/api/v5/boards-list_pins).
 */
import type { BoardPinsPage, PinCreate, PinMediaSource } from "./contract.ts";
import type { SocialHttp } from "../http.ts";
import type { DeliveryJob } from "../network.ts";
import { firstLine, postTitle } from "../rule-check.ts";
import { pinterestRequest } from "./api.ts";

/** Longest Pin title, characters (code points). */
export const TITLE_MAX = 100;
/** Images of a carousel Pin. */
export const CAROUSEL_MIN = 2;
export const CAROUSEL_MAX = 5;
/** How many of the board's newest Pins a lost create is looked for among. */
const RECENT_PINS = 50;
/** Clock skew allowed between the armed marker and the Pin's `created_at`, milliseconds. */
const SKEW_MS = 60_000;

/** The Pin URL on pinterest.com. */
export function pinUrl(pinId: string): string {
  return `https://www.pinterest.com/pin/${encodeURIComponent(pinId)}/`;
}

/**
 * The Pin title: the first non-empty line of the post's title; without one, the caption's first line when it
 * fits in 100 characters (else no title: the description carries the text). Never cut: a post title over 100
 * characters is refused at the call (../rules.ts) and by the publisher (../rule-check.ts `textRefusal`).
 */
export function pinTitle(post: DeliveryJob["post"]): string {
  const own = postTitle("pinterest", post);
  if (own) return own;
  const line = firstLine(post.caption);
  return [...line].length <= TITLE_MAX ? line : "";
}

/** The Pin description: the caption (its length is checked against the network rules at the call). */
export function pinDescription(post: DeliveryJob["post"]): string {
  return (post.caption ?? "").trim();
}

/** The Pin link: the post's product URL when it is an http(s) URL of at most 2048 characters. */
export function pinLink(post: DeliveryJob["post"]): string | undefined {
  const url = post.productUrl?.trim();
  if (!url || url.length > 2048) return undefined;
  try {
    return /^https?:$/.test(new URL(url).protocol) ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The media part of the Pin for `job`'s media (`mediaId`: the uploaded video's id). */
export function mediaSource(job: DeliveryJob, mediaId: string | undefined): PinMediaSource {
  const images = job.post.media.filter((m) => m.kind === "image");
  if (mediaId) {
    const cover = images[0];
    return cover
      ? { source_type: "video_id", media_id: mediaId, cover_image_url: cover.publicUrl() }
      : { source_type: "video_id", media_id: mediaId, cover_image_key_frame_time: 0 };
  }
  if (images.length === 1) return { source_type: "image_url", url: images[0]!.publicUrl() };
  return { source_type: "multiple_image_urls", items: images.map((m) => ({ url: m.publicUrl() })) };
}

/**
 * The `POST /v5/pins` body; empty title/description and a missing link or alt text are left out; `alt_text` is
 * the first image's alt text.
 */
export function pinBody(job: DeliveryJob, boardId: string, mediaId: string | undefined): PinCreate {
  const title = pinTitle(job.post);
  const description = pinDescription(job.post);
  const link = pinLink(job.post);
  // The Pin's `alt_text` (at most 500 characters, rules.ts `altText`): its first image's.
  const altText = job.post.media[0]?.kind === "image" ? job.post.media[0].altText : undefined;
  return {
    board_id: boardId,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(link ? { link } : {}),
    ...(altText ? { alt_text: altText } : {}),
    media_source: mediaSource(job, mediaId),
  };
}

/**
 * Looks for the Pin a lost `POST /v5/pins` may have created: among the board's newest Pins, one with the
 * same title and description created at or after the armed marker `since` (less a minute of clock skew).
 * @returns its id, or undefined when nothing matches (the create never landed).
 * @throws as `pinterestRequest`.
 */
export async function findPin(
  http: SocialHttp,
  job: DeliveryJob,
  boardId: string,
  since: Date,
): Promise<string | undefined> {
  const r = await pinterestRequest<Partial<BoardPinsPage>>(http, {
    method: "GET",
    path: `/boards/${encodeURIComponent(boardId)}/pins`,
    query: { page_size: String(RECENT_PINS) },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  const title = pinTitle(job.post);
  const description = pinDescription(job.post);
  const found = (r.items ?? []).find(
    (p) =>
      p.id &&
      (p.title ?? "").trim() === title &&
      (p.description ?? "").trim() === description &&
      (!p.created_at || Date.parse(p.created_at) >= since.getTime() - SKEW_MS),
  );
  return found?.id ? String(found.id) : undefined;
}
