/**
 * The network-rule table: what each network accepts in one post (caption length and hashtags, title, count
 * of images, image vs video, video length and size, image formats, aspect ratios per kind of media, whether
 * media or a video is required). One table, used by publish_post / schedule_post validation at the call and
 * by the approval page's warnings (src/domain/social/validate.ts), and printed in the developer guide
 * (codegen/emit/guide-networks.ts).
 *
 * Numbers come from the networks' public developer documentation as summarised in docs/social.md
 * (Instagram content publishing, Facebook Pages API, TikTok Content Posting API, YouTube Data API, LinkedIn
 * Posts API, Pinterest API v5, X API v2; aspect ratios: Instagram's content publishing reference and error
 * codes (subcode 2207009), LinkedIn's Videos API, Pinterest's and X's media specifications as summarised in
 * docs/social.md). Units: lengths in characters (X: weighted length as computed by the `twitter-text`
 * library; YouTube's description: bytes of UTF-8), durations in seconds, sizes in bytes, dimensions in pixels,
 * ratios as width / height.
 */
import { NETWORKS, type Network } from "./types.ts";

/** One mebibyte, bytes. */
export const MB = 1024 * 1024;
const GB = 1024 * MB;

/** A range of width:height ratios a network accepts for one kind of media. */
export interface AspectRange {
  /** What the network calls that media in the message ("feed image", "Reel", "video Pin"). */
  label: string;
  /** The narrowest accepted ratio, width / height (4:5 -> 0.8). */
  min: number;
  /** The widest accepted ratio, width / height (1.91:1 -> 1.91). */
  max: number;
  /** The range as the network's documentation writes it ("4:5 to 1.91:1"). */
  range: string;
}

/**
 * Which range an item is checked against: `image` (the only image of a post), `carousel_image` (an image of
 * a post with several items), `video` (a video, alone or in a carousel).
 */
export type AspectKind = "image" | "carousel_image" | "video";

export interface NetworkRules {
  network: Network;
  /** Display name of the network. */
  label: string;
  caption: {
    maxLength: number;
    /**
     * `characters`: Unicode code points; `x-weighted`: twitter-text weighted length (URLs 23, emoji 2);
     * `utf8-bytes`: bytes of UTF-8 (YouTube's description).
     */
    counting: "characters" | "x-weighted" | "utf8-bytes";
    /** What the network makes of the caption when it is not a caption (the Pin's or video's description). */
    sentAs?: "description";
    /** Most hashtags the caption may hold (Instagram: 30), counted as twitter-text extracts them. */
    maxHashtags?: number;
  };
  /**
   * The title the adapter sends, when the network has one: the first non-empty line of the post's title, and
   * with `fromCaption` (YouTube requires a title) else of its caption. Never cut: a longer one is refused.
   */
  title?: { maxLength: number; fromCaption: boolean };
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
    /** The placement's frame rate, resolution and codecs (a network without a video placement: none). */
    spec?: VideoSpec;
  };
  /** Images and videos may be mixed in one post (Instagram carousels). */
  mixedMedia: boolean;
  /** The aspect ratios the network accepts per kind of media; a kind not listed takes any ratio. */
  aspectRatios: Partial<Record<AspectKind, AspectRange>>;
  /**
   * A multi-image post sent as one document (LinkedIn document posts: a PDF, one page per image), when the
   * network takes one.
   */
  document?: DocumentRules;
  /** The network's alt text field for images, when it has one (a network without it: undefined). */
  altText?: AltTextRules;
  /**
   * The network's field for a description of a video (what it shows, for people who cannot see it), when it
   * has one; a video's description is its asset's or the post's alt text (src/domain/media/alt-text.ts).
   */
  videoDescription?: AltTextRules;
  /** Where the numbers come from. */
  source: string;
}

/** What a network takes as a document post (units: bytes, pages). */
export interface DocumentRules {
  /** The file type sent (`application/pdf`). */
  mimeType: string;
  maxBytes: number;
  maxPages: number;
  /** The network's page these numbers come from. */
  source: string;
}

/** A network's alt text of an image: the field it is sent in and its most characters (Unicode code points). */
export interface AltTextRules {
  /** The field as the network's reference names it (`alt_text`, `altText`, `alt_text_custom`). */
  field: string;
  /** Most characters; undefined when the network's reference states no limit. */
  maxLength?: number;
  /** The network's page these numbers come from. */
  source: string;
}

/**
 * What a network's video placement takes besides duration and size: frame rate, resolution and codecs, as its
 * specification page states them. A value the page does not state is not checked (undefined).
 */
export interface VideoSpec {
  /** The placement as the network names it ("Reels", "Shorts", "video Pins"). */
  placement: string;
  /** Frames per second, inclusive. */
  frameRate?: { min: number; max: number };
  /** Pixels: the shorter and the longer side's bounds (portrait and landscape alike), and the widest width. */
  resolution?: {
    minShortSide?: number;
    maxShortSide?: number;
    minLongSide?: number;
    maxLongSide?: number;
    maxWidth?: number;
  };
  /** Video codecs accepted, as ffprobe names them (`h264`, `hevc`, `vp9`). */
  videoCodecs?: readonly string[];
  /** Audio codecs accepted, as ffprobe names them (`aac`); a video without sound passes. */
  audioCodecs?: readonly string[];
  /** The network's page these numbers come from. */
  source: string;
}

const COMMON_IMAGES = ["image/jpeg", "image/png"] as const;
/** Instagram's feed range: 4:5 (portrait) to 1.91:1 (landscape); a 9:16 image is refused (subcode 2207009). */
const INSTAGRAM_FEED = { min: 0.8, max: 1.91, range: "4:5 to 1.91:1" } as const;

/** What a row states besides the defaults `row` fills in. */
type OwnRules = Omit<
  NetworkRules,
  "network" | "label" | "requiresMedia" | "requiresVideo" | "mixedMedia" | "aspectRatios" | "images" | "video"
> &
  Partial<Pick<NetworkRules, "requiresMedia" | "requiresVideo" | "mixedMedia" | "aspectRatios">> & {
    images: Omit<NetworkRules["images"], "sameDimensions"> & { sameDimensions?: boolean };
    video: Omit<NetworkRules["video"], "allowed"> & { allowed?: boolean };
  };

/**
 * A row of the table: `network`'s own rules over the defaults (text-only posts accepted, no video required,
 * images and a video not mixed, the images of a post may differ in size, videos accepted, any aspect ratio).
 */
function row(network: Network, label: string, own: OwnRules): NetworkRules {
  return {
    network,
    label,
    requiresMedia: false,
    requiresVideo: false,
    mixedMedia: false,
    aspectRatios: {},
    ...own,
    images: { sameDimensions: false, ...own.images },
    video: { allowed: true, ...own.video },
  };
}

/** The table (see the module comment for sources). */
export const NETWORK_RULES: Readonly<Record<Network, NetworkRules>> = {
  instagram: row("instagram", "Instagram", {
    caption: { maxLength: 2200, counting: "characters", maxHashtags: 30 },
    requiresMedia: true,
    images: { max: 10, carouselMin: 2, mimeTypes: ["image/jpeg"], maxBytes: 8 * MB },
    video: {
      minSeconds: 3,
      maxSeconds: 900,
      maxBytes: 300 * MB,
      // Reel specifications: MOV or MP4, HEVC or H.264, AAC audio, 23 to 60 fps, at most 1920 columns.
      spec: {
        placement: "Reels",
        frameRate: { min: 23, max: 60 },
        resolution: { maxWidth: 1920 },
        videoCodecs: ["h264", "hevc"],
        audioCodecs: ["aac"],
        source:
          "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#reel-specifications",
      },
    },
    mixedMedia: true,
    aspectRatios: {
      image: { label: "feed images", ...INSTAGRAM_FEED },
      carousel_image: { label: "carousel images", ...INSTAGRAM_FEED },
      video: { label: "Reels and carousel videos", min: 0.01, max: 10, range: "0.01:1 to 10:1" },
    },
    // IG User Media: `alt_text` of an image container (not Reels or stories), at most 1,000 characters.
    altText: {
      field: "alt_text",
      maxLength: 1000,
      source:
        "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media",
    },
    source: "https://developers.facebook.com/docs/instagram-platform/content-publishing/",
  }),
  facebook: row("facebook", "Facebook", {
    caption: { maxLength: 63206, counting: "characters" },
    images: { max: 10, carouselMin: 2, mimeTypes: COMMON_IMAGES, maxBytes: 4 * MB },
    video: {
      minSeconds: 1,
      maxSeconds: 14400,
      maxBytes: 10 * GB,
      // Video API specifications: H.264 or HEVC with AAC audio, 24 to 60 fps.
      spec: {
        placement: "videos",
        frameRate: { min: 24, max: 60 },
        videoCodecs: ["h264", "hevc"],
        audioCodecs: ["aac"],
        source: "https://developers.facebook.com/docs/video-api/guides/publishing",
      },
    },
    // Photo: `alt_text_custom` (the reference states no length limit).
    altText: {
      field: "alt_text_custom",
      source: "https://developers.facebook.com/docs/graph-api/reference/photo/",
    },
    source: "https://developers.facebook.com/docs/pages-api/posts/",
  }),
  tiktok: row("tiktok", "TikTok", {
    caption: { maxLength: 2200, counting: "characters" },
    requiresMedia: true,
    images: {
      max: 35,
      carouselMin: 1,
      mimeTypes: ["image/jpeg", "image/webp"],
      maxBytes: 20 * MB,
    },
    video: {
      minSeconds: 3,
      maxSeconds: 600,
      maxBytes: 4 * GB,
      // Media transfer guide, video restrictions: H.264, H.265, VP8 or VP9; 23 to 60 fps; each side 360 to
      // 4096 pixels.
      spec: {
        placement: "videos",
        frameRate: { min: 23, max: 60 },
        resolution: { minShortSide: 360, maxLongSide: 4096 },
        videoCodecs: ["h264", "hevc", "vp8", "vp9"],
        source: "https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide",
      },
    },
    source: "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post",
  }),
  youtube: row("youtube", "YouTube", {
    // snippet.description: at most 5000 bytes; snippet.title: at most 100 characters (videos#snippet).
    caption: { maxLength: 5000, counting: "utf8-bytes", sentAs: "description" },
    title: { maxLength: 100, fromCaption: true },
    requiresMedia: true,
    requiresVideo: true,
    images: { max: 0, carouselMin: 0, mimeTypes: [], maxBytes: 0 },
    video: {
      minSeconds: 1,
      maxSeconds: 180,
      maxBytes: 256 * GB,
      // Shorts: up to 3 minutes, square or vertical; YouTube's supported formats take these codecs (any frame
      // rate: "encode and upload in the same frame rate it was recorded").
      spec: {
        placement: "Shorts",
        videoCodecs: ["h264", "hevc", "vp8", "vp9", "av1", "mpeg4", "mpeg2video", "prores", "dnxhd"],
        source: "https://support.google.com/youtube/answer/1722171",
      },
    },
    source: "https://developers.google.com/youtube/v3/docs/videos#snippet",
  }),
  linkedin: row("linkedin", "LinkedIn", {
    caption: { maxLength: 3000, counting: "characters" },
    images: { max: 20, carouselMin: 2, mimeTypes: COMMON_IMAGES, maxBytes: 36 * MB },
    // Videos API: 3 s to 30 min, 75 KB to 500 MB, MP4, aspect ratio 1:2.4 to 2.4:1.
    video: {
      minSeconds: 3,
      maxSeconds: 1800,
      maxBytes: 500 * MB,
      // Video specifications: 10 to 60 fps, 256x144 to 4096x2304 pixels.
      spec: {
        placement: "videos",
        frameRate: { min: 10, max: 60 },
        resolution: { minShortSide: 144, minLongSide: 256, maxShortSide: 2304, maxLongSide: 4096 },
        source: "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api",
      },
    },
    aspectRatios: { video: { label: "videos", min: 1 / 2.4, max: 2.4, range: "1:2.4 to 2.4:1" } },
    // Documents API: PPT, PPTX, DOC, DOCX and PDF, at most 100 MB and 300 pages.
    document: {
      mimeType: "application/pdf",
      maxBytes: 100 * MB,
      maxPages: 300,
      source:
        "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api",
    },
    // Posts API: `altText` of a post's media and of each multiImage image, at most 4,086 characters.
    altText: {
      field: "altText",
      maxLength: 4086,
      source: "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api",
    },
    source: "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api",
  }),
  pinterest: row("pinterest", "Pinterest", {
    caption: { maxLength: 500, counting: "characters", sentAs: "description" },
    title: { maxLength: 100, fromCaption: false },
    requiresMedia: true,
    images: { max: 5, carouselMin: 2, mimeTypes: COMMON_IMAGES, maxBytes: 20 * MB, sameDimensions: true },
    video: {
      minSeconds: 4,
      maxSeconds: 900,
      maxBytes: 2 * GB,
      // Product specs, standard video Pins: .mp4, .mov or .m4v encoded with H.264 or H.265.
      spec: {
        placement: "video Pins",
        videoCodecs: ["h264", "hevc"],
        source: "https://help.pinterest.com/en/business/article/pinterest-product-specs",
      },
    },
    // Video Pins: taller than 1.91:1 and shorter than 1:2 (Pinterest's video specifications).
    aspectRatios: { video: { label: "video Pins", min: 0.5, max: 1.91, range: "1:2 to 1.91:1" } },
    // Create Pin: `alt_text`, at most 500 characters.
    altText: {
      field: "alt_text",
      maxLength: 500,
      source: "https://developers.pinterest.com/docs/api/v5/pins-create",
    },
    source: "https://developers.pinterest.com/docs/api/v5/pins-create",
  }),
  x: row("x", "X", {
    caption: { maxLength: 280, counting: "x-weighted" },
    images: {
      max: 4,
      carouselMin: 1,
      mimeTypes: ["image/jpeg", "image/png", "image/webp"],
      maxBytes: 5 * MB,
    },
    video: {
      minSeconds: 1,
      maxSeconds: 140,
      maxBytes: 512 * MB,
      // Media best practices: H.264 video with AAC LC audio, at most 60 fps, at least 32x32 pixels.
      spec: {
        placement: "videos",
        frameRate: { min: 1, max: 60 },
        resolution: { minShortSide: 32 },
        videoCodecs: ["h264"],
        audioCodecs: ["aac"],
        source: "https://docs.x.com/x-api/media/quickstart/best-practices",
      },
    },
    // Media best practices: a video's aspect ratio must be between 1:3 and 3:1.
    aspectRatios: { video: { label: "videos", min: 1 / 3, max: 3, range: "1:3 to 3:1" } },
    // Media metadata create: `alt_text.text`, at most 1,000 characters.
    altText: {
      field: "alt_text",
      maxLength: 1000,
      source: "https://docs.x.com/x-api/media/metadata-create",
    },
    // The same call for a video's media id: the v2 reference takes `alt_text` ("Description of media") for
    // any media, not only images and GIFs as the v1.1 endpoint did.
    videoDescription: {
      field: "alt_text",
      maxLength: 1000,
      source: "https://docs.x.com/x-api/media/create-media-metadata",
    },
    source: "https://docs.x.com/x-api/posts/creation-of-a-post",
  }),
};

/** The table as rows for documentation (guide), in the order of NETWORKS. */
export function rulesRows(): NetworkRules[] {
  return NETWORKS.map((n) => NETWORK_RULES[n]);
}
