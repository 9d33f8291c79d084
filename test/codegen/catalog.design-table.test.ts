/**
 * The catalog against the design (docs/spec/DESIGN.md section 4, written out below as the expected table):
 * every tool's name, scope, browser review, queued handler, budget and plan, in both the public catalog
 * (generated/catalog.json) and the runtime registry (generated/registry.ts). Adding a tool, removing one
 * or changing a flag (dropping `review: true` from publish_post, say) fails here until the design table
 * changes too. And none of the functions service spec 1.9 keeps out of the tool surface exists as a tool.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { TOOLS } from "../../generated/registry.ts";

type Budget = "read" | "write" | "ai" | "approval" | "delete";
interface Row {
  scope: string;
  review: boolean;
  queued: boolean;
  budget: Budget;
  plan: string | null;
}

const read = (scope: string, plan: "pro" | null = null): Row => ({
  scope,
  review: false,
  queued: false,
  budget: "read",
  plan,
});
const row = (scope: string, budget: Budget, flags: { review?: boolean; queued?: boolean } = {}): Row => ({
  scope,
  review: flags.review ?? false,
  queued: flags.queued ?? false,
  budget,
  plan: null,
});
const REVIEW = { review: true };
const QUEUED = { queued: true };

/** DESIGN.md section 4, row by row. */
const DESIGN_TABLE: Record<string, Row> = {
  // account
  get_profile: read("read:profile"),
  get_workspace: read("read:workspace"),
  get_credit_balance: read("read:profile"),
  get_account_settings: read("read:profile"),
  get_job_status: read("read:jobs"),
  // products
  list_products: read("read:products"),
  get_product: read("read:products"),
  list_product_assets: read("read:products"),
  create_product: row("create:products", "write"),
  update_product: row("manage:products", "write"),
  fetch_product_details: row("create:products", "ai", QUEUED),
  delete_product: row("delete:products", "delete", REVIEW),
  // content
  list_content: read("read:content"),
  search_content: read("read:content"),
  get_post: read("read:content"),
  create_text_post: row("create:content", "write"),
  create_image_post: row("create:content", "write"),
  delete_post: row("delete:content", "delete", REVIEW),
  // captions
  generate_captions: row("create:captions", "ai"),
  generate_ugc_hooks: row("create:captions", "ai"),
  // carousels
  list_carousel_formats: read("read:content"),
  get_carousel_outline: read("read:content"),
  get_carousel: read("read:content"),
  generate_carousel: row("create:carousels", "ai", QUEUED),
  regenerate_carousel_slide: row("manage:carousels", "ai", QUEUED),
  retry_carousel: row("manage:carousels", "ai", QUEUED),
  approve_carousel: row("manage:carousels", "approval", REVIEW),
  // media
  list_media: read("read:media"),
  search_media: read("read:media"),
  get_media: read("read:media"),
  // social
  list_connected_social_accounts: read("read:social_accounts"),
  list_deliveries: read("read:schedules"),
  get_schedule: read("read:schedules"),
  publish_post: row("publish:content", "approval", REVIEW),
  schedule_post: row("schedule:content", "approval", REVIEW),
  // added after the first catalog (DESIGN.md section 4)
  check_post: read("read:content"),
  schedule_posts: row("schedule:content", "approval", REVIEW),
  // automations
  list_automations: read("read:automations"),
  get_automation: read("read:automations"),
  list_automation_runs: read("read:automations"),
  get_automation_run: read("read:automations"),
  create_automation: row("create:automations", "write"),
  update_automation: row("manage:automations", "approval", REVIEW),
  enable_automation: row("manage:automations", "approval", REVIEW),
  disable_automation: row("manage:automations", "approval", REVIEW),
  run_automation: row("manage:automations", "approval", REVIEW),
  delete_automation: row("delete:automations", "delete", REVIEW),
  // analytics (Pro)
  get_account_analytics: read("read:analytics", "pro"),
  get_post_analytics: read("read:analytics", "pro"),
  get_best_performing_content: read("read:analytics", "pro"),
};

/**
 * Service spec 1.9: functions that are not available as tools, by the names a catalog would give them
 * (explicit names, then patterns for the families).
 */
const FORBIDDEN_NAMES = [
  "generate_image",
  "create_image",
  "create_campaign",
  "get_campaign",
  "list_campaigns",
  "update_campaign",
  "delete_campaign",
  "repurpose_article",
  "article_to_thread",
  "get_trending_topics",
  "get_optimal_posting_time",
  "render_video",
  "export_video",
  "upload_media",
  "delete_media",
  "connect_social_account",
  "disconnect_social_account",
  "update_post",
  "edit_post",
  "duplicate_post",
  "cancel_schedule",
  "reschedule_post",
  "upgrade_subscription",
  "update_billing",
  "grant_credits",
  "set_provider_key",
  "list_folders",
  "create_folder_automation",
];
const FORBIDDEN_PATTERNS = [
  /campaign/,
  /^(generate|create)_image$/,
  /repurpose|thread/,
  /trend/,
  /optimal|best_time/,
  /^(render|export)_video/,
  /^(upload|delete|import)_media/,
  /^(dis)?connect_/,
  /^(update|edit|duplicate)_post/,
  /^(cancel|reschedule|update|delete)_schedule|^reschedule/,
  /billing|subscription|upgrade|purchase|^(grant|buy|add)_credits/,
  /provider|api_key/,
  /folder/,
];

test("the catalog has exactly the design table's 50 tools (48 and the two added after) with its scopes, review and queued flags, budgets and plans", async () => {
  const catalog = JSON.parse(
    await readFile(new URL("../../generated/catalog.json", import.meta.url), "utf8"),
  );
  const fromCatalog = Object.fromEntries(
    (catalog.tools as Array<Record<string, any>>).map((t) => [
      t.name,
      {
        scope: t.scope,
        review: t.browser_approval,
        queued: t.queued_handler,
        budget: t.budget,
        plan: t.plan ?? null,
      } satisfies Row,
    ]),
  );
  assert.equal(Object.keys(DESIGN_TABLE).length, 50);
  assert.deepEqual(
    Object.keys(fromCatalog).sort(),
    Object.keys(DESIGN_TABLE).sort(),
    "no tool added or removed",
  );
  for (const [name, want] of Object.entries(DESIGN_TABLE)) assert.deepEqual(fromCatalog[name], want, name);
  // The registry the pipeline runs from says the same.
  const fromRegistry = Object.fromEntries(
    TOOLS.map((t) => [
      t.name,
      {
        scope: t.scope,
        review: t.review,
        queued: t.queued,
        budget: t.budget,
        plan: t.plan ?? null,
      } satisfies Row,
    ]),
  );
  assert.deepEqual(
    fromRegistry,
    Object.fromEntries(
      Object.keys(DESIGN_TABLE)
        .sort()
        .map((n) => [n, DESIGN_TABLE[n]]),
    ),
  );
  assert.equal(fromCatalog.publish_post?.review, true, "publishing always needs browser approval");
});

test("none of the functions service spec 1.9 keeps out of the tools exists as a tool", () => {
  const names = TOOLS.map((t) => t.name);
  for (const forbidden of FORBIDDEN_NAMES) assert.ok(!names.includes(forbidden), forbidden);
  for (const name of names)
    for (const pattern of FORBIDDEN_PATTERNS)
      assert.doesNotMatch(name, pattern, `${name} looks like a function spec 1.9 excludes`);
});
