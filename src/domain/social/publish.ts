/**
 * Publishing an existing post to owned destination accounts (service spec 1.7 social group, 1.11, 3.1):
 * `preparePublication` is the call-time check (used by `describe`, so an invalid or tiktok request never
 * reaches approval); `publishPost` is the approved effect, run by the worker.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import {
  assertNewDestinations,
  assertPublishable,
  type DeliveryView,
  deliveriesQuery,
  deliveryView,
  ownedPost,
  needsCarouselApproval,
} from "./deliveries.ts";
import {
  type ApprovedContent,
  approvedContent,
  assertApprovedContent,
  deliveryBinding,
  recordCarouselApproval,
} from "./content.ts";
import { advanceDeliveries } from "./engine.ts";
import { assertFirstComment, firstCommentColumns, withFirstComment } from "./first-comment.ts";
import { assertAccountSetup, assertNetworkRules } from "./validate.ts";
import { mediaInOrder } from "../media/media.ts";
import type { Owner } from "../owner.ts";
import { resolveDestinations, type SafeSocialAccount } from "./accounts.ts";

export interface PublicationRequest {
  post_id: string;
  social_account_ids: string[];
  /** Posted under the post once it is live (./first-comment.ts). */
  first_comment?: string | undefined;
}

export interface PreparedPublication {
  post: {
    id: string;
    type: string;
    status: string;
    caption: string | null;
    title: string | null;
    media_asset_ids?: string[] | null | undefined;
    updated_at?: Date | undefined;
  };
  accounts: SafeSocialAccount[];
  /** The post's media (images, the rendered video), in order. */
  media: Array<{ kind: "image" | "video"; asset_id: string }>;
  /** The first comment of the request, checked against every destination's comment limit. */
  firstComment: string | null;
}

/** A short, safe label of a post for the approval page: the caption excerpt or title (shown escaped). */
export function postLabel(post: { type: string; caption: string | null; title: string | null }): string {
  const text = (post.caption ?? post.title ?? "").replace(/\s+/g, " ").trim();
  if (!text) return `Untitled ${post.type} post`;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * Validates a publication for `owner`: owned, publishable post; owned, distinct, non-tiktok accounts with
 * the settings publishing needs (the Pinterest board), none of which already has the post (published or on
 * its way): a post may go to more networks, never twice to one account.
 * @throws ToolError not_found / validation_failed / account_setup_required.
 */
export async function preparePublication(
  db: Knex,
  owner: Owner,
  req: PublicationRequest,
  options: { reviewUrl?: string | undefined } = {},
): Promise<PreparedPublication> {
  if (req.social_account_ids.length === 0) {
    throw new ToolError("validation_failed", "social_account_ids needs at least one destination account");
  }
  const post = await ownedPost(db, owner, req.post_id);
  const accounts = await resolveDestinations(db, owner, req.social_account_ids, options.reviewUrl);
  await assertAccountSetup(db, accounts);
  await assertPublishable(db, post);
  await assertNewDestinations(db, post.id, accounts);
  await assertNetworkRules(db, post, accounts);
  assertFirstComment(req.first_comment, accounts);
  const media = await mediaInOrder(
    db,
    owner,
    Array.isArray(post.media_asset_ids) ? post.media_asset_ids : [],
  );
  return { post, accounts, media, firstComment: req.first_comment ?? null };
}

/** The review page URL of this service (named in the TikTok refusal). */
export function reviewUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl}/review`;
}

/**
 * The content bound by the approval of `prepared`: re-read now and compared with `approved` (the content the
 * approval request recorded, when there is one).
 * @throws ToolError validation_failed when the post changed after it was approved.
 */
export async function boundContent(
  db: Knex,
  prepared: PreparedPublication,
  approved: ApprovedContent | undefined,
): Promise<ApprovedContent> {
  const current = withFirstComment(
    await approvedContent(db, prepared.post.id, prepared.accounts),
    prepared.firstComment,
  );
  if (approved) assertApprovedContent(approved, current);
  return approved ?? current;
}

/**
 * Publishes now: re-validates (the post or an account may have changed since approval) and checks that the
 * post is still what was approved (`approved`, the approval request's content), creates one pending delivery
 * per account carrying the approval's binding (fingerprint, Pinterest link and board), then runs the delivery
 * engine for a short while (./engine.ts `advanceDeliveries`); deliveries still on their way are carried on
 * by the worker's delivery pass.
 * @returns the post id and the deliveries.
 * @throws ToolError not_found / validation_failed (changed after approval, a destination already has it) /
 *   account_setup_required.
 */
export async function publishPost(
  app: AppContext,
  owner: Owner,
  req: PublicationRequest,
  operationId: string | undefined,
  signal?: AbortSignal,
  approved?: ApprovedContent,
): Promise<{ post_id: string; deliveries: DeliveryView[] }> {
  const ids = await app.db.transaction(async (trx) => {
    const prepared = await preparePublication(trx, owner, req, {
      reviewUrl: reviewUrl(app.config.publicBaseUrl),
    });
    const content = await boundContent(trx, prepared, approved);
    const now = app.clock.now();
    const rows = await trx("deliveries")
      .insert(
        prepared.accounts.map((a) => ({
          workspace_id: owner.workspaceId,
          user_id: owner.userId,
          post_id: prepared.post.id,
          social_account_id: a.social_account_id,
          status: "pending",
          operation_id: operationId ?? null,
          ...deliveryBinding(content, a.social_account_id),
          ...firstCommentColumns(content.first_comment, a.network),
          created_at: now,
          updated_at: now,
        })),
      )
      .returning("id");
    await recordCarouselApproval(trx, prepared.post, content, needsCarouselApproval(prepared.post));
    await trx("posts").where({ id: prepared.post.id }).update({ status: "publishing", updated_at: now });
    return rows.map((r: { id: string }) => r.id);
  });
  await advanceDeliveries(app, ids, { signal });
  const rows = await deliveriesQuery(app.db, owner).whereIn("d.id", ids).orderBy("a.network");
  return { post_id: req.post_id, deliveries: rows.map(deliveryView) };
}
