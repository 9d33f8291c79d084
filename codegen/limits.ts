/**
 * The limits of service spec 8 as the catalog and the guide publish them: per-user budgets, other limits,
 * the credits table (computed from src/domain/account/prices.ts, the prices the service charges) and the plan
 * quotas. Nothing is written here: configurable values are the defaults of src/config/ (an operator may
 * change them), the fixed ones are src/config/limits.ts SPEC_LIMITS, which the enforcing modules use too.
 */
import { loadConfig, SPEC_LIMITS } from "../src/config/index.ts";
import { PLAN_QUOTAS, PLANS } from "../src/domain/account/plans.ts";
import {
  carouselPrice,
  carouselWithCtaPrice,
  PRICES,
  TEXT_GENERATION_PRICE,
  videoPrice,
} from "../src/domain/account/prices.ts";

/** The `limits` object of catalog.json. Units are in the key names. */
export interface Limits {
  budgets_per_user_per_minute: Record<"read" | "write" | "ai" | "approval" | "delete", number>;
  requests_per_minute: Record<
    "mcp_endpoint_per_ip" | "oauth" | "client_registration" | "browser" | "download",
    number
  >;
  protocol_body_bytes: number;
  redirect_uris_per_client: { min: number; max: number };
  access_token_lifetime_seconds: number;
  refresh_token_lifetime_seconds: number;
  approval_expiry_seconds: number;
  stranded_redispatch_after_seconds: number;
  maintenance_interval_seconds: number;
  queue_retry_after_min_seconds: number;
  list_page_size: { default: number; max: number };
  top_content_items: number;
  ugc_cta_video_seconds: { min: number; max: number };
  credits: Array<{ action: string; credits: number }>;
  plans: Record<string, { owned_workspaces: number | null; automations: number | null }>;
}

/** Builds the limits from the configuration defaults and the spec's fixed values. */
export function resolveLimits(): Limits {
  const config = loadConfig({});
  return {
    budgets_per_user_per_minute: { ...config.budgets },
    requests_per_minute: {
      mcp_endpoint_per_ip: config.limits.mcpPerIp,
      oauth: config.limits.oauth,
      client_registration: config.limits.register,
      browser: config.limits.browser,
      download: config.limits.download,
    },
    protocol_body_bytes: SPEC_LIMITS.protocolBodyBytes,
    redirect_uris_per_client: { ...SPEC_LIMITS.redirectUrisPerClient },
    access_token_lifetime_seconds: SPEC_LIMITS.accessTokenLifetimeSeconds,
    refresh_token_lifetime_seconds: SPEC_LIMITS.refreshTokenLifetimeSeconds,
    approval_expiry_seconds: config.worker.approvalTtlSeconds,
    stranded_redispatch_after_seconds: config.worker.strandedAfterSeconds,
    maintenance_interval_seconds: SPEC_LIMITS.maintenanceIntervalSeconds,
    queue_retry_after_min_seconds: SPEC_LIMITS.queueRetryAfterMinSeconds,
    list_page_size: { ...SPEC_LIMITS.listPageSize },
    top_content_items: SPEC_LIMITS.topContentItems,
    ugc_cta_video_seconds: { ...SPEC_LIMITS.ugcCtaVideoSeconds },
    credits: [
      { action: "each generated image", credits: PRICES.generated_image },
      { action: "carousel of 6 newly generated images", credits: carouselPrice(6) },
      { action: "4-image 2x2 video", credits: videoPrice("2x2-grid") },
      { action: "single-fade image", credits: videoPrice("single-fade") },
      {
        action: "6-slide carousel with stored CTA artwork (replaces the last slide, 5 images generated)",
        credits: carouselWithCtaPrice(6),
      },
      { action: "AI UGC automation (needs a CTA video)", credits: videoPrice("ugc-video") },
      { action: "caption, hook and hashtag text generation", credits: TEXT_GENERATION_PRICE },
    ],
    plans: Object.fromEntries(
      PLANS.map((p) => [
        p,
        { owned_workspaces: PLAN_QUOTAS[p].ownedWorkspaces, automations: PLAN_QUOTAS[p].automations },
      ]),
    ),
  };
}
