/**
 * Instagram's first comment (../published-post.ts), as the professional account, with the Instagram API with
 * Instagram Login (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments):
 * - `POST /{ig-media-id}/comments?message=...` -> `{id}`; it needs `instagram_business_manage_comments` in the
 *   grant (asked at connect, ./table.ts). An Instagram comment has no URL of its own: its URL is the media's
 *   permalink (the post's URL).
 * - A lost answer is looked up among the media's comments (`GET /{ig-media-id}/comments?fields=id,text,
 *   timestamp,username`): one with the same text, by the account's username, made since the first send less
 *   a minute of clock skew.
 * - No removal: the content publishing API has no delete (../published-rules.ts `REMOVAL_RULES`).
 */
import { GRAPH_VERSION, graphRequest } from "../facebook/graph.ts";
import type { SocialHttp } from "../http.ts";
import { type AdapterAccount, NetworkTransientError } from "../network.ts";
import type { CommentJob, NetworkComments, PostedComment } from "../published-post.ts";
import { INSTAGRAM_COMMENT_SCOPES, INSTAGRAM_GRAPH } from "./table.ts";

/** Clock skew allowed between our send time and Instagram's `timestamp`, milliseconds. */
const SKEW_MS = 60_000;
/** Comments read when looking for a lost one (Graph's page size; the newest come first). */
const COMMENTS_READ = 50;

const api = (path: string) => `${INSTAGRAM_GRAPH}/${GRAPH_VERSION}/${path}`;

/** An IG comment as `GET /{ig-media-id}/comments` lists it (the fields asked for). */
interface IgComment {
  id: string;
  text?: string;
  /** ISO 8601 with a `+0000` offset, e.g. `2026-05-19T23:27:28+0000`. */
  timestamp?: string;
  username?: string;
}

/** Milliseconds since the epoch of Graph's `2026-05-19T23:27:28+0000`; NaN when unreadable. */
const graphTime = (t: string) => Date.parse(t.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));

/** The first comment on Instagram, as the professional account. */
export function instagramComments(http: SocialHttp): NetworkComments<AdapterAccount> {
  return {
    scopes: [...INSTAGRAM_COMMENT_SCOPES],
    async create(job: CommentJob<AdapterAccount>): Promise<PostedComment> {
      const r = await graphRequest<{ id?: string }>(http, {
        method: "POST",
        url: api(`${encodeURIComponent(job.post.networkPostId)}/comments`),
        params: { message: job.text },
        accessToken: job.account.tokens.accessToken,
        create: true,
        signal: job.signal,
      });
      const id = r.body.id;
      if (!id) throw new NetworkTransientError("Instagram answered the comment without an id", true);
      return { id, url: job.post.postUrl };
    },
    async find(job: CommentJob<AdapterAccount>): Promise<PostedComment | undefined> {
      const r = await graphRequest<{ data?: IgComment[] }>(http, {
        method: "GET",
        url: api(`${encodeURIComponent(job.post.networkPostId)}/comments`),
        params: { fields: "id,text,timestamp,username", limit: String(COMMENTS_READ) },
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      const since = (job.sentAt?.getTime() ?? 0) - SKEW_MS;
      const username = (job.account.handle ?? "").replace(/^@/, "");
      const found = (r.body.data ?? []).find(
        (c) =>
          c.text === job.text &&
          (!c.username || !username || c.username === username) &&
          (!c.timestamp || !(graphTime(c.timestamp) < since)),
      );
      return found ? { id: found.id, url: job.post.postUrl } : undefined;
    },
  };
}
