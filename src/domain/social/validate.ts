/**
 * Network rules checked at the call (service spec 3.1: `publish_post` and `schedule_post` answer
 * `validation_failed` before anything is created): the post's caption, title and media against each
 * destination's row of the rule table (src/providers/social/rules.ts, checked by rule-check.ts). The message
 * names the destination and every broken rule; `details.violations` lists them as data. `postProblems` gives
 * the same list per destination without refusing (the approval page's warnings). Also at the call: a live destination account must have the
 * settings publishing needs (`assertAccountSetup`: the Pinterest board), else `account_setup_required`.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { isUuid } from "../../ids.ts";
import { checkNetworkRules, type RuleMedia, type RuleViolation } from "../../providers/social/rule-check.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import { REQUIRED_ACCOUNT_SETTINGS } from "./account-settings.ts";
import { type Owner, ownedBy } from "../owner.ts";
import type { SafeSocialAccount } from "./accounts.ts";

/** One media asset of a post, in post order, with what the rules and the adapters need. */
export interface PostMedia extends RuleMedia {
  assetId: string;
  storageKey: string;
}

/**
 * The media of a post in order: `media_asset_ids`, or for a carousel without them its slides' images by
 * position, each with its alt text (the post's `alt_texts` entry, else the asset's own). Deleted or missing
 * assets are skipped (the count rule then reports the shortfall).
 */
export async function postMedia(
  db: Knex,
  post: {
    id: string;
    type: string;
    media_asset_ids: string[] | null;
    /** The post's alt texts aligned with `media_asset_ids` (read from the post when not given). */
    alt_texts?: Array<string | null> | null | undefined;
  },
): Promise<PostMedia[]> {
  let ids = post.media_asset_ids ?? [];
  let postAlt: Array<string | null> = [];
  if (ids.length === 0 && post.type === "carousel") {
    const slides: Array<{ image_asset_id: string | null }> = await db("carousel_slides")
      .where({ post_id: post.id })
      .orderBy("position")
      .select("image_asset_id");
    ids = slides.map((s) => s.image_asset_id).filter((v): v is string => typeof v === "string");
  } else if (ids.length > 0) {
    const given =
      post.alt_texts !== undefined
        ? post.alt_texts
        : isUuid(post.id)
          ? (await db("posts").where({ id: post.id }).first("alt_texts"))?.alt_texts
          : null;
    postAlt = Array.isArray(given) ? given : [];
  }
  if (ids.length === 0) return [];
  const rows: Array<Record<string, any>> = await db("media_assets")
    .whereIn("id", ids)
    .whereNull("deleted_at");
  return postMediaOf(ids, postAlt, rows);
}

/**
 * The media of a post in order from its `media_asset_ids` (`ids`), its alt texts aligned with them and the
 * `media_assets` rows the caller read (missing or deleted ones left out), as `postMedia` gives them.
 */
export function postMediaOf(
  ids: readonly string[],
  postAlt: ReadonlyArray<string | null>,
  rows: ReadonlyArray<Record<string, any>>,
): PostMedia[] {
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  return ids
    .map((id, i) => ({ r: byId.get(id), alt: postAlt[i] ?? null }))
    .filter((x): x is { r: Record<string, any>; alt: string | null } => x.r !== undefined)
    .map(({ r, alt }) => ({
      assetId: r.id,
      storageKey: r.storage_key,
      kind: r.kind === "video" ? "video" : "image",
      mime: r.mime_type,
      bytes: Number(r.bytes),
      width: r.width ?? null,
      height: r.height ?? null,
      durationSeconds:
        r.duration_seconds === null || r.duration_seconds === undefined ? null : Number(r.duration_seconds),
      frameRate: r.frame_rate === null || r.frame_rate === undefined ? null : Number(r.frame_rate),
      videoCodec: r.video_codec ?? null,
      audioCodec: r.audio_codec ?? null,
      altText: alt ?? r.alt_text ?? null,
    }));
}

/** A post as the rule checks read it. */
export interface CheckedPost {
  id: string;
  type: string;
  caption: string | null;
  title?: string | null | undefined;
  media_asset_ids: string[] | null;
}

/** One destination's problems with a post (the rule table's checks, src/providers/social/rule-check.ts). */
export interface DestinationProblems {
  social_account_id: string;
  display_name: string;
  network: Network;
  /** Each broken rule: its stable name and a sentence naming the limit and the value found. */
  problems: RuleViolation[];
}

/**
 * The problems of `post` for each of `accounts` (caption or title too long, too many hashtags, a media kind,
 * count, size, duration or aspect ratio the network refuses), in the accounts' order; a destination without
 * problems is left out. What publish_post and schedule_post refuse with, and what an approval page warns
 * with per destination.
 */
export async function postProblems(
  db: Knex,
  post: CheckedPost,
  accounts: ReadonlyArray<Pick<SafeSocialAccount, "social_account_id" | "display_name" | "network">>,
): Promise<DestinationProblems[]> {
  const media = await postMedia(db, post);
  return accounts
    .map((a) => ({
      social_account_id: a.social_account_id,
      display_name: a.display_name,
      network: a.network,
      problems: checkNetworkRules(a.network, { caption: post.caption ?? "", title: post.title, media }),
    }))
    .filter((d) => d.problems.length > 0);
}

/**
 * The problems of `post` for each of `owner`'s accounts that are not disconnected (`postProblems`), for an
 * approval that publishes nowhere yet (approve_carousel): the person approving sees which of their networks
 * would refuse the post as it is.
 */
export async function connectedAccountProblems(
  db: Knex,
  owner: Owner,
  post: CheckedPost,
): Promise<DestinationProblems[]> {
  const accounts: Array<{ social_account_id: string; display_name: string; network: Network }> = await db(
    "social_accounts",
  )
    .where(ownedBy(owner))
    .whereNot({ status: "disconnected" })
    .orderBy([{ column: "network" }, { column: "display_name" }])
    .select({ social_account_id: "id" }, "display_name", "network");
  return postProblems(db, post, accounts);
}

/** `found` as an approval page's warnings (ApprovalDescription `warnings`: destination, network, sentences). */
export function approvalWarnings(
  found: readonly DestinationProblems[],
): Array<{ destination: string; network: string; problems: string[] }> {
  return found.map((d) => ({
    destination: d.display_name,
    network: NETWORK_RULES[d.network].label,
    problems: d.problems.map((p) => p.message),
  }));
}

/**
 * Checks `post` against the rules of every destination (`postProblems`).
 * @throws ToolError validation_failed naming each failing destination (display name, network, account id)
 *   and its rules, with `details.violations: [{social_account_id, network, rule, message}]`.
 */
export async function assertNetworkRules(
  db: Knex,
  post: CheckedPost,
  accounts: readonly SafeSocialAccount[],
): Promise<void> {
  const found = await postProblems(db, post, accounts);
  if (found.length === 0) return;
  const violations = found.flatMap((d) =>
    d.problems.map((v) => ({
      social_account_id: d.social_account_id,
      network: d.network,
      rule: v.rule,
      message: v.message,
    })),
  );
  const sentences = found.map(
    (d) =>
      `destination "${d.display_name}" (${NETWORK_RULES[d.network].label}, social_account_id ${d.social_account_id}): ${d.problems
        .map((v) => `${v.rule}: ${v.message}`)
        .join("; ")}`,
  );
  throw new ToolError(
    "validation_failed",
    `the post breaks the rules of ${sentences.length === 1 ? "a destination" : "some destinations"}: ${sentences.join(" | ")}. Fix the post or remove the destination.`,
    { violations },
  );
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
      undefined,
      { actionPath: "/settings/social" },
    );
  }
}
