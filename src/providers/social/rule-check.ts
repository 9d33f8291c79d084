/// <reference path="./twitter-text.d.ts" />
/**
 * The checks of the network-rule table (./rules.ts) on one post: its caption (length as each network counts
 * it, hashtags), its title, its media (count, types, sizes, durations) and their aspect ratios. Pure; used by
 * publish_post / schedule_post validation at the call and the approval page's warnings
 * (src/domain/social/validate.ts), and by the sandbox and the fakes for the networks' own counting.
 */
import type TwitterText from "twitter-text";
import { lazyRequire } from "../../lazy-require.ts";
import { type AspectKind, MB, NETWORK_RULES, type NetworkRules, type VideoSpec } from "./rules.ts";
import type { Network } from "./types.ts";

/** twitter-text (weighted length, hashtags), loaded on the first X caption weighed. */
const twitterText = lazyRequire<typeof TwitterText>("twitter-text");

/** One media item as validation sees it. */
export interface RuleMedia {
  kind: "image" | "video";
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  /** Videos: frames per second and ffprobe's codec names; null (or absent) when unknown: not checked. */
  frameRate?: number | null;
  videoCodec?: string | null;
  audioCodec?: string | null;
  /** Images: the alt text sent with it (rules.ts `altText`); null (or absent) when there is none. */
  altText?: string | null;
}

/** A broken rule: `rule` is a stable name, `message` a sentence naming the limit and the actual value. */
export interface RuleViolation {
  rule:
    | "caption_length"
    | "hashtag_count"
    | "title_length"
    | "media_required"
    | "video_required"
    | "images_not_accepted"
    | "image_count"
    | "image_format"
    | "image_size"
    | "image_dimensions"
    | "aspect_ratio"
    | "video_not_accepted"
    | "video_count"
    | "video_duration"
    | "video_size"
    | "video_frame_rate"
    | "video_resolution"
    | "video_codec"
    | "audio_codec"
    | "mixed_media"
    | "alt_text_length";
  message: string;
}

/**
 * Caption length as `network` counts it: X the twitter-text weighted length, YouTube the bytes of UTF-8 of its
 * description as sent (`<` and `>` as `‹` and `›`), the others Unicode code points.
 */
export function captionLength(network: Network, caption: string): number {
  const counting = NETWORK_RULES[network].caption.counting;
  if (counting === "x-weighted") return twitterText().parseTweet(caption).weightedLength;
  // YouTube refuses `<` and `>`: they are sent as `‹` and `›`, 3 bytes each (youtube/metadata.ts).
  if (counting === "utf8-bytes") return Buffer.byteLength(caption.replace(/[<>]/g, "‹"));
  return [...caption].length;
}

/**
 * The title `network`'s adapter sends for a post (see `NetworkRules.title`): the first non-empty line of the
 * post's title, else (when the network takes it from the caption) of its caption, spaces collapsed; "" when
 * there is none or the network has no title.
 */
export function postTitle(network: Network, post: { title?: string | null; caption: string }): string {
  const rule = NETWORK_RULES[network].title;
  if (!rule) return "";
  return firstLine(post.title) || (rule.fromCaption ? firstLine(post.caption) : "");
}

/** The first non-empty line of `text`, spaces collapsed and trimmed ("" when there is none). */
export function firstLine(text: string | null | undefined): string {
  return (
    (text ?? "")
      .split(/\r?\n/)
      .map((l) => l.replace(/\s+/g, " ").trim())
      .find((l) => l !== "") ?? ""
  );
}

const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;
const formatName = (mime: string) => mime.replace(/^image\//, "").toUpperCase();
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const hundredths = (v: number) => Math.round(v * 100) / 100;

/** `width`x`height` as a ratio for people: "0.56:1 (9:16)", the reduced terms only when they are small. */
export function ratioText(width: number, height: number): string {
  const d = gcd(width, height);
  const [w, h] = [width / d, height / d];
  const decimal = `${hundredths(width / height)}:1`;
  return w <= 50 && h <= 50 ? `${decimal} (${w}:${h})` : decimal;
}

/**
 * The text rules of `network` for a post: caption (or description) length, hashtags, title. Adapters that
 * would otherwise have to cut the text (YouTube's title and description, Pinterest's title) refuse a post
 * these find anything in (`textRefusal`), for deliveries that did not pass the call-time check.
 */
export function textViolations(
  network: Network,
  post: { caption: string; title?: string | null },
): RuleViolation[] {
  const r = NETWORK_RULES[network];
  const out: RuleViolation[] = [];
  const length = captionLength(network, post.caption);
  if (length > r.caption.maxLength) {
    const unit = {
      "x-weighted": "weighted characters (URLs count 23, emoji 2)",
      "utf8-bytes": "bytes of UTF-8",
      characters: "characters",
    }[r.caption.counting];
    const what = r.caption.sentAs ? `the caption (the ${r.label} ${r.caption.sentAs})` : "the caption";
    out.push({
      rule: "caption_length",
      message: `${what} is ${length} ${unit}; ${r.label} accepts at most ${r.caption.maxLength}`,
    });
  }
  const hashtags = twitterText().extractHashtags(post.caption).length;
  if (r.caption.maxHashtags !== undefined && hashtags > r.caption.maxHashtags)
    out.push({
      rule: "hashtag_count",
      message: `the caption has ${hashtags} hashtags; ${r.label} accepts at most ${r.caption.maxHashtags}`,
    });
  const title = [...postTitle(network, post)].length;
  if (r.title && title > r.title.maxLength) {
    const what = r.title.fromCaption
      ? "the title (the first line of the post's title, else of its caption)"
      : "the title (the first line of the post's title)";
    out.push({
      rule: "title_length",
      message: `${what} is ${title} characters; ${r.label} accepts at most ${r.title.maxLength}`,
    });
  }
  return out;
}

/** The delivery's failure reason when `post`'s text breaks `network`'s text rules; undefined when it fits. */
export function textRefusal(
  network: Network,
  post: { caption: string; title?: string | null },
): string | undefined {
  const found = textViolations(network, post);
  return found.length > 0 ? `${found.map((v) => v.message).join("; ")} (never cut)` : undefined;
}

/** The media rules: how many, which types, sizes and durations (aspect ratios are `aspectViolations`). */
function mediaViolations(r: NetworkRules, media: readonly RuleMedia[]): RuleViolation[] {
  const out: RuleViolation[] = [];
  const images = media.filter((m) => m.kind === "image");
  const videos = media.filter((m) => m.kind === "video");
  if (media.length === 0) {
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
      const count = r.mixedMedia ? media.length : images.length;
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
        const i = media.indexOf(m) + 1;
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
        const alt = m.altText ? [...m.altText].length : 0;
        const altMax = r.altText?.maxLength;
        if (altMax !== undefined && alt > altMax)
          out.push({
            rule: "alt_text_length",
            message: `item ${i}'s alt text has ${alt} characters; ${r.label} takes at most ${altMax} (${r.altText!.field})`,
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
        const i = media.indexOf(v) + 1;
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
        if (r.video.spec) out.push(...videoSpecViolations(r.label, r.video.spec, v, i));
      }
    }
  }
  return out;
}

/** Frame rate, resolution and codecs of video `v` (item `i`) against the placement's `spec`. */
function videoSpecViolations(network: string, spec: VideoSpec, v: RuleMedia, i: number): RuleViolation[] {
  const out: RuleViolation[] = [];
  const where = `${network} ${spec.placement}`;
  const fps = v.frameRate;
  if (
    spec.frameRate &&
    fps !== null &&
    fps !== undefined &&
    (fps < spec.frameRate.min || fps > spec.frameRate.max)
  )
    out.push({
      rule: "video_frame_rate",
      message: `item ${i} runs at ${fps} fps; ${where} take ${spec.frameRate.min} to ${spec.frameRate.max} fps`,
    });
  const res = spec.resolution;
  if (res && v.width && v.height) {
    const short = Math.min(v.width, v.height);
    const long = Math.max(v.width, v.height);
    const broken =
      (res.minShortSide !== undefined && short < res.minShortSide) ||
      (res.maxShortSide !== undefined && short > res.maxShortSide) ||
      (res.minLongSide !== undefined && long < res.minLongSide) ||
      (res.maxLongSide !== undefined && long > res.maxLongSide) ||
      (res.maxWidth !== undefined && v.width > res.maxWidth);
    if (broken)
      out.push({
        rule: "video_resolution",
        message: `item ${i} is ${v.width}x${v.height} pixels; ${where} take ${resolutionText(res)}`,
      });
  }
  if (spec.videoCodecs && v.videoCodec && !spec.videoCodecs.includes(v.videoCodec))
    out.push({
      rule: "video_codec",
      message: `item ${i} is encoded as ${v.videoCodec}; ${where} take ${spec.videoCodecs.join(", ")} video`,
    });
  if (spec.audioCodecs && v.audioCodec && !spec.audioCodecs.includes(v.audioCodec))
    out.push({
      rule: "audio_codec",
      message: `item ${i} has ${v.audioCodec} sound; ${where} take ${spec.audioCodecs.join(", ")} audio`,
    });
  return out;
}

/** A placement's resolution bounds in words ("each side at least 360 px, at most 4096 px"). */
function resolutionText(res: NonNullable<VideoSpec["resolution"]>): string {
  const parts: string[] = [];
  if (res.minShortSide !== undefined) parts.push(`a shorter side of at least ${res.minShortSide} px`);
  if (res.maxShortSide !== undefined) parts.push(`a shorter side of at most ${res.maxShortSide} px`);
  if (res.minLongSide !== undefined) parts.push(`a longer side of at least ${res.minLongSide} px`);
  if (res.maxLongSide !== undefined) parts.push(`a longer side of at most ${res.maxLongSide} px`);
  if (res.maxWidth !== undefined) parts.push(`a width of at most ${res.maxWidth} px`);
  return parts.join(", ");
}

/**
 * The aspect-ratio rule: each item of known width and height against the range of its kind (`AspectKind`:
 * the only image, an image among several items, a video), compared at two decimals as the networks write
 * their ranges (1080x566, 1.908, is Instagram's own example of 1.91:1).
 */
function aspectViolations(r: NetworkRules, media: readonly RuleMedia[]): RuleViolation[] {
  return media.flatMap((m, index): RuleViolation[] => {
    const kind: AspectKind = m.kind === "video" ? "video" : media.length > 1 ? "carousel_image" : "image";
    const range = r.aspectRatios[kind];
    if (!range || !m.width || !m.height) return [];
    const ratio = hundredths(m.width / m.height);
    if (ratio >= hundredths(range.min) && ratio <= hundredths(range.max)) return [];
    return [
      {
        rule: "aspect_ratio",
        message: `item ${index + 1} is ${m.width}x${m.height} pixels, ratio ${ratioText(m.width, m.height)}; ${r.label} accepts ${range.label} of ${range.range} only`,
      },
    ];
  });
}

/**
 * The problems of a post for one destination network: everything the network would refuse (or have to cut)
 * of its caption, title and media, by the table. Pure; every violation, in the order text, media, aspect
 * ratios (empty = accepted). publish_post and schedule_post refuse with these, and the approval page warns
 * with them per destination (src/domain/social/validate.ts).
 * @param post caption (may be empty), title (optional) and media in post order.
 */
export function checkNetworkRules(
  network: Network,
  post: { caption: string; title?: string | null; media: readonly RuleMedia[] },
): RuleViolation[] {
  const r = NETWORK_RULES[network];
  return [
    ...textViolations(network, post),
    ...mediaViolations(r, post.media),
    ...aspectViolations(r, post.media),
  ];
}
