/**
 * The TikTok review flow (service spec 1.11: no tool can publish to the short-video network; the creator's
 * options and consent are given on this service's /review page, src/web/review.ts). Lists what waits for
 * TikTok, and turns one Publish into: the consent record (user, time, IP, options, declaration;
 * `tiktok_consents`) plus a `pending` delivery carrying exactly those options, in one transaction; the
 * delivery engine (./engine.ts) then publishes it.
 *
 * What waits for TikTok: deliveries in `needs_review` on the owner's TikTok accounts (automation output), and
 * per TikTok account the owner's approved posts and posts published on other networks that the account does
 * not have yet, which the user may pick (a new delivery is created for them). The consent binds the content
 * as an approval does (./content.ts): the form carries the fingerprint of the content the page showed, a
 * consent for a post that changed since is refused, and the delivery engine checks it before publishing.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import type { TikTokPostOptions } from "../../providers/social/tiktok/options.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { isUuid } from "../../ids.ts";
import {
  assertNewDestinations,
  deliveriesQuery,
  type DeliveryView,
  deliveryView,
  ownedPost,
  assertPublishable,
} from "./deliveries.ts";
import { approvedContent, deliveryBinding, postContent, postFingerprint } from "./content.ts";
import { advanceDeliveries, refreshPostStatus } from "./engine.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import { postLabel } from "./publish.ts";
import { assertNetworkRules, type PostMedia, postMedia } from "./validate.ts";

export interface WaitingDelivery {
  deliveryId: string;
  postId: string;
  postType: string;
  label: string;
  accountId: string;
  handle: string | null;
}

export interface PickablePost {
  postId: string;
  postType: string;
  label: string;
  /** Display names of the networks the post is already published on (none for a post only approved). */
  publishedOn: string[];
}

export interface TikTokAccount {
  id: string;
  handle: string | null;
  displayName: string;
  status: string;
  mode: "live" | "sandbox";
}

/** Most items listed per section. */
const LIST_LIMIT = 50;

/** Delivery statuses meaning an account has the post, or will (published, on its way, waiting for review). */
const HAS_POST = ["published", "pending", "uploading", "processing", "outcome_unknown", "needs_review"];

/**
 * What waits for TikTok: deliveries in `needs_review` on the owner's TikTok accounts, and per TikTok account
 * the posts the user may pick for it: approved posts and posts published elsewhere, that the account does not
 * have yet (published, on its way or waiting). Newest first, at most LIST_LIMIT per list.
 */
export async function reviewQueue(
  db: Knex,
  owner: Owner,
): Promise<{
  waiting: WaitingDelivery[];
  accounts: Array<{ account: TikTokAccount; posts: PickablePost[] }>;
}> {
  const waitingRows = await db("deliveries as d")
    .join("social_accounts as a", "a.id", "d.social_account_id")
    .join("posts as p", "p.id", "d.post_id")
    .where(ownedBy(owner, "d"))
    .where({ "d.status": "needs_review", "a.network": "tiktok" })
    .whereNull("p.deleted_at")
    .orderBy("d.created_at", "desc")
    .limit(LIST_LIMIT)
    .select("d.id", "d.post_id", "p.type", "p.caption", "p.title", "a.id as account_id", "a.handle");
  const accounts = await tiktokAccountsOf(db, owner);
  const lists = [];
  for (const account of accounts) lists.push({ account, posts: await pickableFor(db, owner, account.id) });
  return {
    waiting: waitingRows.map((r: any) => ({
      deliveryId: r.id,
      postId: r.post_id,
      postType: r.type,
      label: postLabel(r),
      accountId: r.account_id,
      handle: r.handle,
    })),
    accounts: lists,
  };
}

/** The approved posts and posts published elsewhere that TikTok account `accountId` does not have yet. */
async function pickableFor(db: Knex, owner: Owner, accountId: string): Promise<PickablePost[]> {
  const rows = await db("posts as p")
    .where(ownedBy(owner, "p"))
    .whereNull("p.deleted_at")
    .where((q) =>
      q
        .where("p.status", "approved")
        .orWhereExists((e) =>
          e.select(1).from("deliveries as d").whereRaw("d.post_id = p.id").where("d.status", "published"),
        ),
    )
    .whereNotExists((e) =>
      e
        .select(1)
        .from("deliveries as d")
        .whereRaw("d.post_id = p.id")
        .where("d.social_account_id", accountId)
        .whereIn("d.status", HAS_POST),
    )
    .orderBy("p.updated_at", "desc")
    .limit(LIST_LIMIT)
    .select(
      "p.id",
      "p.type",
      "p.caption",
      "p.title",
      "p.approved_fingerprint",
      db.raw(
        `array(select distinct a.network from deliveries d join social_accounts a on a.id = d.social_account_id
               where d.post_id = p.id and d.status = 'published' order by a.network) as published_on`,
      ),
    );
  // A carousel whose slides changed since its approval (regenerated after it was published) needs a new
  // approve_carousel first: it is not offered.
  const approved: any[] = [];
  for (const r of rows as any[]) {
    if (r.type === "carousel" && r.approved_fingerprint) {
      if (postFingerprint(await postContent(db, r.id)) !== r.approved_fingerprint) continue;
    }
    approved.push(r);
  }
  return approved.map((r: any) => ({
    postId: r.id,
    postType: r.type,
    label: postLabel(r),
    publishedOn: (r.published_on as Network[]).map((n) => NETWORK_RULES[n]?.label ?? n),
  }));
}

/** The owner's TikTok accounts that are not disconnected. */
export async function tiktokAccountsOf(db: Knex, owner: Owner): Promise<TikTokAccount[]> {
  const rows = await db("social_accounts")
    .where(ownedBy(owner))
    .where({ network: "tiktok" })
    .whereNot({ status: "disconnected" })
    .orderBy([{ column: "display_name" }, { column: "id" }])
    .select("id", "handle", "display_name", "status", "mode");
  return rows.map((r: any) => ({
    id: r.id,
    handle: r.handle,
    displayName: r.display_name,
    status: r.status,
    mode: r.mode === "live" ? "live" : "sandbox",
  }));
}

export interface ReviewTarget {
  post: { id: string; type: string; status: string; caption: string | null; title: string | null };
  media: PostMedia[];
  /**
   * The content fingerprint of the post as the page shows it (`reviewFingerprint`): the form carries it,
   * and the consent is refused when the post no longer has it.
   */
  fingerprint: string;
  /** The waiting delivery being reviewed, when the post came from the queue. */
  deliveryId: string | null;
  /** The account the waiting delivery was made for. */
  accountId: string | null;
}

/**
 * The post (and optionally its waiting delivery) to review.
 * @throws ToolError not_found when the post, or the delivery (owned, `needs_review`, TikTok, of this post),
 *   is not the owner's.
 */
export async function reviewTarget(
  db: Knex,
  owner: Owner,
  postId: string,
  deliveryId: string | undefined,
): Promise<ReviewTarget> {
  const post = await ownedPost(db, owner, postId);
  let accountId: string | null = null;
  if (deliveryId) {
    if (!isUuid(deliveryId)) throw notFound("delivery");
    const d = await db("deliveries as d")
      .join("social_accounts as a", "a.id", "d.social_account_id")
      .where(ownedBy(owner, "d"))
      .where({ "d.id": deliveryId, "d.post_id": post.id, "d.status": "needs_review", "a.network": "tiktok" })
      .first("d.social_account_id");
    if (!d) throw notFound("delivery");
    accountId = d.social_account_id;
  }
  return {
    post,
    media: await postMedia(db, post),
    fingerprint: await reviewFingerprint(db, post.id),
    deliveryId: deliveryId ?? null,
    accountId,
  };
}

/**
 * The content fingerprint of post `postId` for a TikTok destination (./content.ts `destinationFingerprint`:
 * type, title, caption, slide images, media; TikTok has no link or board): what a delivery made by the
 * consent is bound to.
 */
export async function reviewFingerprint(db: Knex, postId: string): Promise<string> {
  return postFingerprint(await postContent(db, postId));
}

/** The refusal of a consent given on a page drawn before the post changed. */
export const REVIEW_PAGE_STALE =
  "The post changed after this page was shown (its slides, caption, title or media); nothing was sent to TikTok. The page now shows the current version: review it, then publish again.";

export interface ConsentInput {
  postId: string;
  deliveryId: string | undefined;
  accountId: string;
  options: TikTokPostOptions;
  declaration: string;
  ip: string | null;
  /** The content fingerprint the page showed (the form's `content_fingerprint`); the consent binds it. */
  shownFingerprint: string | undefined;
}

/**
 * Records the consent and queues the delivery with exactly `options`, then lets the engine start on it in
 * the background (the worker's delivery pass carries on if this process stops).
 * @returns the delivery id.
 * @throws ToolError not_found (post, delivery or account not the owner's) | validation_failed (the account is
 *   not a connected TikTok account; the post cannot be published; a network rule is broken).
 */
export async function consentAndQueue(app: AppContext, owner: Owner, input: ConsentInput): Promise<string> {
  const id = await app.db.transaction(async (trx) => {
    if (!isUuid(input.accountId)) throw notFound("social account");
    const account = await trx("social_accounts")
      .where(ownedBy(owner))
      .where({ id: input.accountId, network: "tiktok" })
      .first("id", "network", "display_name", "handle", "status");
    if (!account) throw notFound("social account");
    if (account.status !== "connected") {
      throw new ToolError(
        "validation_failed",
        "the TikTok account needs to be reconnected in the browser first",
      );
    }
    const target = await reviewTarget(trx, owner, input.postId, input.deliveryId);
    const destination = {
      social_account_id: account.id,
      network: "tiktok" as const,
      display_name: account.display_name,
      handle: account.handle,
      status: account.status,
    };
    if (!target.deliveryId) {
      await assertPublishable(trx, target.post);
      await assertNewDestinations(trx, target.post.id, [destination]);
    }
    await assertNetworkRules(trx, target.post as never, [destination]);
    // The consent binds what the page showed, as an approval does (./content.ts): a post that changed after
    // the page was drawn (a slide regenerated meanwhile) is refused, and the page is drawn again.
    const binding = deliveryBinding(await approvedContent(trx, target.post.id, [destination]), account.id);
    if (!input.shownFingerprint || input.shownFingerprint !== binding.content_fingerprint)
      throw new ToolError("validation_failed", REVIEW_PAGE_STALE);
    const now = app.clock.now();
    let deliveryId: string;
    if (target.deliveryId) {
      const updated = await trx("deliveries")
        .where({ id: target.deliveryId, status: "needs_review" })
        .update({
          social_account_id: account.id,
          options: JSON.stringify(input.options),
          status: "pending",
          error: null,
          ...binding,
          updated_at: now,
        });
      if (updated !== 1) throw notFound("delivery");
      deliveryId = target.deliveryId;
    } else {
      const [row] = await trx("deliveries")
        .insert({
          ...ownedBy(owner),
          post_id: target.post.id,
          social_account_id: account.id,
          status: "pending",
          options: JSON.stringify(input.options),
          ...binding,
          created_at: now,
          updated_at: now,
        })
        .returning("id");
      deliveryId = row.id;
    }
    await trx("tiktok_consents").insert({
      ...ownedBy(owner),
      post_id: target.post.id,
      social_account_id: account.id,
      delivery_id: deliveryId,
      ip: input.ip,
      options: JSON.stringify(input.options),
      declaration: input.declaration,
      consented_at: now,
    });
    await refreshPostStatus(trx, target.post.id, now);
    return deliveryId;
  });
  void advanceDeliveries(app, [id], { budgetSeconds: 120 }).catch((err: unknown) => {
    app.log.warn({ delivery_id: id, err: (err as Error).name }, "review: background delivery step failed");
  });
  return id;
}

/** The owner's delivery for the status page. @throws ToolError not_found. */
export async function reviewedDelivery(db: Knex, owner: Owner, deliveryId: string): Promise<DeliveryView> {
  if (!isUuid(deliveryId)) throw notFound("delivery");
  const row = await deliveriesQuery(db, owner).where("d.id", deliveryId).first();
  if (!row) throw notFound("delivery");
  return deliveryView(row);
}
