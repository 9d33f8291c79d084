/**
 * A post's first comment (docs/social.md "First comments"): publish_post, schedule_post and schedule_posts
 * take an optional `first_comment`, checked at the call against each destination network's comment limit
 * (src/providers/social/published-rules.ts), bound by the approval (it is part of the approved content and its
 * fingerprint) and copied onto each delivery (`deliveries.first_comment`). Once the delivery is published the
 * comment is posted under the post through the adapter's `comments` (src/providers/social/published-post.ts):
 *
 * - `first_comment_status`: `pending` (waiting for the post, or retrying), `posted` (id and URL saved, once),
 *   `failed` (reason saved), `unsupported` (the network has no comment API: Pinterest, TikTok).
 * - A create is never repeated blindly: `first_comment_sent_at` is saved before the create is sent, and an
 *   attempt that finds it set first reads the post's comments (`find`) and records the one it finds, so a
 *   lost answer ends with exactly one comment at the network.
 * - A failed comment never fails the published delivery: the delivery stays `published`, and its view says
 *   `first_comment: {status: "failed", reason}`.
 * - Steps run under the delivery's lease (`locked_until`); transient errors retry with backoff 5 s, 10 s, ...
 *   (at most 15 min) up to 8 attempts; a rate limit waits what the network says.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { COMMENT_RULES, commentLength } from "../../providers/social/published-rules.ts";
import {
  NetworkAuthError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../../providers/social/network.ts";
import type { CommentJob, PostedComment } from "../../providers/social/published-post.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";
import type { ApprovedContent } from "../../tool-contract.ts";
import { missingScopes, readyAccount } from "./account-adapter.ts";

export type FirstCommentStatus = "pending" | "posted" | "failed" | "unsupported";

/**
 * A delivery's first comment as get_post, list_deliveries and get_schedule show it: `url` once posted
 * (its id is saved on the delivery), `reason` when it failed, waits or is unsupported.
 */
export interface FirstCommentView {
  status: FirstCommentStatus;
  url?: string;
  /** Why it failed, waits or is unsupported (safe text). */
  reason?: string;
}

/** Attempts before a first comment whose network does not answer is failed. */
const MAX_ATTEMPTS = 8;

/** The sentence saying that `network` takes no first comment. */
export function unsupportedReason(network: Network): string {
  return `${NETWORK_RULES[network].label} has no API to comment on a post: the first comment is not posted there`;
}

/**
 * Checks `text` against the comment limit of each destination's network.
 * @param path the argument's JSON pointer (`/first_comment`, `/items/0/first_comment`).
 * @throws ToolError validation_failed naming the field, the network, the limit and the length found; for an
 *   empty (blank) comment too.
 */
export function assertFirstComment(
  text: string | undefined,
  accounts: ReadonlyArray<{ network: Network }>,
  path = "/first_comment",
): void {
  if (text === undefined) return;
  if (text.trim() === "")
    throw ToolError.validation("first_comment must not be blank; leave it out for no first comment", {
      path,
      keyword: "minLength",
      params: { limit: 1 },
      rule: "must not be blank",
    });
  for (const network of new Set(accounts.map((a) => a.network))) {
    const problem = firstCommentProblem(text, network);
    if (!problem) continue;
    throw ToolError.validation(`first_comment: ${problem.message}`, {
      path,
      keyword: "maxLength",
      params: { network, limit: problem.limit, found: problem.found },
      rule: problem.message,
    });
  }
}

/** Why `text` is too long for `network`'s comments, or undefined when it fits (or the network has none). */
export function firstCommentProblem(
  text: string,
  network: Network,
): { message: string; limit: number; found: number } | undefined {
  const rule = COMMENT_RULES[network];
  if (!rule) return undefined;
  const found = commentLength(network, text);
  if (found <= rule.maxLength) return undefined;
  const unit = rule.counting === "x-weighted" ? "weighted characters" : "characters";
  return {
    message: `${NETWORK_RULES[network].label} comments take at most ${rule.maxLength} ${unit}; this one has ${found}`,
    limit: rule.maxLength,
    found,
  };
}

/**
 * Adds the first comment to the content an approval binds (and so to its fingerprint). Without one the
 * content is left as it is, so the fingerprint of a post without a first comment does not change.
 */
export function withFirstComment(content: ApprovedContent, text: string | null | undefined): ApprovedContent {
  return text ? { ...content, first_comment: text } : content;
}

/** The first-comment columns of a new delivery to `network` with the approved `text`. */
export function firstCommentColumns(
  text: string | null | undefined,
  network: Network,
): {
  first_comment: string | null;
  first_comment_status: FirstCommentStatus | null;
  first_comment_reason: string | null;
} {
  if (!text) return { first_comment: null, first_comment_status: null, first_comment_reason: null };
  const supported = COMMENT_RULES[network] !== null;
  return {
    first_comment: text,
    first_comment_status: supported ? "pending" : "unsupported",
    first_comment_reason: supported ? null : unsupportedReason(network),
  };
}

/** The view of a delivery row's first comment; null when the delivery has none. */
export function firstCommentView(row: {
  first_comment_status?: string | null;
  first_comment_url?: string | null;
  first_comment_reason?: string | null;
}): FirstCommentView | null {
  if (!row.first_comment_status) return null;
  const view: FirstCommentView = { status: row.first_comment_status as FirstCommentStatus };
  if (row.first_comment_url) view.url = row.first_comment_url;
  if (row.first_comment_reason && row.first_comment_status !== "posted")
    view.reason = row.first_comment_reason;
  return view;
}

interface CommentRow {
  id: string;
  social_account_id: string;
  provider_post_id: string | null;
  post_url: string | null;
  network_ids: Record<string, unknown> | null;
  first_comment: string;
  first_comment_sent_at: Date | null;
  first_comment_attempt: number;
  type: string;
  /** The post was deleted in the service: no comment is posted any more. */
  deleted: boolean;
}

/** Backoff after the `n`-th transient failure, seconds: 5, 10, 20, ... at most 900. */
function backoffSeconds(n: number): number {
  return Math.min(900, 5 * 2 ** Math.max(0, n - 1));
}

/** Safe text of an error: adapter messages only (they never carry secrets). */
function safeReason(err: unknown): string {
  return err instanceof Error && err.name.startsWith("Network")
    ? err.message.slice(0, 400)
    : "internal error";
}

async function settle(app: AppContext, id: string, patch: Record<string, unknown>): Promise<void> {
  await app
    .db("deliveries")
    .where({ id })
    .update({ ...patch, locked_until: null, updated_at: app.clock.now() });
}

/**
 * Posts the first comment of published delivery `id` when it is pending, due and unleased (one attempt:
 * reconcile a create that was sent, else create). @returns the comment's status after the attempt, or
 * undefined when the delivery was not claimed.
 */
export async function postFirstComment(
  app: AppContext,
  id: string,
  signal?: AbortSignal,
): Promise<FirstCommentStatus | undefined> {
  const now = app.clock.now();
  const [claimed] = (await app
    .db("deliveries")
    .where({ id, status: "published", first_comment_status: "pending" })
    .where((q) => q.whereNull("first_comment_next_at").orWhere("first_comment_next_at", "<=", now))
    .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
    .update({ locked_until: new Date(now.getTime() + app.config.social.deliveryLeaseSeconds * 1000) })
    .returning([
      "id",
      "post_id",
      "social_account_id",
      "provider_post_id",
      "post_url",
      "network_ids",
      "first_comment",
      "first_comment_sent_at",
      "first_comment_attempt",
    ])) as Array<Omit<CommentRow, "type" | "deleted"> & { post_id: string }>;
  if (!claimed) return undefined;
  const post = await app.db("posts").where({ id: claimed.post_id }).first("type", "deleted_at");
  const row: CommentRow = {
    ...claimed,
    type: post?.type ?? "text",
    deleted: !post || post.deleted_at !== null,
  };
  if (!row) return undefined;
  return commentClaimed(app, row, signal);
}

async function commentClaimed(
  app: AppContext,
  row: CommentRow,
  signal: AbortSignal | undefined,
): Promise<FirstCommentStatus> {
  const failed = async (reason: string): Promise<"failed"> => {
    await settle(app, row.id, {
      first_comment_status: "failed",
      first_comment_reason: reason.slice(0, 500),
      first_comment_next_at: null,
    });
    return "failed";
  };
  const retry = async (err: unknown, afterSeconds?: number): Promise<FirstCommentStatus> => {
    const attempt = row.first_comment_attempt + 1;
    if (afterSeconds === undefined && attempt >= MAX_ATTEMPTS)
      return failed(`the network did not answer after ${attempt} attempts (${safeReason(err)})`);
    await settle(app, row.id, {
      first_comment_attempt: afterSeconds === undefined ? attempt : row.first_comment_attempt,
      first_comment_next_at: new Date(
        app.clock.now().getTime() + (afterSeconds ?? backoffSeconds(attempt)) * 1000,
      ),
      first_comment_reason: safeReason(err),
    });
    return "pending";
  };
  if (row.deleted) return failed("the post was deleted in the service before its first comment was posted");
  try {
    const ready = await readyAccount(app, row.social_account_id);
    if (!ready.ok) return failed(ready.reason);
    const comments = ready.adapter.comments;
    if (!comments) {
      const network = ready.account.network;
      // The network has a comment API that this service does not call for the account's adapter.
      if (COMMENT_RULES[network])
        return failed(`this service does not post first comments on ${NETWORK_RULES[network].label}`);
      await settle(app, row.id, {
        first_comment_status: "unsupported",
        first_comment_reason: unsupportedReason(network),
      });
      return "unsupported";
    }
    const missing = missingScopes(ready.adapterAccount, comments.scopes);
    if (missing.length > 0)
      return failed(
        `the ${ready.label} was connected without the ${missing.join(", ")} permission, which commenting needs; reconnect it on /settings/social`,
      );
    if (!row.provider_post_id) return failed("the delivery has no post id to comment on");
    const job: CommentJob<typeof ready.adapterAccount> = {
      account: ready.adapterAccount,
      post: {
        networkPostId: row.provider_post_id,
        postUrl: row.post_url,
        networkIds: row.network_ids ?? {},
        type: row.type,
      },
      text: row.first_comment,
      sentAt: row.first_comment_sent_at,
      signal,
    };
    let posted: PostedComment | undefined;
    // A create sent before and not answered: the comment may exist; read the post's comments first.
    if (row.first_comment_sent_at) posted = await comments.find(job);
    if (!posted) {
      const sentAt = row.first_comment_sent_at ?? app.clock.now();
      await app.db("deliveries").where({ id: row.id }).update({ first_comment_sent_at: sentAt });
      posted = await comments.create({ ...job, sentAt });
    }
    await settle(app, row.id, {
      first_comment_status: "posted",
      first_comment_id: posted.id,
      first_comment_url: posted.url,
      first_comment_reason: null,
      first_comment_next_at: null,
    });
    return "posted";
  } catch (err) {
    if (err instanceof NetworkRateLimitError) return retry(err, Math.max(1, err.retryAfterSeconds));
    if (err instanceof NetworkAuthError)
      return failed(`the network refused the account's credentials: ${safeReason(err)}`);
    if (err instanceof NetworkRejectedError) return failed(err.reason);
    if (!(err instanceof NetworkTransientError))
      app.log.warn(
        { delivery_id: row.id, errName: (err as Error)?.name },
        "first comment failed unexpectedly",
      );
    return retry(err);
  }
}

/**
 * Posts the due first comments of published deliveries, at most `limit` (run by every delivery pass).
 * @returns how many were attempted.
 */
export async function runDueFirstComments(
  app: AppContext,
  options: { limit?: number; stop?: AbortSignal | undefined; signal?: AbortSignal | undefined } = {},
): Promise<number> {
  const now = app.clock.now();
  const due: Array<{ id: string }> = await app
    .db("deliveries")
    .where({ status: "published", first_comment_status: "pending" })
    .where((q) => q.whereNull("first_comment_next_at").orWhere("first_comment_next_at", "<=", now))
    .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", now))
    .orderBy([{ column: "first_comment_next_at", order: "asc", nulls: "first" }, { column: "id" }])
    .limit(options.limit ?? 50)
    .select("id");
  let n = 0;
  for (const d of due) {
    if (options.stop?.aborted || options.signal?.aborted) break;
    if ((await postFirstComment(app, d.id, options.signal)) !== undefined) n += 1;
  }
  return n;
}

/** The first comments of deliveries `ids` still waiting (for tests and passes that wait on them). */
export async function pendingFirstComments(db: Knex, ids: readonly string[]): Promise<number> {
  const row = await db("deliveries")
    .whereIn("id", ids)
    .where({ first_comment_status: "pending" })
    .count({ n: "*" })
    .first();
  return Number(row?.n ?? 0);
}
