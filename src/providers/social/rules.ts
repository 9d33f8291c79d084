/// <reference path="./twitter-text.d.ts" />
/**
 * The network-rule table: what each network accepts in one post (caption length, count of images, image vs
 * video, video length and size, image formats, whether media or a video is required). One table, used by
 * publish_post / schedule_post validation at the call (src/domain/social/validate.ts) and printed in the
 * developer guide (codegen/emit/guide-networks.ts).
 *
 * Numbers come from the networks' public developer documentation as summarised in docs/social.md
 * (Instagram content publishing, Facebook Pages API, TikTok Content Posting API, YouTube Data API, LinkedIn
 * Posts API, Pinterest API v5, X API v2). Units: lengths in characters (X: weighted length as computed by
 * the `twitter-text` library), durations in seconds, sizes in bytes.
 */
import twitterText from "twitter-text";
import { NETWORKS, type Network } from "./types.ts";

const MB = 1024 * 1024;
const GB = 1024 * MB;

export interface NetworkRules {
  network: Network;
  /** Display name of the network. */
  label: string;
  caption: {
    maxLength: number;
    /** `characters`: Unicode code points; `x-weighted`: twitter-text weighted length (URLs 23, emoji 2). */
    counting: "characters" | "x-weighted";
  };
  /** The post needs at least one image or video (no text-only posts). */
  requiresMedia: boolean;
  /** The post must be a video. */
  requiresVideo: boolean;
  images: {
    /** Most images in one post (0: images not accepted). */
    max: number;
    /** Fewest images when the post has more than one (carousel minimum). */
    carouselMin: number;
    /** Accepted image types; others are refused (Instagram: JPEG only). */
    mimeTypes: readonly string[];
    maxBytes: number;
    /** Every image of a multi-image post must have the same width and height (Pinterest carousels). */
    sameDimensions: boolean;
  };
  video: {
    /** Whether a video post is accepted (a single video per post). */
    allowed: boolean;
    minSeconds: number;
    maxSeconds: number;
    maxBytes: number;
  };
  /** Images and videos may be mixed in one post (Instagram carousels). */
  mixedMedia: boolean;
  /** Where the numbers come from. */
  source: string;
}

const COMMON_IMAGES = ["image/jpeg", "image/png"] as const;

/** The table (see the module comment for sources). */
export const NETWORK_RULES: Readonly<Record<Network, NetworkRules>> = {
  instagram: {
    network: "instagram",
    label: "Instagram",
    caption: { maxLength: 2200, counting: "characters" },
    requiresMedia: true,
    requiresVideo: false,
    images: { max: 10, carouselMin: 2, mimeTypes: ["image/jpeg"], maxBytes: 8 * MB, sameDimensions: false },
    video: { allowed: true, minSeconds: 3, maxSeconds: 900, maxBytes: 300 * MB },
    mixedMedia: true,
    source: "https://developers.facebook.com/docs/instagram-platform/content-publishing/",
  },
  facebook: {
    network: "facebook",
    label: "Facebook",
    caption: { maxLength: 63206, counting: "characters" },
    requiresMedia: false,
    requiresVideo: false,
    images: { max: 10, carouselMin: 2, mimeTypes: COMMON_IMAGES, maxBytes: 4 * MB, sameDimensions: false },
    video: { allowed: true, minSeconds: 1, maxSeconds: 14400, maxBytes: 10 * GB },
    mixedMedia: false,
    source: "https://developers.facebook.com/docs/pages-api/posts/",
  },
  tiktok: {
    network: "tiktok",
    label: "TikTok",
    caption: { maxLength: 2200, counting: "characters" },
    requiresMedia: true,
    requiresVideo: false,
    images: {
      max: 35,
      carouselMin: 1,
      mimeTypes: ["image/jpeg", "image/webp"],
      maxBytes: 20 * MB,
      sameDimensions: false,
    },
    video: { allowed: true, minSeconds: 3, maxSeconds: 600, maxBytes: 4 * GB },
    mixedMedia: false,
    source: "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post",
  },
  youtube: {
    network: "youtube",
    label: "YouTube",
    caption: { maxLength: 5000, counting: "characters" },
    requiresMedia: true,
    requiresVideo: true,
    images: { max: 0, carouselMin: 0, mimeTypes: [], maxBytes: 0, sameDimensions: false },
    video: { allowed: true, minSeconds: 1, maxSeconds: 180, maxBytes: 256 * GB },
    mixedMedia: false,
    source: "https://developers.google.com/youtube/v3/docs/videos/insert",
  },
  linkedin: {
    network: "linkedin",
    label: "LinkedIn",
    caption: { maxLength: 3000, counting: "characters" },
    requiresMedia: false,
    requiresVideo: false,
    images: { max: 20, carouselMin: 2, mimeTypes: COMMON_IMAGES, maxBytes: 36 * MB, sameDimensions: false },
    // Videos API: 3 s to 30 min, 75 KB to 500 MB, MP4.
    video: { allowed: true, minSeconds: 3, maxSeconds: 1800, maxBytes: 500 * MB },
    mixedMedia: false,
    source: "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api",
  },
  pinterest: {
    network: "pinterest",
    label: "Pinterest",
    caption: { maxLength: 500, counting: "characters" },
    requiresMedia: true,
    requiresVideo: false,
    images: { max: 5, carouselMin: 2, mimeTypes: COMMON_IMAGES, maxBytes: 20 * MB, sameDimensions: true },
    video: { allowed: true, minSeconds: 4, maxSeconds: 900, maxBytes: 2 * GB },
    mixedMedia: false,
    source: "https://developers.pinterest.com/docs/api/v5/pins-create",
  },
  x: {
    network: "x",
    label: "X",
    caption: { maxLength: 280, counting: "x-weighted" },
    requiresMedia: false,
    requiresVideo: false,
    images: {
      max: 4,
      carouselMin: 1,
      mimeTypes: ["image/jpeg", "image/png", "image/webp"],
      maxBytes: 5 * MB,
      sameDimensions: false,
    },
    video: { allowed: true, minSeconds: 1, maxSeconds: 140, maxBytes: 512 * MB },
    mixedMedia: false,
    source: "https://docs.x.com/x-api/posts/creation-of-a-post",
  },
};

/** One media item as validation sees it. */
export interface RuleMedia {
  kind: "image" | "video";
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
}

/** A broken rule: `rule` is a stable name, `message` a sentence naming the limit and the actual value. */
export interface RuleViolation {
  rule:
    | "caption_length"
    | "media_required"
    | "video_required"
    | "images_not_accepted"
    | "image_count"
    | "image_format"
    | "image_size"
    | "image_dimensions"
    | "video_not_accepted"
    | "video_count"
    | "video_duration"
    | "video_size"
    | "mixed_media";
  message: string;
}

/** Caption length as `network` counts it (X: twitter-text weighted length; others: code points). */
export function captionLength(network: Network, caption: string): number {
  return NETWORK_RULES[network].caption.counting === "x-weighted"
    ? twitterText.parseTweet(caption).weightedLength
    : [...caption].length;
}

const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;
const formatName = (mime: string) => mime.replace(/^image\//, "").toUpperCase();

/**
 * Checks one post against `network`'s rules. Pure; returns every violation (empty = accepted).
 * @param post caption (may be empty) and media in post order.
 */
export function checkNetworkRules(
  network: Network,
  post: { caption: string; media: readonly RuleMedia[] },
): RuleViolation[] {
  const r = NETWORK_RULES[network];
  const out: RuleViolation[] = [];
  const length = captionLength(network, post.caption);
  if (length > r.caption.maxLength) {
    out.push({
      rule: "caption_length",
      message: `the caption is ${length} ${r.caption.counting === "x-weighted" ? "weighted characters (URLs count 23, emoji 2)" : "characters"}; ${r.label} accepts at most ${r.caption.maxLength}`,
    });
  }
  const images = post.media.filter((m) => m.kind === "image");
  const videos = post.media.filter((m) => m.kind === "video");
  if (post.media.length === 0) {
    if (r.requiresVideo)
      out.push({ rule: "video_required", message: `${r.label} needs a video; this post has none` });
    else if (r.requiresMedia)
      out.push({
        rule: "media_required",
        message: `${r.label} needs an image or a video; this post has text only`,
      });
    return out;
  }
  if (r.requiresVideo && videos.length === 0)
    out.push({
      rule: "video_required",
      message: `${r.label} needs a video; this post has ${images.length} image(s)`,
    });
  if (images.length > 0 && videos.length > 0 && !r.mixedMedia)
    out.push({ rule: "mixed_media", message: `${r.label} does not accept images and a video in one post` });
  if (images.length > 0) {
    if (r.images.max === 0) {
      if (!r.requiresVideo)
        out.push({ rule: "images_not_accepted", message: `${r.label} does not accept images` });
    } else {
      const count = r.mixedMedia ? post.media.length : images.length;
      if (count > r.images.max)
        out.push({
          rule: "image_count",
          message: `this post has ${count} items; ${r.label} accepts at most ${r.images.max} in one post`,
        });
      if (count > 1 && count < r.images.carouselMin)
        out.push({
          rule: "image_count",
          message: `a multi-image ${r.label} post needs at least ${r.images.carouselMin} items; this one has ${count}`,
        });
      images.forEach((m) => {
        const i = post.media.indexOf(m) + 1;
        if (!r.images.mimeTypes.includes(m.mime))
          out.push({
            rule: "image_format",
            message: `item ${i} is ${formatName(m.mime)}; ${r.label} accepts ${r.images.mimeTypes.map(formatName).join(" or ")} images only`,
          });
        if (m.bytes > r.images.maxBytes)
          out.push({
            rule: "image_size",
            message: `item ${i} is ${mb(m.bytes)}; ${r.label} accepts images up to ${mb(r.images.maxBytes)}`,
          });
      });
      if (r.images.sameDimensions && images.length > 1) {
        const first = images[0]!;
        if (images.some((m) => m.width !== first.width || m.height !== first.height))
          out.push({
            rule: "image_dimensions",
            message: `every image of a multi-image ${r.label} post must have the same width and height`,
          });
      }
    }
  }
  if (videos.length > 0) {
    if (!r.video.allowed) {
      out.push({ rule: "video_not_accepted", message: `${r.label} does not accept videos` });
    } else {
      if (videos.length > 1 && !r.mixedMedia)
        out.push({
          rule: "video_count",
          message: `${r.label} accepts one video per post; this post has ${videos.length}`,
        });
      for (const v of videos) {
        const i = post.media.indexOf(v) + 1;
        const d = v.durationSeconds;
        if (d !== null && (d < r.video.minSeconds || d > r.video.maxSeconds))
          out.push({
            rule: "video_duration",
            message: `item ${i} lasts ${Math.round(d * 10) / 10} s; ${r.label} accepts videos of ${r.video.minSeconds} to ${r.video.maxSeconds} s`,
          });
        if (v.bytes > r.video.maxBytes)
          out.push({
            rule: "video_size",
            message: `item ${i} is ${mb(v.bytes)}; ${r.label} accepts videos up to ${mb(r.video.maxBytes)}`,
          });
      }
    }
  }
  return out;
}

/** The table as rows for documentation (guide), in the order of NETWORKS. */
export function rulesRows(): NetworkRules[] {
  return NETWORKS.map((n) => NETWORK_RULES[n]);
}
