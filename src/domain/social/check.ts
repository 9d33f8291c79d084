/**
 * check_post (DESIGN.md section 4: fail before spending or asking): whether a post can go to each of the
 * given accounts, creating nothing. Every destination gets the answers publish_post and schedule_post would
 * refuse it with, from the same checks (./accounts.ts resolveDestinations, ./validate.ts assertAccountSetup and
 * postProblems, ./deliveries.ts assertPublishable and assertNewDestinations), collected per destination instead
 * of refusing at the first: the network-rule table's rules by their stable names, and `tiktok_review_only`,
 * `account_status`, `account_setup`, `already_has_post`, `post_not_ready` and, for a `first_comment`,
 * `first_comment_length`; `format`, how a destination changes the post (./post-fit.ts: "document, 6 pages"
 * for a LinkedIn carousel, "no alt text"). A destination whose network takes no first comment (Pinterest,
 * TikTok) is not a problem (the post goes out without it): its `notes` say so.
 */
import type { Knex } from "../../db/knex.ts";
import { isUuid } from "../../ids.ts";
import { notFoundAt, ToolError } from "../../errors.ts";
import type { Network } from "../../providers/social/types.ts";
import type { PostStatus } from "../content/posts.ts";
import { type Owner, ownedBy } from "../owner.ts";
import type { SafeSocialAccount } from "./accounts.ts";
import { assertNewDestinations, assertPublishable, needsCarouselApproval, ownedPost } from "./deliveries.ts";
import { COMMENT_RULES } from "../../providers/social/published-rules.ts";
import { firstCommentProblem, unsupportedReason } from "./first-comment.ts";
import { destinationFits } from "./post-fit.ts";
import { assertAccountSetup, postMedia, postProblems } from "./validate.ts";

/** One problem: a stable rule name and the sentence publish_post or schedule_post would refuse with. */
export interface CheckProblem {
  rule: string;
  message: string;
}

export interface DestinationCheck {
  social_account_id: string;
  network: Network;
  display_name: string;
  ok: boolean;
  problems: CheckProblem[];
  /** How the network changes the post (./post-fit.ts), when it does. */
  format?: string;
  /** What goes out differently there without being refused (no first comment on Pinterest). */
  notes: string[];
}

export interface PostCheck {
  post_id: string;
  post_status: PostStatus;
  needs_approval: boolean;
  ok: boolean;
  destinations: DestinationCheck[];
}

/** The message of a ToolError `check` throws, as a problem named `rule`; nothing when it passes. */
async function problemOf(rule: string, check: () => Promise<unknown>): Promise<CheckProblem[]> {
  try {
    await check();
    return [];
  } catch (err) {
    if (err instanceof ToolError) return [{ rule, message: err.message }];
    throw err;
  }
}

/**
 * Checks post `postId` against each of `accountIds` (owned accounts that are not disconnected).
 * @throws ToolError not_found for the post, or at `/social_account_ids/i` for an account that is not the
 *   owner's.
 */
export async function checkPost(
  db: Knex,
  owner: Owner,
  postId: string,
  accountIds: readonly string[],
  firstComment?: string | undefined,
): Promise<PostCheck> {
  const post = await ownedPost(db, owner, postId);
  const rows: Array<SafeSocialAccount & { id: string }> = await db("social_accounts")
    .where(ownedBy(owner))
    .whereNot({ status: "disconnected" })
    .whereIn("id", accountIds.filter(isUuid))
    .select("id", "network", "display_name", "handle", "status");
  const accounts = accountIds.map((id, i) => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw notFoundAt("social account", `/social_account_ids/${i}`);
    return { ...row, social_account_id: row.id };
  });
  const postLevel = await problemOf("post_not_ready", () => assertPublishable(db, post));
  const rules = await postProblems(db, post, accounts);
  const fits = await destinationFits(db, accounts, await postMedia(db, post));
  const destinations: DestinationCheck[] = [];
  for (const a of accounts) {
    const problems: CheckProblem[] = [...postLevel];
    if (a.network === "tiktok")
      problems.push({
        rule: "tiktok_review_only",
        message:
          "TikTok posts cannot be published or scheduled through a tool: the user finishes them on the service's review page (/review)",
      });
    if (a.status !== "connected")
      problems.push({
        rule: "account_status",
        message: `the ${a.network} account "${a.display_name}" is ${a.status}: the user must reconnect it on /settings/social`,
      });
    problems.push(...(await problemOf("account_setup", () => assertAccountSetup(db, [a]))));
    problems.push(...(await problemOf("already_has_post", () => assertNewDestinations(db, post.id, [a]))));
    for (const v of rules.find((d) => d.social_account_id === a.social_account_id)?.problems ?? [])
      problems.push({ rule: v.rule, message: v.message });
    const comment = firstComment ? firstCommentProblem(firstComment, a.network) : undefined;
    if (comment)
      problems.push({ rule: "first_comment_length", message: `first_comment: ${comment.message}` });
    const unsupported = firstComment && COMMENT_RULES[a.network] === null;
    destinations.push({
      social_account_id: a.social_account_id,
      network: a.network,
      display_name: a.display_name,
      ok: problems.length === 0,
      problems,
      ...(fits.has(a.social_account_id) ? { format: fits.get(a.social_account_id)! } : {}),
      notes: unsupported ? [unsupportedReason(a.network)] : [],
    });
  }
  return {
    post_id: post.id,
    post_status: post.status as PostStatus,
    needs_approval: needsCarouselApproval(post),
    ok: destinations.every((d) => d.ok),
    destinations,
  };
}
