/**
 * Posting to X (API v2): the media (./media.ts), then `POST /2/tweets {text, media:{media_ids}}` ->
 * `{data:{id, text}}`; the post URL is `https://x.com/{username}/status/{id}` (networks.md 2.7;
 * https://docs.x.com/x-api/posts/create-post, .../users/get-posts).
 *
 * X has no idempotency key, so a create is armed: `armedAt` (the time of the first create attempt) is saved
 * before `POST /2/tweets`, `tweetId` right after its answer. A step or `reconcile` that finds `armedAt`
 * without `tweetId` first lists the author's recent posts (`GET /2/users/{id}/tweets?max_results=10
 * &tweet.fields=created_at,attachments`) and adopts the one that matches (created since `armedAt` less a
 * minute of clock skew, the same media keys, the same text once X's rendering is undone: `&amp;`/`&lt;`/
 * `&gt;` entities, t.co links for URLs and the trailing link X adds for media); only when none matches is
 * the create sent again. X's 403 "duplicate content" on such a retry is a sign the first create went
 * through: the recent posts are read again, and if the post is not listed yet the outcome stays unknown
 * (the engine reconciles later) rather than failing or posting twice.
 *
 * Saved ids: those of ./media.ts plus `armedAt`, `tweetId`.
 */
import type { CreatedTweet, Tweet, TweetCreateRequest } from "./contract.ts";
import type { SocialHttp } from "../http.ts";
import {
  type DeliveryJob,
  type NetworkPublisher,
  NetworkRejectedError,
  NetworkTransientError,
  type StepResult,
  trackedIds,
} from "../network.ts";
import { XDuplicateError, xRequest } from "./api.ts";
import { type MediaIds, prepareMedia } from "./media.ts";

/** How many of the author's recent posts are searched for an armed create. */
export const RECENT_POSTS = 10;
/** Clock skew allowed between our `armedAt` and X's `created_at`, milliseconds. */
const SKEW_MS = 60_000;

interface Ids extends MediaIds {
  /** ISO time of the first `POST /2/tweets` attempt (the armed marker). */
  armedAt?: string;
  tweetId?: string;
}

/** A post of the account's timeline, as the description types it. */
type RecentTweet = Pick<Tweet, "id"> & Partial<Pick<Tweet, "text" | "created_at" | "attachments">>;

/** The post's URL on X (`/i/web/status/{id}` when the username is unknown). */
export function tweetUrl(username: string | null | undefined, id: string): string {
  return username
    ? `https://x.com/${encodeURIComponent(username)}/status/${id}`
    : `https://x.com/i/web/status/${id}`;
}

/** The X publisher; requests go through `http` (../http.ts), `now` is the service clock. */
export function xPublisher(http: SocialHttp, now: () => Date): NetworkPublisher {
  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.tweetId) return published(job, ids.tweetId);
      const caption = job.post.caption.trim();
      if (!caption && job.post.media.length === 0)
        throw new NetworkRejectedError("An X post needs text, images or a video.");
      const armedBefore = ids.armedAt !== undefined;
      if (armedBefore) {
        // An earlier attempt sent the create and did not record the answer: look before anything else
        // (with the media keys that create carried, before an expired upload is replaced).
        const found = await findTweet(http, job, ids, savedMediaKeys(job, ids), now);
        if (found) {
          await saveIds({ tweetId: found });
          return published(job, found);
        }
      }
      const media = await prepareMedia({ http, job, now, ids, saveIds });
      if (!media.ready) return media.result;
      if (!armedBefore) await saveIds({ armedAt: now().toISOString() });
      let tweetId: string | undefined;
      try {
        const create: TweetCreateRequest = {
          ...(caption ? { text: job.post.caption } : {}),
          ...(media.mediaIds.length > 0 ? { media: { media_ids: media.mediaIds } } : {}),
        };
        const r = await xRequest<Partial<CreatedTweet>>(
          http,
          {
            method: "POST",
            path: "/2/tweets",
            json: create,
            accessToken: job.account.tokens.accessToken,
            create: true,
            signal: job.signal,
          },
          now,
        );
        tweetId = r.data?.id;
      } catch (err) {
        if (!(err instanceof XDuplicateError) || !armedBefore) throw err;
        const found = await findTweet(http, job, ids, media.mediaKeys, now);
        if (found) {
          await saveIds({ tweetId: found });
          return published(job, found);
        }
        throw new NetworkTransientError(
          "X says this post already exists (duplicate content) but it is not among the recent posts yet",
          true,
        );
      }
      if (!tweetId) throw new NetworkTransientError("X answered the post without an id", true);
      await saveIds({ tweetId });
      return published(job, tweetId);
    },

    async reconcile(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.tweetId) return published(job, ids.tweetId);
      if (!ids.armedAt) return { state: "not_created" };
      const found = await findTweet(http, job, ids, savedMediaKeys(job, ids), now);
      if (!found) return { state: "not_created" };
      await saveIds({ tweetId: found });
      return published(job, found);
    },
  };
}

/** The media keys of the uploads saved for this delivery, in post order. */
function savedMediaKeys(job: DeliveryJob, ids: Ids): string[] {
  return job.post.media.some((m) => m.kind === "video")
    ? [ids.videoMediaKey ?? ""]
    : (ids.imageMediaKeys ?? []);
}

function published(job: DeliveryJob, tweetId: string): StepResult {
  const username = (job.account.metadata.username as string | undefined) ?? job.account.handle;
  return { state: "published", postUrl: tweetUrl(username, tweetId), networkPostId: tweetId };
}

/**
 * The id of the author's recent post that is this delivery's armed create, or undefined.
 * @param mediaKeys the media keys attached to the create (empty for text alone).
 */
async function findTweet(
  http: SocialHttp,
  job: DeliveryJob,
  ids: Ids,
  mediaKeys: readonly string[],
  now: () => Date,
): Promise<string | undefined> {
  const r = await xRequest<RecentTweet[]>(
    http,
    {
      method: "GET",
      path: `/2/users/${encodeURIComponent(job.account.networkAccountId)}/tweets`,
      query: { max_results: String(RECENT_POSTS), "tweet.fields": "created_at,attachments" },
      accessToken: job.account.tokens.accessToken,
      signal: job.signal,
    },
    now,
  );
  const since = Date.parse(ids.armedAt ?? "") - SKEW_MS;
  const text = comparableText(job.post.caption);
  const keys = mediaKeys.filter(Boolean).join(",");
  return (r.data ?? []).find(
    (t) =>
      (!t.created_at || Date.parse(t.created_at) >= since) &&
      (t.attachments?.media_keys ?? []).join(",") === keys &&
      comparableText(t.text ?? "") === text,
  )?.id;
}

/**
 * Text as both our caption and X's rendering of it compare: HTML entities X escapes decoded, every URL
 * (ours, or X's t.co link for it) one placeholder, trailing links dropped (X appends one for media),
 * Unicode NFC, trimmed.
 */
export function comparableText(text: string): string {
  let s = text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .normalize("NFC")
    .replace(/https?:\/\/\S+/g, "\u0000")
    .trim();
  while (s.endsWith("\u0000")) s = s.slice(0, -1).trimEnd();
  return s;
}
