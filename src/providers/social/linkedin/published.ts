/**
 * LinkedIn's first comment and removal (../published-post.ts), as the post's author (the member or the page):
 * - the first comment: `POST /rest/socialActions/{post urn}/comments {actor, object, message: {text}}` -> 201
 *   with the comment (`$URN` / `commentUrn` `urn:li:comment:(...)`, `id`) in the body and its id in
 *   `x-restli-id` (Comments API, "Create a Comment":
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api). It needs
 *   `w_member_social` (member) or `w_organization_social` (page), which every LinkedIn grant this service
 *   asks for carries (./table.ts), so `scopes` is empty. The text is sent as it is: a comment's `message` is
 *   plain text with separate `attributes`, not the posts' "little text".
 * - after a lost answer: `GET /rest/socialActions/{post urn}/comments` ("Get Comments on Shares"), the
 *   comment by this author with the same text created since the first send less a minute of clock skew.
 *   Reading a member's comments needs the restricted `r_member_social`; when LinkedIn refuses the read
 *   (403) the comment fails asking to check the post: never a blind second comment.
 * - removal: `DELETE /rest/posts/{post urn}` -> 204 (Posts API, "Delete Posts":
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api); LinkedIn's
 *   deletes are idempotent (an already deleted post answers 204 too) and a post it does not have (404)
 *   counts as removed; a refusal (403: not the account's post, or a missing role) is a NetworkRejectedError.
 *
 * The comment's URL: the Comments API gives none; it is the post's URL with `commentUrn` (the form of
 * linkedin.com's links to a comment), and without a comment URN the post's URL itself.
 */
import { type AdapterAccount, NetworkRejectedError, NetworkTransientError } from "../network.ts";
import type { CommentJob, NetworkComments, NetworkRemover, PostedComment } from "../published-post.ts";
import {
  encodeUrn,
  LinkedInAccessDeniedError,
  type LinkedInClient,
  LinkedInRejectedError,
  linkedinRequest,
} from "./api.ts";
import { authorUrn } from "./oauth.ts";
import { linkedinPermalink } from "./publisher.ts";

/** Clock skew allowed between our send time and LinkedIn's `created.time`, milliseconds. */
const SKEW_MS = 60_000;
/** Comments read per page, and pages at most, when looking for a comment whose answer was lost. */
const PAGE = 100;
const MAX_PAGES = 5;

const CANNOT_LOOK =
  "LinkedIn did not confirm whether the first comment was posted, and it does not let this app read the post's comments; check the post on LinkedIn before commenting again";

/** A comment as the Comments API answers it (the fields read here). */
interface LinkedInComment {
  $URN?: string;
  commentUrn?: string;
  id?: string;
  actor?: string;
  message?: { text?: string };
  created?: { time?: number };
}

/** The comment's URN (`$URN`, `commentUrn`), else its id. */
const commentId = (c: LinkedInComment): string | undefined => c.$URN ?? c.commentUrn ?? c.id;

/** The URL of comment `id` under the post: the post's URL with `commentUrn` when `id` is a comment URN. */
export function linkedinCommentUrl(postUrl: string | null, postUrn: string, id: string): string {
  const url = new URL(postUrl ?? linkedinPermalink(postUrn));
  if (id.startsWith("urn:li:comment:")) url.searchParams.set("commentUrn", id);
  return url.toString();
}

function postUrnOf(job: CommentJob<AdapterAccount>): string {
  const urn = job.post.networkPostId;
  if (!urn.startsWith("urn:li:")) throw new NetworkRejectedError("the delivery has no LinkedIn post URN");
  return urn;
}

/** The first comment on LinkedIn, as the post's author (the member or the page). */
export function linkedinComments(client: LinkedInClient): NetworkComments<AdapterAccount> {
  return {
    scopes: [],
    async create(job: CommentJob<AdapterAccount>): Promise<PostedComment> {
      const post = postUrnOf(job);
      const r = await linkedinRequest<LinkedInComment>(client, {
        method: "POST",
        path: `/rest/socialActions/${encodeUrn(post)}/comments`,
        json: { actor: authorUrn(job.account), object: post, message: { text: job.text } },
        accessToken: job.account.tokens.accessToken,
        create: true,
        signal: job.signal,
      });
      const id = commentId(r.body) ?? r.headers.get("x-restli-id") ?? undefined;
      if (!id) throw new NetworkTransientError("LinkedIn answered the comment without its id", true);
      return { id, url: linkedinCommentUrl(job.post.postUrl, post, id) };
    },
    async find(job: CommentJob<AdapterAccount>): Promise<PostedComment | undefined> {
      const post = postUrnOf(job);
      const actor = authorUrn(job.account);
      const since = (job.sentAt?.getTime() ?? 0) - SKEW_MS;
      for (let page = 0; page < MAX_PAGES; page++) {
        let elements: LinkedInComment[];
        try {
          const r = await linkedinRequest<{ elements?: LinkedInComment[] }>(client, {
            method: "GET",
            path: `/rest/socialActions/${encodeUrn(post)}/comments?start=${page * PAGE}&count=${PAGE}`,
            accessToken: job.account.tokens.accessToken,
            signal: job.signal,
          });
          elements = r.body.elements ?? [];
        } catch (err) {
          if (err instanceof LinkedInAccessDeniedError) throw new NetworkRejectedError(CANNOT_LOOK);
          throw err;
        }
        const found = elements.find(
          (c) =>
            c.actor === actor &&
            c.message?.text === job.text &&
            (c.created?.time === undefined || c.created.time >= since),
        );
        const id = found && commentId(found);
        if (id) return { id, url: linkedinCommentUrl(job.post.postUrl, post, id) };
        if (elements.length < PAGE) break;
      }
      return undefined;
    },
  };
}

/** Deleting a post on LinkedIn. */
export function linkedinRemover(client: LinkedInClient): NetworkRemover<AdapterAccount> {
  return {
    async remove(account, post, signal) {
      if (!post.networkPostId.startsWith("urn:li:"))
        throw new NetworkRejectedError("the delivery has no LinkedIn post URN to delete");
      try {
        await linkedinRequest(client, {
          method: "DELETE",
          path: `/rest/posts/${encodeUrn(post.networkPostId)}`,
          accessToken: account.tokens.accessToken,
          restliMethod: "DELETE",
          signal,
        });
      } catch (err) {
        // A post LinkedIn does not have (deleted on LinkedIn by hand): nothing is left to remove.
        if (err instanceof LinkedInRejectedError && err.status === 404) return;
        // 403 on a delete: not the account's post (or a role it lacks); the account's token is fine.
        if (err instanceof LinkedInAccessDeniedError)
          throw new NetworkRejectedError(err.message.replace("refused the permission", "refused the delete"));
        throw err;
      }
    },
  };
}
