/**
 * Taking a post's published copies down (docs/social.md "Delete with removal from the networks"):
 * delete_post with `remove_from_networks: true` shows, on its approval page, every published copy of the
 * post and what will happen to it (`removalPlan`); after approval each copy is deleted through its network's
 * API where that API can (`removeCopies`: X, Facebook, LinkedIn, Pinterest, YouTube; the adapter's
 * `remover`, src/providers/social/published-post.ts). Where it cannot (Instagram's content publishing API,
 * TikTok's Content Posting API) the copy stays live and the result says so with its URL, so the person can
 * remove it by hand.
 *
 * Per delivery the result is `removed` (the delivery becomes `removed`, `removed_at` set: the analytics sync
 * reads published deliveries only, so it stops syncing it), `stays_live` (the delivery stays `published`) or
 * `failed` (the network refused or did not answer; the delivery stays `published`, the reason says why).
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { NetworkRateLimitError } from "../../providers/social/network.ts";
import { REMOVAL_RULES } from "../../providers/social/published-rules.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { missingScopes, readyAccount } from "./account-adapter.ts";

/** One published copy and what removal does to it. */
export interface RemovalPlanItem {
  delivery_id: string;
  network: Network;
  /** The account's display name and handle. */
  account: string;
  handle: string | null;
  post_url: string | null;
  /** `remove`: deleted through the network's API; `stays_live`: the API cannot delete it. */
  action: "remove" | "stays_live";
}

/** What happened to one published copy. */
export interface RemovalResult {
  delivery_id: string;
  network: Network;
  result: "removed" | "stays_live" | "failed";
  post_url: string | null;
  /** Why it stays live or failed (safe text); null when removed. */
  reason: string | null;
}

interface CopyRow {
  id: string;
  network: Network;
  display_name: string;
  handle: string | null;
  post_url: string | null;
  provider_post_id: string | null;
  network_ids: Record<string, unknown> | null;
  social_account_id: string;
  mode: "live" | "sandbox";
}

async function publishedCopies(db: Knex, owner: Owner, postId: string): Promise<CopyRow[]> {
  return db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .where(ownedBy(owner, "d"))
    .where({ "d.post_id": postId, "d.status": "published" })
    .orderBy([{ column: "a.network" }, { column: "d.id" }])
    .select(
      "d.id",
      "a.network",
      "a.display_name",
      "a.handle",
      "d.post_url",
      "d.provider_post_id",
      "d.network_ids",
      "d.social_account_id",
      "a.mode",
    );
}

/**
 * The sentence for a copy the service cannot delete: the network's API has no delete
 * (../../providers/social/published-rules.ts `REMOVAL_RULES`), or this service does not call it for the
 * account's adapter.
 */
export function staysLiveReason(network: Network, postUrl: string | null): string {
  const label = NETWORK_RULES[network].label;
  const why = REMOVAL_RULES[network].api
    ? `this service does not delete ${label} posts through the API`
    : `${label}'s API cannot delete a published post`;
  return `${why}: it stays live; remove it by hand${postUrl ? ` at ${postUrl}` : ` on ${label}`}`;
}

/**
 * The owner's published copies of post `postId` and what removal will do to each (for the approval page):
 * `remove` where the account's adapter can delete (`canRemove`: it has a `remover`), else `stays_live`.
 */
export async function removalPlan(
  db: Knex,
  owner: Owner,
  postId: string,
  canRemove: (network: Network, mode: "live" | "sandbox") => boolean,
): Promise<RemovalPlanItem[]> {
  return (await publishedCopies(db, owner, postId)).map((r) => ({
    delivery_id: r.id,
    network: r.network,
    account: r.display_name,
    handle: r.handle,
    post_url: r.post_url,
    action: canRemove(r.network, r.mode) ? "remove" : "stays_live",
  }));
}

/**
 * Deletes every published copy of post `postId` that its network's API can delete, one by one (the approved
 * effect of delete_post with `remove_from_networks`). A copy whose network has no delete stays live; a
 * refusal or a network that does not answer fails that copy only.
 * @returns one result per published copy, in the plan's order.
 */
export async function removeCopies(
  app: AppContext,
  owner: Owner,
  postId: string,
  signal?: AbortSignal,
): Promise<RemovalResult[]> {
  const out: RemovalResult[] = [];
  for (const r of await publishedCopies(app.db, owner, postId)) {
    const base = { delivery_id: r.id, network: r.network, post_url: r.post_url };
    try {
      const ready = await readyAccount(app, r.social_account_id);
      if (!ready.ok) {
        out.push({ ...base, result: "failed", reason: `${ready.reason}; the post stays live` });
        continue;
      }
      const remover = ready.adapter.remover;
      if (!remover) {
        out.push({ ...base, result: "stays_live", reason: staysLiveReason(r.network, r.post_url) });
        continue;
      }
      const missing = missingScopes(ready.adapterAccount, remover.scopes ?? []);
      if (missing.length > 0) {
        out.push({
          ...base,
          result: "failed",
          reason: `the ${ready.label} was connected without the ${missing.join(", ")} permission, which deleting needs; reconnect it on /settings/social; the post stays live`,
        });
        continue;
      }
      await remover.remove(
        ready.adapterAccount,
        {
          networkPostId: r.provider_post_id ?? "",
          postUrl: r.post_url,
          networkIds: r.network_ids ?? {},
          type: (await app.db("posts").where({ id: postId }).first("type"))?.type ?? "text",
        },
        signal,
      );
      const now = app.clock.now();
      await app
        .db("deliveries")
        .where({ id: r.id, status: "published" })
        .update({ status: "removed", removed_at: now, error: null, updated_at: now });
      out.push({ ...base, result: "removed", reason: null });
    } catch (err) {
      const safe =
        err instanceof Error && err.name.startsWith("Network") ? err.message.slice(0, 400) : "internal error";
      const reason =
        err instanceof NetworkRateLimitError
          ? `rate limited by ${NETWORK_RULES[r.network].label} (${safe}); the post stays live: remove it by hand`
          : `${safe}; the post stays live`;
      if (!(err instanceof Error && err.name.startsWith("Network")))
        app.log.warn({ delivery_id: r.id, errName: (err as Error)?.name }, "removal failed unexpectedly");
      out.push({ ...base, result: "failed", reason });
    }
  }
  return out;
}
