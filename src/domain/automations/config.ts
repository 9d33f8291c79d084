/**
 * Automation configuration rules (service spec 2.7, 8): `kind` is `video` or `carousel`; a video's
 * `configuration.type` is `ugc-video`, `grid-video` or `fade-video` with the matching `template_id`
 * (`ugc-video`, `2x2-grid`, `single-fade`); `cta_asset_id` is an owned stored video of 3 to 15 seconds and is
 * required for UGC. Automations run at daily configured times (HH:MM in a time zone) and manually only.
 */
import { SPEC_LIMITS } from "../../config/index.ts";
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import { productCtaArtwork, ownedProduct, resolveDesign } from "../carousels/carousels.ts";
import { type Owner, ownedBy } from "../owner.ts";
import type { Tone } from "../../providers/ai-text/types.ts";
import type { CarouselFormat, SlideCount } from "../carousels/formats.ts";

/**
 * Checks the destination accounts of generated posts: owned, distinct. TikTok is allowed here: its posts go
 * to the service's review UI instead of being published (service spec 1.11).
 * @throws ToolError not_found for an account that is not the owner's.
 */
async function assertDestinations(db: Knex, owner: Owner, ids: unknown): Promise<void> {
  if (ids === undefined) return;
  if (!Array.isArray(ids) || ids.some((id) => !isUuid(id))) throw notFound("social account");
  if (new Set(ids).size !== ids.length)
    throw fail("/configuration/social_account_ids", "social_account_ids must not repeat an account");
  if (ids.length === 0) return;
  const found = await db("social_accounts")
    .where(ownedBy(owner))
    .whereIn("id", ids)
    .count({ n: "*" })
    .first();
  if (Number(found?.n ?? 0) !== ids.length) throw notFound("social account");
}

export const AUTOMATION_KINDS = ["video", "carousel"] as const;
export type AutomationKind = (typeof AUTOMATION_KINDS)[number];

/** Video type -> its only template id. */
export const VIDEO_TEMPLATES = {
  "ugc-video": "ugc-video",
  "grid-video": "2x2-grid",
  "fade-video": "single-fade",
} as const;
export type VideoType = keyof typeof VIDEO_TEMPLATES;
export type TemplateId = (typeof VIDEO_TEMPLATES)[VideoType];

/** CTA video length bounds, seconds (service spec 8). */
export const CTA_MIN_SECONDS = SPEC_LIMITS.ugcCtaVideoSeconds.min;
export const CTA_MAX_SECONDS = SPEC_LIMITS.ugcCtaVideoSeconds.max;

/** Fields every configuration may carry: the tone of generated captions and the destination accounts. */
type Delivery = { caption_tone?: Tone; social_account_ids?: string[] };

/** A video automation's configuration: the type and its only template (VIDEO_TEMPLATES). */
export type VideoConfiguration = Delivery & { product_id: string } & (
    | { type: "ugc-video"; template_id: "ugc-video"; hook?: string }
    | { type: "grid-video"; template_id: "2x2-grid" }
    | { type: "fade-video"; template_id: "single-fade" }
  );

/** A carousel automation's configuration: product, design and slide count (format defaults to the design's). */
export type CarouselConfiguration = Delivery & {
  product_id: string;
  design_id: string;
  slide_count: SlideCount;
  format?: CarouselFormat;
  use_cta_artwork?: boolean;
};

/** A saved automation's `configuration` (service spec 2.7), as `validateSettings` accepted it. */
export type AutomationConfiguration = VideoConfiguration | CarouselConfiguration;

export interface AutomationSettings {
  kind: AutomationKind;
  configuration: Record<string, unknown>;
  cta_asset_id: string | null;
  daily_times: string[];
  time_zone: string;
}

function fail(path: string, message: string, params: Record<string, unknown> = {}): ToolError {
  return ToolError.validation(message, { path, keyword: "rule", params });
}

/**
 * Checks `cta_asset_id`: an owned, live, stored video of 3 to 15 seconds (media_assets.duration_seconds).
 * @throws ToolError not_found (not the owner's) / validation_failed (not a video, unknown or wrong length).
 */
export async function assertCtaVideo(db: Knex, owner: Owner, assetId: string): Promise<void> {
  if (!isUuid(assetId)) throw notFound("media asset");
  const a = await db("media_assets")
    .where(ownedBy(owner))
    .where({ id: assetId })
    .whereNull("deleted_at")
    .first();
  if (!a) throw notFound("media asset");
  if (a.kind !== "video")
    throw fail("/cta_asset_id", "cta_asset_id must be a stored video (the CTA clip), not an image");
  const d = a.duration_seconds === null ? null : Number(a.duration_seconds);
  if (d === null || !Number.isFinite(d) || d < CTA_MIN_SECONDS || d > CTA_MAX_SECONDS) {
    throw fail(
      "/cta_asset_id",
      `the CTA video must be ${CTA_MIN_SECONDS} to ${CTA_MAX_SECONDS} seconds long; this one is ${d === null ? "of unknown length" : `${d} seconds`}`,
      { minimum: CTA_MIN_SECONDS, maximum: CTA_MAX_SECONDS, duration_seconds: d },
    );
  }
}

/** True for an IANA time zone name the runtime knows. */
function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates a complete automation definition for `owner` and returns it normalised (daily times sorted,
 * deduplicated). Products, designs and the CTA video are checked against the owner's records.
 * @throws ToolError validation_failed / not_found.
 */
export async function validateSettings(
  db: Knex,
  owner: Owner,
  s: AutomationSettings,
): Promise<AutomationSettings> {
  const c = s.configuration;
  if (s.kind === "video") {
    const type = c.type as string;
    if (!Object.hasOwn(VIDEO_TEMPLATES, type)) {
      throw fail("/configuration/type", "configuration.type must be ugc-video, grid-video or fade-video");
    }
    const expected = VIDEO_TEMPLATES[type as VideoType];
    if (c.template_id !== undefined && c.template_id !== expected) {
      throw fail("/configuration/template_id", `configuration.template_id must be ${expected} for ${type}`, {
        expected,
      });
    }
    if (type === "ugc-video" && !s.cta_asset_id) {
      throw fail(
        "/cta_asset_id",
        "cta_asset_id (a stored CTA video of 3 to 15 seconds) is required for ugc-video",
      );
    }
    if (s.cta_asset_id) await assertCtaVideo(db, owner, s.cta_asset_id);
    if (typeof c.product_id !== "string")
      throw fail("/configuration/product_id", "configuration.product_id is required");
    await ownedProduct(db, owner, c.product_id);
    await assertDestinations(db, owner, c.social_account_ids);
    return normaliseTimes({ ...s, configuration: { ...c, template_id: expected } });
  }
  if (s.kind === "carousel") {
    if (typeof c.product_id !== "string")
      throw fail(
        "/configuration/product_id",
        "configuration.product_id is required for a carousel automation",
      );
    await ownedProduct(db, owner, c.product_id);
    const design = await resolveDesign(
      db,
      String(c.design_id ?? ""),
      Number(c.slide_count),
      c.format as string | undefined,
    );
    if (c.use_cta_artwork === true) await productCtaArtwork(db, owner, c.product_id);
    if (s.cta_asset_id) await assertCtaVideo(db, owner, s.cta_asset_id);
    await assertDestinations(db, owner, c.social_account_ids);
    return normaliseTimes({ ...s, configuration: { ...c, format: design.format } });
  }
  throw fail("/kind", "kind must be video or carousel");
}

function normaliseTimes(s: AutomationSettings): AutomationSettings {
  for (const t of s.daily_times) {
    if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(t))
      throw fail("/daily_times", "daily_times entries must be HH:MM (24-hour)");
  }
  if (!isTimeZone(s.time_zone))
    throw fail("/time_zone", "time_zone must be an IANA time zone such as America/New_York");
  return { ...s, daily_times: [...new Set(s.daily_times)].sort() };
}
