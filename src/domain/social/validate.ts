/**
 * Network rules checked at the call (service spec 3.1: `publish_post` and `schedule_post` answer
 * `validation_failed` before anything is created): the post's caption and media against each destination's
 * row of the rule table (src/providers/social/rules.ts). The message names the destination and every broken
 * rule; `details.violations` lists them as data. Also at the call: a live destination account must have the
 * settings publishing needs (`assertAccountSetup`: the Pinterest board), else `account_setup_required`.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { checkNetworkRules, NETWORK_RULES, type RuleMedia } from "../../providers/social/rules.ts";
import { REQUIRED_ACCOUNT_SETTINGS } from "./account-settings.ts";
import type { SafeSocialAccount } from "./accounts.ts";

/** One media asset of a post, in post order, with what the rules and the adapters need. */
export interface PostMedia extends RuleMedia {
  assetId: string;
  storageKey: string;
}

/**
 * The media of a post in order: `media_asset_ids`, or for a carousel without them its slides' images by
 * position. Deleted or missing assets are skipped (the count rule then reports the shortfall).
 */
export async function postMedia(
  db: Knex,
  post: { id: string; type: string; media_asset_ids: string[] | null },
): Promise<PostMedia[]> {
  let ids = post.media_asset_ids ?? [];
  if (ids.length === 0 && post.type === "carousel") {
    const slides: Array<{ image_asset_id: string | null }> = await db("carousel_slides")
      .where({ post_id: post.id })
      .orderBy("position")
      .select("image_asset_id");
    ids = slides.map((s) => s.image_asset_id).filter((v): v is string => typeof v === "string");
  }
  if (ids.length === 0) return [];
  const rows: Array<Record<string, any>> = await db("media_assets")
    .whereIn("id", ids)
    .whereNull("deleted_at");
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  return ids
    .map((id) => byId.get(id))
    .filter((r): r is Record<string, any> => r !== undefined)
    .map((r) => ({
      assetId: r.id,
      storageKey: r.storage_key,
      kind: r.kind === "video" ? "video" : "image",
      mime: r.mime_type,
      bytes: Number(r.bytes),
      width: r.width ?? null,
      height: r.height ?? null,
      durationSeconds:
        r.duration_seconds === null || r.duration_seconds === undefined ? null : Number(r.duration_seconds),
    }));
}

/**
 * Checks `post` against the rules of every destination.
 * @throws ToolError validation_failed naming each failing destination (display name, network, account id)
 *   and its rules, with `details.violations: [{social_account_id, network, rule, message}]`.
 */
export async function assertNetworkRules(
  db: Knex,
  post: { id: string; type: string; caption: string | null; media_asset_ids: string[] | null },
  accounts: readonly SafeSocialAccount[],
): Promise<void> {
  const media = await postMedia(db, post);
  const violations: Array<{ social_account_id: string; network: string; rule: string; message: string }> = [];
  const sentences: string[] = [];
  for (const a of accounts) {
    const found = checkNetworkRules(a.network, { caption: post.caption ?? "", media });
    if (found.length === 0) continue;
    for (const v of found)
      violations.push({
        social_account_id: a.social_account_id,
        network: a.network,
        rule: v.rule,
        message: v.message,
      });
    sentences.push(
      `destination "${a.display_name}" (${NETWORK_RULES[a.network].label}, social_account_id ${a.social_account_id}): ${found
        .map((v) => `${v.rule}: ${v.message}`)
        .join("; ")}`,
    );
  }
  if (violations.length > 0) {
    throw new ToolError(
      "validation_failed",
      `the post breaks the rules of ${sentences.length === 1 ? "a destination" : "some destinations"}: ${sentences.join(" | ")}. Fix the post or remove the destination.`,
      { violations },
    );
  }
}

/**
 * Refuses destinations whose live account lacks a setting publishing needs (`REQUIRED_ACCOUNT_SETTINGS`,
 * ./account-settings.ts: the Pinterest board), before anything is created.
 * @throws ToolError account_setup_required naming each account and what to choose on /settings/social, with
 *   `details.accounts: [{social_account_id, setting}]`.
 */
export async function assertAccountSetup(db: Knex, accounts: readonly SafeSocialAccount[]): Promise<void> {
  const concerned = accounts.filter((a) => REQUIRED_ACCOUNT_SETTINGS[a.network]);
  if (concerned.length === 0) return;
  const rows: Array<{ id: string; mode: string; settings: Record<string, unknown> | null }> = await db(
    "social_accounts",
  )
    .whereIn(
      "id",
      concerned.map((a) => a.social_account_id),
    )
    .select("id", "mode", "settings");
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing: Array<{ account: SafeSocialAccount; key: string; what: string }> = [];
  for (const a of concerned) {
    const row = byId.get(a.social_account_id);
    if (row?.mode !== "live") continue;
    for (const s of REQUIRED_ACCOUNT_SETTINGS[a.network]!) {
      const v = row.settings?.[s.key];
      if (typeof v !== "string" || v === "") missing.push({ account: a, ...s });
    }
  }
  if (missing.length > 0) {
    throw new ToolError(
      "account_setup_required",
      `${missing
        .map(
          (m) =>
            `the ${NETWORK_RULES[m.account.network].label} account "${m.account.display_name}" has no ${m.what} chosen`,
        )
        .join("; ")}: the user must choose it on /settings/social before publishing or scheduling to it`,
      {
        accounts: missing.map((m) => ({ social_account_id: m.account.social_account_id, setting: m.key })),
      },
    );
  }
}
