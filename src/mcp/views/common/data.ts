/**
 * The view data: what a tool result carries in `_meta["social-mcp/view"]` for hosts that show views
 * (src/mcp/ui/view-data.ts builds it, the views read it; docs/mcp-apps.md). It holds only what the
 * structured result cannot give a view: signed media URLs with their sizes, a carousel's pixel size and
 * caption, the rule checks of each destination network, and what an approval will do. Never a token.
 * Types only: shared by the server and the views' browser code.
 */

/** One media asset as a view shows it: a short-lived signed URL on the service's origin. */
export interface ViewMedia {
  asset_id: string;
  kind: "image" | "video";
  mime_type: string;
  /** `{PUBLIC_BASE_URL}/media/public/{asset}?exp=&sig=` (src/domain/media/public-url.ts). */
  url: string;
  /** Pixels; null when unknown. */
  width: number | null;
  height: number | null;
  /** Seconds (videos); null for images. */
  duration_seconds: number | null;
  /** Images of a post: the alt text sent with it (src/domain/media/alt-text.ts); absent or null when none. */
  alt_text?: string | null | undefined;
}

/** What a pending approval will do, in the words of its approval page (service spec 4.4). */
export interface ViewApproval {
  /** One sentence, e.g. "Publish the post “Summer sale…” to 2 accounts now". */
  summary: string;
  /** Accounts by name, with the network's name (`label`, e.g. "Instagram"). */
  destinations: Array<{ name: string; network: string; label: string }>;
  /** When it takes effect (ISO 8601), or null for now. */
  when: string | null;
  /** The configuration being approved, in plain words. */
  settings: Array<{ label: string; value: string }>;
  /** When the request expires unapproved (ISO 8601). */
  expires_at: string | null;
}

export interface CarouselViewData {
  view: "carousel";
  post_id: string;
  post_status: string;
  caption: string | null;
  /** Who wrote the caption: an AI provider's name, `local` for the offline stand-in, null when not generated. */
  caption_provider: string | null;
  design_id: string;
  format: string;
  /** The slides' size in pixels (from the format). */
  width: number;
  height: number;
  run: { run_id: string; kind: string; status: string; credits_charged: number; error: string | null };
  slides: Array<{
    position: number;
    status: "pending" | "generating" | "ready" | "failed";
    headline: string | null;
    body: string | null;
    image: ViewMedia | null;
    error: string | null;
    /** Who made its copy and image (`local`: the offline stand-in made either); null: nothing generated. */
    provider: string | null;
  }>;
  approval: ViewApproval | null;
  /** When the media URLs expire (ISO 8601). */
  media_expires_at: string;
}

/** One network's view of a post: the caption cut where the network cuts it, and its broken rules. */
export interface NetworkPreview {
  network: string;
  label: string;
  caption: {
    /** `characters` (code points) or `x-weighted` (twitter-text: URLs 23, emoji 2). */
    counting: "characters" | "x-weighted" | "utf8-bytes";
    limit: number;
    length: number;
    /** The caption up to the limit (all of it when it fits). */
    kept: string;
    /** What the network would not take (empty when it fits). */
    cut: string;
  };
  /** Broken rules of the network's row in the rule table (src/providers/social/rules.ts), as sentences. */
  problems: string[];
  /**
   * How the network changes the post (src/domain/social/post-fit.ts), e.g. "document, 6 pages": a LinkedIn
   * carousel is a document whose pages are the images.
   */
  format?: string | undefined;
  /** Pages of the document the network makes of the images (LinkedIn), when it makes one. */
  document_pages?: number | undefined;
}

export interface ViewDelivery {
  delivery_id: string;
  network: string;
  /** The network's name, e.g. "Instagram". */
  label: string;
  status: string;
  post_url: string | null;
  reason: string | null;
  scheduled_for: string | null;
  /** The first comment's status there (pending, posted, failed, unsupported); null without one. */
  first_comment: string | null;
}

export interface ViewPost {
  post_id: string;
  type: string;
  status: string;
  title: string | null;
  caption: string | null;
  /** Who wrote the caption (`local`: the offline stand-in); null when not generated. */
  caption_provider: string | null;
  media: ViewMedia[];
  /** Who made the media (a carousel's slides, a generated video; `local` when the stand-in made any). */
  media_provider: string | null;
  deliveries: ViewDelivery[];
  /** The first comment under the post: the one being approved, else the latest delivery's; null if none. */
  first_comment: string | null;
}

export interface PostViewData {
  view: "post";
  post: ViewPost | null;
  /** One preview per destination network (the approval's destinations, else the deliveries', else all). */
  networks: NetworkPreview[];
  approval: ViewApproval | null;
  media_expires_at: string;
}

export interface VideoViewData {
  view: "video";
  automation: { automation_id: string; name: string; kind: string; template_id: string | null } | null;
  run: {
    run_id: string;
    kind: string;
    status: string;
    trigger: string;
    credits_charged: number;
    created_at: string;
    finished_at: string | null;
    error: string | null;
  } | null;
  video: ViewMedia | null;
  /** Who made the video's generated parts (`local` when the offline stand-in made any); null: none. */
  video_provider: string | null;
  /** The posts the run produced. */
  posts: ViewPost[];
  approval: ViewApproval | null;
  media_expires_at: string;
}

export type ViewData = CarouselViewData | PostViewData | VideoViewData;
