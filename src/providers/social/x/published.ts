/**
 * X's first comment and removal (../published-post.ts):
 * - The first comment is a reply: `POST /2/tweets {text, reply: {in_reply_to_tweet_id}}`
 *   (https://docs.x.com/x-api/posts/create-post). A lost answer is looked up among the author's recent posts
 *   (`GET /2/users/{id}/tweets?tweet.fields=created_at,referenced_tweets`,
 *   https://docs.x.com/x-api/users/get-posts): a post replying to ours with the same text (X's rendering
 *   undone, ./publisher.ts `comparableText`), created since the first send less a minute of clock skew.
 * - Removal: `DELETE /2/tweets/{id}` -> `{data: {deleted: true}}` (https://docs.x.com/x-api/posts/delete-post);
 *   a post X no longer has (404) counts as removed.
 */
import type { SocialHttp } from "../http.ts";
import { type AdapterAccount, NetworkRejectedError, NetworkTransientError } from "../network.ts";
import type { CommentJob, NetworkComments, NetworkRemover, PostedComment } from "../published-post.ts";
import { xRequest } from "./api.ts";
import type { CreatedTweet, Tweet } from "./contract.ts";
import { comparableText, RECENT_POSTS, tweetUrl } from "./publisher.ts";

/** Clock skew allowed between our send time and X's `created_at`, milliseconds. */
const SKEW_MS = 60_000;

type RecentTweet = Pick<Tweet, "id"> & Partial<Pick<Tweet, "text" | "created_at" | "referenced_tweets">>;

const username = (account: AdapterAccount) =>
  (account.metadata.username as string | undefined) ?? account.handle;

/** The first comment on X: a reply by the same account. */
export function xComments(http: SocialHttp, now: () => Date): NetworkComments<AdapterAccount> {
  return {
    scopes: [],
    async create(job: CommentJob<AdapterAccount>): Promise<PostedComment> {
      const r = await xRequest<Partial<CreatedTweet>>(
        http,
        {
          method: "POST",
          path: "/2/tweets",
          json: { text: job.text, reply: { in_reply_to_tweet_id: job.post.networkPostId } },
          accessToken: job.account.tokens.accessToken,
          create: true,
          signal: job.signal,
        },
        now,
      );
      const id = r.data?.id;
      if (!id) throw new NetworkTransientError("X answered the reply without an id", true);
      return { id, url: tweetUrl(username(job.account), id) };
    },
    async find(job: CommentJob<AdapterAccount>): Promise<PostedComment | undefined> {
      const r = await xRequest<RecentTweet[]>(
        http,
        {
          method: "GET",
          path: `/2/users/${encodeURIComponent(job.account.networkAccountId)}/tweets`,
          query: { max_results: String(RECENT_POSTS), "tweet.fields": "created_at,referenced_tweets" },
          accessToken: job.account.tokens.accessToken,
          signal: job.signal,
        },
        now,
      );
      const since = (job.sentAt?.getTime() ?? 0) - SKEW_MS;
      const text = comparableText(job.text);
      const found = (r.data ?? []).find(
        (t) =>
          (t.referenced_tweets ?? []).some(
            (ref) => ref.type === "replied_to" && ref.id === job.post.networkPostId,
          ) &&
          (!t.created_at || Date.parse(t.created_at) >= since) &&
          comparableText(t.text ?? "") === text,
      );
      return found?.id ? { id: found.id, url: tweetUrl(username(job.account), found.id) } : undefined;
    },
  };
}

/** Deleting a post on X. */
export function xRemover(http: SocialHttp, now: () => Date): NetworkRemover<AdapterAccount> {
  return {
    async remove(account, post, signal) {
      try {
        const r = await xRequest<{ deleted?: boolean }>(
          http,
          {
            method: "DELETE",
            path: `/2/tweets/${encodeURIComponent(post.networkPostId)}`,
            accessToken: account.tokens.accessToken,
            signal,
          },
          now,
        );
        if (r.data?.deleted !== true) throw new NetworkRejectedError("X did not delete the post");
      } catch (err) {
        // Already gone (deleted on X by hand): nothing is left to remove.
        if (err instanceof NetworkRejectedError && /\(404\)|HTTP 404/.test(err.message)) return;
        throw err;
      }
    },
  };
}
