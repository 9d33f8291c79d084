/**
 * Facebook Page counters for the analytics sync (`NetworkMetrics`, ../network.ts; service spec 2.7 analytics
 * rules, 6.3), Graph API with the Page token (networks.md 2.3):
 * - account: `GET /{page-id}?fields=followers_count` -> followers
 *   (https://developers.facebook.com/docs/graph-api/reference/page). Views, likes, comments and shares of
 *   the whole Page are null: Page Insights give them per period (day, week, days_28), not as a lifetime
 *   total, and `fan_count` counts the people who like the Page, not likes on its posts.
 * - post: the post's fields `reactions.limit(0).summary(total_count)` -> likes (every reaction, Like
 *   included), `comments.limit(0).summary(total_count)` -> comments, `shares` -> shares (Facebook leaves the
 *   field out while a post has no shares, so a post read without it has 0 shares)
 *   (https://developers.facebook.com/docs/graph-api/reference/post); and
 *   `GET /{post-id}/insights?metric=post_media_view,post_total_media_view_unique&period=lifetime` -> views,
 *   reach (the current metrics: `post_impressions*` were deprecated on 2025-06-15,
 *   https://developers.facebook.com/docs/platforminsights/page/deprecated-metrics); needs `read_insights`.
 *   One field or metric Facebook refuses (a permission the token lacks: code 10 naming it; a metric it will
 *   not give for this post: code 100) fails the whole Graph request, so a refused request is read again part
 *   by part: only the refused counters are null, listed in `refused` with Facebook's reason and the
 *   permission that would fill them (the one Facebook names, else pages_read_engagement for the fields and
 *   read_insights for insights); the sync saves the others and records the reason as the sync error. A grant
 *   known to lack read_insights refuses views and reach without asking. Facebook answers no insights for
 *   some Pages and posts (Pages under 100 likes, data not ready): views and reach are then null, not
 *   refused. Saves: Facebook does not report them (null).
 * - a video delivery's network id is the video id: its Page post comes from `GET /{video-id}?fields=post_id`.
 * Errors: as ./graph.ts maps them (code 190 -> NetworkAuthError, rate limits -> NetworkRateLimitError).
 */
import type { SocialHttp } from "../http.ts";
import {
  type AdapterAccount,
  type MetricsPost,
  type NetworkError,
  type NetworkMetrics,
  NetworkRejectedError,
  type RefusedMetric,
} from "../network.ts";
import { GRAPH_VERSION, GraphPermissionError, graphRequest, insightValues } from "./graph.ts";
import { FACEBOOK_GRAPH, FACEBOOK_INSIGHTS_SCOPES } from "./table.ts";

const api = (path: string) => `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/${path}`;

/** A post counter, the Graph field or insights metric it is read from, and the permission Facebook wants. */
interface Part {
  metric: "likes" | "comments" | "shares" | "views" | "reach";
  /** A post field (`reactions.limit(0).summary(total_count)`) or an insights metric (`post_media_view`). */
  name: string;
  permission: string;
}

/** Post fields read for the engagement counters (pages_read_engagement, Pages API). */
const FIELD_PARTS: readonly Part[] = [
  { metric: "likes", name: "reactions.limit(0).summary(total_count)", permission: "pages_read_engagement" },
  { metric: "comments", name: "comments.limit(0).summary(total_count)", permission: "pages_read_engagement" },
  { metric: "shares", name: "shares", permission: "pages_read_engagement" },
];
/** Post insights read for views and reach (read_insights). */
const INSIGHT_PARTS: readonly Part[] = [
  { metric: "views", name: "post_media_view", permission: "read_insights" },
  { metric: "reach", name: "post_total_media_view_unique", permission: "read_insights" },
];

interface PostFields {
  reactions?: { summary?: { total_count?: unknown } };
  comments?: { summary?: { total_count?: unknown } };
  shares?: { count?: unknown };
}

const count = (v: unknown): number | null => (typeof v === "number" && v >= 0 ? v : null);

/** Whether `err` refuses a part of the read (a permission the token lacks, a metric refused), not the account. */
const isRefusal = (err: unknown): err is NetworkError =>
  err instanceof GraphPermissionError || err instanceof NetworkRejectedError;

/**
 * Reads `parts` in one request; when Facebook refuses it (one field or metric it will not give fails the whole
 * request), reads each part alone so that only the refused ones are lost.
 * @returns the answers of the reads that succeeded and each refused part with its refusal.
 * @throws what is not a refusal (revoked token, rate limit, transient): the read as a whole fails.
 */
async function readParts<R>(
  parts: readonly Part[],
  read: (parts: readonly Part[]) => Promise<R>,
): Promise<{ answers: R[]; refused: RefusedMetric[] }> {
  const refusedOf = (part: Part, err: NetworkError): RefusedMetric => ({
    metric: part.metric,
    reason: `${part.name}: ${err.message}`,
    permission: err instanceof GraphPermissionError ? (err.permission ?? part.permission) : undefined,
  });
  try {
    return { answers: [await read(parts)], refused: [] };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    if (parts.length === 1) return { answers: [], refused: [refusedOf(parts[0]!, err)] };
  }
  const out: { answers: R[]; refused: RefusedMetric[] } = { answers: [], refused: [] };
  for (const part of parts) {
    try {
      out.answers.push(await read([part]));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      out.refused.push(refusedOf(part, err));
    }
  }
  return out;
}

/** The Facebook Page metrics reader; requests go through `http` (../http.ts). */
export function facebookMetrics(http: SocialHttp): NetworkMetrics {
  const get = <T>(
    account: AdapterAccount,
    path: string,
    params: Record<string, string>,
    signal?: AbortSignal,
  ) =>
    graphRequest<T>(http, {
      method: "GET",
      url: api(path),
      params,
      accessToken: account.tokens.accessToken,
      signal,
    });

  /** The Page post of a delivery: the video's post for videos, else the saved post id. */
  const postIdOf = async (account: AdapterAccount, post: MetricsPost, signal?: AbortSignal) => {
    if (post.networkIds.videoId !== post.networkPostId) return post.networkPostId;
    const r = await get<{ post_id?: unknown }>(account, post.networkPostId, { fields: "post_id" }, signal);
    if (typeof r.body.post_id !== "string" || !r.body.post_id)
      throw new NetworkRejectedError("Facebook has no Page post for this video yet");
    return r.body.post_id;
  };

  /** The insights of `postId`: refused whole without read_insights in a known grant (nothing asked). */
  const insightsOf = async (account: AdapterAccount, postId: string, signal?: AbortSignal) => {
    const granted = account.tokens.scopes;
    const missing = FACEBOOK_INSIGHTS_SCOPES.filter((s) => granted.length > 0 && !granted.includes(s));
    if (missing.length > 0)
      return {
        values: new Map<string, number>(),
        refused: INSIGHT_PARTS.map((p) => ({
          metric: p.metric,
          reason: `${p.name}: the account was connected without the ${missing.join(", ")} permission; reconnect it on /settings/social`,
          permission: p.permission,
        })),
      };
    const read = await readParts(INSIGHT_PARTS, async (parts) =>
      insightValues(
        (
          await get<{ data?: unknown }>(
            account,
            `${postId}/insights`,
            { metric: parts.map((p) => p.name).join(","), period: "lifetime" },
            signal,
          )
        ).body,
      ),
    );
    return { values: new Map(read.answers.flatMap((m) => [...m])), refused: read.refused };
  };

  return {
    async account(account, signal) {
      const r = await get<{ followers_count?: unknown }>(
        account,
        account.networkAccountId,
        { fields: "followers_count" },
        signal,
      );
      return {
        followers: count(r.body.followers_count),
        views: null,
        likes: null,
        comments: null,
        shares: null,
      };
    },

    async post(account, post, signal) {
      const postId = await postIdOf(account, post, signal);
      const read = await readParts(
        FIELD_PARTS,
        async (parts) =>
          (await get<PostFields>(account, postId, { fields: parts.map((p) => p.name).join(",") }, signal))
            .body,
      );
      const fields: PostFields = Object.assign({}, ...read.answers);
      const has = (metric: Part["metric"]) => !read.refused.some((r) => r.metric === metric);
      const insights = await insightsOf(account, postId, signal);
      const refused = [...read.refused, ...insights.refused];
      return {
        views: insights.values.get("post_media_view") ?? null,
        reach: insights.values.get("post_total_media_view_unique") ?? null,
        likes: count(fields.reactions?.summary?.total_count),
        comments: count(fields.comments?.summary?.total_count),
        // Facebook leaves `shares` out while a post has none: 0, unless the field itself was refused.
        shares: !has("shares") ? null : fields.shares === undefined ? 0 : count(fields.shares.count),
        saves: null,
        ...(refused.length > 0 ? { refused } : {}),
      };
    },
  };
}
