/**
 * YouTube's first comment and removal (../published-post.ts), as the channel, with the YouTube Data API v3:
 * - the first comment is a comment thread: `POST /commentThreads?part=snippet` with
 *   `{snippet: {videoId, topLevelComment: {snippet: {textOriginal}}}}` -> the CommentThread resource
 *   (https://developers.google.com/youtube/v3/docs/commentThreads/insert). Its URL is the video's with `lc`
 *   (the comment id): `https://www.youtube.com/watch?v={videoId}&lc={commentId}`.
 * - A lost answer is looked up among the video's newest threads (`GET /commentThreads?part=snippet&videoId=
 *   ...&order=time`, https://developers.google.com/youtube/v3/docs/commentThreads/list): one by the channel
 *   (`authorChannelId.value`) with the same `textOriginal` (given to the comment's author), published since
 *   the first send less a minute of clock skew.
 * - Removal: `DELETE /videos?id=...` -> 204 (https://developers.google.com/youtube/v3/docs/videos/delete);
 *   a video YouTube no longer has (404 `videoNotFound`) counts as removed; another channel's video is
 *   refused (403 `forbidden` -> NetworkRejectedError).
 * Quota (https://developers.google.com/youtube/v3/determine_quota_cost): insert 50 units, list 1, delete 50.
 * All three need `youtube.force-ssl` (./table.ts `YOUTUBE_FORCE_SSL_SCOPE`; `videos.delete` also takes
 * `youtube`, which this service does not ask for); `youtube.upload` alone is refused (403
 * `insufficientPermissions`), so both parts name it in `scopes`.
 */
import { type AdapterAccount, NetworkRejectedError, NetworkTransientError } from "../network.ts";
import type { CommentJob, NetworkComments, NetworkRemover, PostedComment } from "../published-post.ts";
import { type GoogleApiError, type YouTubeDeps, youtubeError, youtubeRequest } from "./api.ts";
import { YOUTUBE_FORCE_SSL_SCOPE } from "./table.ts";

/** Clock skew allowed between our send time and YouTube's `publishedAt`, milliseconds. */
const SKEW_MS = 60_000;
/** Threads read when looking for a lost comment (`maxResults` takes 1 to 100). */
const THREADS_READ = 100;

/** A comment thread as `commentThreads.insert` / `.list` answer it (the parts read here). */
interface CommentThread {
  id?: string;
  snippet?: {
    videoId?: string;
    topLevelComment?: {
      id?: string;
      snippet?: {
        textOriginal?: string;
        authorChannelId?: { value?: string };
        publishedAt?: string;
      };
    };
  };
}

/** The comment's URL: the video's watch page with the comment highlighted (`lc`). */
export function youtubeCommentUrl(videoId: string, commentId: string): string {
  const u = new URL("https://www.youtube.com/watch");
  u.searchParams.set("v", videoId);
  u.searchParams.set("lc", commentId);
  return u.toString();
}

/** The posted comment of `thread` on `videoId`: the top-level comment's id (the thread's when absent). */
function posted(videoId: string, thread: CommentThread): PostedComment | undefined {
  const id = thread.snippet?.topLevelComment?.id ?? thread.id;
  return id ? { id, url: youtubeCommentUrl(videoId, id) } : undefined;
}

/** The first comment on YouTube, as the channel. */
export function youtubeComments(deps: YouTubeDeps): NetworkComments<AdapterAccount> {
  return {
    scopes: [YOUTUBE_FORCE_SSL_SCOPE],
    async create(job: CommentJob<AdapterAccount>): Promise<PostedComment> {
      const videoId = job.post.networkPostId;
      const r = await youtubeRequest<CommentThread>(deps, {
        method: "POST",
        path: "/commentThreads",
        query: { part: "snippet" },
        json: { snippet: { videoId, topLevelComment: { snippet: { textOriginal: job.text } } } },
        accessToken: job.account.tokens.accessToken,
        create: true,
        signal: job.signal,
      });
      const made = r.body ? posted(videoId, r.body) : undefined;
      if (!made) throw new NetworkTransientError("YouTube answered the comment without an id", true);
      return made;
    },
    async find(job: CommentJob<AdapterAccount>): Promise<PostedComment | undefined> {
      const videoId = job.post.networkPostId;
      const r = await youtubeRequest<{ items?: CommentThread[] }>(deps, {
        method: "GET",
        path: "/commentThreads",
        query: {
          part: "snippet",
          videoId,
          order: "time",
          maxResults: String(THREADS_READ),
          textFormat: "plainText",
        },
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      const since = (job.sentAt?.getTime() ?? 0) - SKEW_MS;
      const found = (r.body?.items ?? []).find((t) => {
        const c = t.snippet?.topLevelComment?.snippet;
        return (
          c?.authorChannelId?.value === job.account.networkAccountId &&
          c.textOriginal === job.text &&
          (!c.publishedAt || !(Date.parse(c.publishedAt) < since))
        );
      });
      return found ? posted(videoId, found) : undefined;
    },
  };
}

/** Deleting the channel's video. */
export function youtubeRemover(deps: YouTubeDeps): NetworkRemover<AdapterAccount> {
  return {
    scopes: [YOUTUBE_FORCE_SSL_SCOPE],
    async remove(account, post, signal) {
      // An empty id would read as a video YouTube no longer has (404), i.e. as removed.
      if (!post.networkPostId)
        throw new NetworkRejectedError("the delivery has no YouTube video id to delete");
      const r = await youtubeRequest<{ error?: GoogleApiError }>(deps, {
        method: "DELETE",
        path: "/videos",
        query: { id: post.networkPostId },
        accessToken: account.tokens.accessToken,
        accept: [404],
        signal,
      });
      if (r.status !== 404) return;
      const error = r.body?.error;
      // Already gone (deleted on YouTube by hand): nothing is left to remove.
      if (error?.errors?.some((e) => e.reason === "videoNotFound")) return;
      throw youtubeError(404, r.headers, error, { afterCreate: false, quota: "wait", now: deps.now() });
    },
  };
}
