/**
 * The creator options of one TikTok Direct Post, as chosen on the review page (/review) and stored with the
 * delivery, in TikTok's own field names, and their validation against a fresh creator_info (networks.md 2.1
 * "Required UX for the Direct Post audit"; https://developers.tiktok.com/doc/content-sharing-guidelines):
 * - privacy from `privacy_level_options`, no default;
 * - Comment/Duet/Stitch: allowed only where the creator has not disabled them; photo posts have no Duet/Stitch;
 * - commercial content disclosure: when on, "Your brand" (`brand_organic_toggle`) and/or "Branded content"
 *   (`brand_content_toggle`) must be chosen; branded content cannot be private (SELF_ONLY);
 * - a video longer than `max_video_post_duration_sec` cannot be posted;
 * - title: video caption up to 2200 characters; photo title up to 90 plus a description up to 4000.
 */
import type { CreatorInfo } from "./creator-info.ts";

export interface TikTokPostOptions {
  privacy_level: string;
  /** Interaction switches as TikTok names them: true = the interaction is off. */
  disable_comment: boolean;
  disable_duet: boolean;
  disable_stitch: boolean;
  /** "Branded content": promoting another brand (label "Paid partnership"). */
  brand_content_toggle: boolean;
  /** "Your brand": promoting the creator's own business (label "Promotional content"). */
  brand_organic_toggle: boolean;
  /** Video: the caption; photo: the title (up to 90). */
  title: string;
  /** Photo posts only: the description (up to 4000). */
  description?: string | undefined;
}

/** What the user chose on the page (checkboxes as booleans; the UI's words, not TikTok's). */
export interface ReviewChoice {
  privacyLevel: string | undefined;
  allowComment: boolean;
  allowDuet: boolean;
  allowStitch: boolean;
  disclose: boolean;
  yourBrand: boolean;
  brandedContent: boolean;
  title: string;
  description?: string | undefined;
  consent: boolean;
}

export interface ReviewProblem {
  field: string;
  message: string;
}

/** Labels of TikTok's privacy levels as the review page shows them. */
export const PRIVACY_LABELS: Record<string, string> = {
  PUBLIC_TO_EVERYONE: "Everyone",
  MUTUAL_FOLLOW_FRIENDS: "Friends",
  FOLLOWER_OF_CREATOR: "Followers",
  SELF_ONLY: "Only me",
};

export const BRANDED_NOT_PRIVATE = "Branded content visibility cannot be set to private.";
export const TITLE_MAX_VIDEO = 2200;
export const TITLE_MAX_PHOTO = 90;
export const DESCRIPTION_MAX_PHOTO = 4000;

/**
 * Validates `choice` for a post of `kind` (and the video's duration, seconds) against `creator`. Returns the
 * options to store, or every problem found (field + message), never both.
 */
export function validateReviewChoice(
  choice: ReviewChoice,
  creator: CreatorInfo,
  post: { kind: "video" | "photo"; durationSeconds?: number | undefined },
): { options: TikTokPostOptions } | { problems: ReviewProblem[] } {
  const problems: ReviewProblem[] = [];
  if (post.kind === "video" && post.durationSeconds !== undefined && creator.maxVideoPostDurationSec > 0) {
    if (post.durationSeconds > creator.maxVideoPostDurationSec) {
      problems.push({
        field: "video",
        message: `The video is ${Math.round(post.durationSeconds)} s long; this account can post videos up to ${creator.maxVideoPostDurationSec} s.`,
      });
    }
  }
  if (!choice.privacyLevel) {
    problems.push({ field: "privacy_level", message: "Choose who can view this post." });
  } else if (!creator.privacyLevelOptions.includes(choice.privacyLevel)) {
    problems.push({
      field: "privacy_level",
      message: `Privacy must be one of: ${creator.privacyLevelOptions.map((p) => PRIVACY_LABELS[p] ?? p).join(", ")}.`,
    });
  }
  if (choice.allowComment && creator.commentDisabled) {
    problems.push({
      field: "allow_comment",
      message: "The creator has turned comments off for their posts.",
    });
  }
  if (post.kind === "photo" && (choice.allowDuet || choice.allowStitch)) {
    problems.push({ field: "allow_duet", message: "Photo posts have no Duet or Stitch." });
  }
  if (post.kind === "video" && choice.allowDuet && creator.duetDisabled) {
    problems.push({ field: "allow_duet", message: "The creator has turned Duet off for their posts." });
  }
  if (post.kind === "video" && choice.allowStitch && creator.stitchDisabled) {
    problems.push({ field: "allow_stitch", message: "The creator has turned Stitch off for their posts." });
  }
  const yourBrand = choice.disclose && choice.yourBrand;
  const branded = choice.disclose && choice.brandedContent;
  if (choice.disclose && !yourBrand && !branded) {
    problems.push({
      field: "disclose",
      message:
        'You need to indicate if your content promotes yourself, a third party, or both: choose "Your brand" and/or "Branded content".',
    });
  }
  if (branded && choice.privacyLevel === "SELF_ONLY") {
    problems.push({ field: "privacy_level", message: BRANDED_NOT_PRIVATE });
  }
  const title = choice.title.trim();
  const titleMax = post.kind === "photo" ? TITLE_MAX_PHOTO : TITLE_MAX_VIDEO;
  if ([...title].length > titleMax) {
    problems.push({
      field: "title",
      message: `The ${post.kind === "photo" ? "title" : "caption"} can be at most ${titleMax} characters.`,
    });
  }
  const description = post.kind === "photo" ? (choice.description ?? "").trim() : undefined;
  if (description !== undefined && [...description].length > DESCRIPTION_MAX_PHOTO) {
    problems.push({
      field: "description",
      message: `The description can be at most ${DESCRIPTION_MAX_PHOTO} characters.`,
    });
  }
  if (!choice.consent) {
    problems.push({ field: "consent", message: "Confirm that you agree to post this content to TikTok." });
  }
  if (problems.length > 0) return { problems };
  return {
    options: {
      privacy_level: choice.privacyLevel!,
      disable_comment: !choice.allowComment,
      disable_duet: post.kind === "photo" ? true : !choice.allowDuet,
      disable_stitch: post.kind === "photo" ? true : !choice.allowStitch,
      brand_content_toggle: branded,
      brand_organic_toggle: yourBrand,
      title,
      ...(description !== undefined ? { description } : {}),
    },
  };
}

/** The label notice for the disclosure choice, or undefined (networks.md 2.1, item 3). */
export function disclosureLabel(
  kind: "video" | "photo",
  yourBrand: boolean,
  branded: boolean,
): string | undefined {
  const what = kind === "photo" ? "photo" : "video";
  if (branded) return `Your ${what} will be labeled as 'Paid partnership'.`;
  if (yourBrand) return `Your ${what} will be labeled as 'Promotional content'.`;
  return undefined;
}

/** Reads stored options back (the publisher's view); undefined when they are missing or malformed. */
export function readTikTokOptions(value: Record<string, unknown>): TikTokPostOptions | undefined {
  if (typeof value.privacy_level !== "string" || typeof value.title !== "string") return undefined;
  const flag = (k: string) => value[k] === true;
  return {
    privacy_level: value.privacy_level,
    disable_comment: flag("disable_comment"),
    disable_duet: flag("disable_duet"),
    disable_stitch: flag("disable_stitch"),
    brand_content_toggle: flag("brand_content_toggle"),
    brand_organic_toggle: flag("brand_organic_toggle"),
    title: value.title,
    description: typeof value.description === "string" ? value.description : undefined,
  };
}
