/**
 * Facebook's first comment and removal (../published-post.ts), as the Page:
 * - the first comment: `POST /{post-id}/comments {message}` -> `{id}`
 *   (https://developers.facebook.com/docs/graph-api/reference/object/comments/); it needs the Page's
 *   `pages_manage_engagement` permission. A lost answer is looked up among the post's comments
 *   (`GET /{post-id}/comments?fields=id,message,from,created_time`): one by the Page with the same message,
 *   created since the first send less a minute of clock skew. Its URL is the post's with `comment_id`.
 * - removal: `DELETE /{post-id}` -> `{success: true}` (https://developers.facebook.com/docs/pages-api/posts).
 */
import type { SocialHttp } from "../http.ts";
import { type AdapterAccount, NetworkTransientError } from "../network.ts";
import type { CommentJob, NetworkComments, NetworkRemover, PostedComment } from "../published-post.ts";
import { GRAPH_VERSION, graphRequest } from "./graph.ts";

/** The permission a Page token needs to comment as the Page (asked at consent, ./table.ts). */
export const FACEBOOK_COMMENT_SCOPE = "pages_manage_engagement";
/** Clock skew allowed between our send time and Facebook's `created_time`, milliseconds. */
const SKEW_MS = 60_000;

const api = (path: string) => `https://graph.facebook.com/${GRAPH_VERSION}/${path}`;

/** The comment's URL: the post's URL with `comment_id` (the part of the id after the post's). */
function commentUrl(postUrl: string | null, commentId: string): string | null {
  if (!postUrl) return null;
  const u = new URL(postUrl);
  u.searchParams.set("comment_id", commentId.split("_").at(-1) ?? commentId);
  return u.toString();
}

/** The first comment on Facebook, as the Page. */
export function facebookComments(http: SocialHttp): NetworkComments<AdapterAccount> {
  return {
    scopes: [FACEBOOK_COMMENT_SCOPE],
    async create(job: CommentJob<AdapterAccount>): Promise<PostedComment> {
      const r = await graphRequest<{ id?: string }>(http, {
        method: "POST",
        url: api(`${job.post.networkPostId}/comments`),
        params: { message: job.text },
        accessToken: job.account.tokens.accessToken,
        create: true,
        signal: job.signal,
      });
      const id = r.body.id;
      if (!id) throw new NetworkTransientError("Facebook answered the comment without an id", true);
      return { id, url: commentUrl(job.post.postUrl, id) };
    },
    async find(job: CommentJob<AdapterAccount>): Promise<PostedComment | undefined> {
      const r = await graphRequest<{
        data?: Array<{ id: string; message?: string; from?: { id?: string }; created_time?: string }>;
      }>(http, {
        method: "GET",
        url: api(`${job.post.networkPostId}/comments`),
        params: { fields: "id,message,from,created_time" },
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      const since = (job.sentAt?.getTime() ?? 0) - SKEW_MS;
      const found = (r.body.data ?? []).find(
        (c) =>
          c.message === job.text &&
          (!c.from?.id || c.from.id === job.account.networkAccountId) &&
          (!c.created_time || Date.parse(c.created_time.replace(/\+0000$/, "Z")) >= since),
      );
      return found ? { id: found.id, url: commentUrl(job.post.postUrl, found.id) } : undefined;
    },
  };
}

/** Deleting a Page post. */
export function facebookRemover(http: SocialHttp): NetworkRemover<AdapterAccount> {
  return {
    async remove(account, post, signal) {
      await graphRequest(http, {
        method: "DELETE",
        url: api(post.networkPostId),
        accessToken: account.tokens.accessToken,
        signal,
      });
    },
  };
}
