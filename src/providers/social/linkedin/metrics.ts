/**
 * LinkedIn counters for the analytics sync (networks.md 2.5 "Analytics";
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/share-statistics,
 * .../community-management/organizations/follower-statistics):
 * - organization pages: followers `GET /rest/networkSizes/{org urn}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`
 *   (`firstDegreeSize`); lifetime totals `GET /rest/organizationalEntityShareStatistics?q=organizationalEntity
 *   &organizationalEntity={org urn}` and one post's with `&shares=List({urn})` (`urn:li:share:`) or
 *   `&ugcPosts=List({urn})` (`urn:li:ugcPost:`): `totalShareStatistics` `impressionCount` -> views,
 *   `uniqueImpressionsCount` -> reach, `likeCount` -> likes, `commentCount` -> comments, `shareCount` -> shares.
 *   LinkedIn has no saves: always null.
 *   Posts are read in batches (`readPostMetricsBatch`): the finder takes a `List(...)` of several URNs of
 *   one kind, so `urn:li:share:` and `urn:li:ugcPost:` posts go in separate calls (one list per call, as in
 *   LinkedIn's examples), up to `LINKEDIN_POSTS_PER_CALL` URNs each. LinkedIn's reference gives no maximum;
 *   20 keeps the request line short (about 45 characters per encoded URN). A post the answer leaves out (not
 *   the organization's, deleted) gets null counters, as when read alone.
 * - members: LinkedIn gives member post and follower counts only to apps with restricted permissions
 *   (`r_member_postAnalytics`), so every counter is null (reported as missing, not an error) and nothing is
 *   called.
 * A counter LinkedIn leaves out is null, never 0.
 */
import {
  type AdapterAccount,
  type MetricsPost,
  NO_POST_COUNTERS,
  type NetworkMetrics,
  type PostBatchRead,
} from "../network.ts";
import type { AccountCounters, PostCounters } from "../types.ts";
import { encodeUrn, type LinkedInClient, linkedinRequest, restliList } from "./api.ts";
import { authorUrn, isOrganization } from "./oauth.ts";

interface ShareStatistics {
  impressionCount?: number;
  uniqueImpressionsCount?: number;
  likeCount?: number;
  commentCount?: number;
  shareCount?: number;
}

interface StatisticsElement {
  share?: string;
  ugcPost?: string;
  totalShareStatistics?: ShareStatistics;
}

const NO_ACCOUNT: AccountCounters = {
  followers: null,
  views: null,
  likes: null,
  comments: null,
  shares: null,
};
const count = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The most post URNs of one kind read in one statistics call (see the module comment). */
export const LINKEDIN_POSTS_PER_CALL = 20;

/** The finder parameter of a post URN: `ugcPosts` for `urn:li:ugcPost:`, else `shares`. */
const kindOf = (urn: string): "shares" | "ugcPosts" =>
  urn.startsWith("urn:li:ugcPost:") ? "ugcPosts" : "shares";

/** A post's counters from its `totalShareStatistics`; LinkedIn has no saves. */
const postCounters = (s: ShareStatistics): PostCounters => ({
  views: count(s.impressionCount),
  reach: count(s.uniqueImpressionsCount),
  likes: count(s.likeCount),
  comments: count(s.commentCount),
  shares: count(s.shareCount),
  saves: null,
});

/** The LinkedIn metrics; calls go through `client` (./api.ts). @throws the errors of ./api.ts. */
export function linkedinMetrics(client: LinkedInClient): NetworkMetrics {
  const statistics = async (account: AdapterAccount, filter: string, signal?: AbortSignal) => {
    const org = authorUrn(account);
    const r = await linkedinRequest<{ elements?: StatisticsElement[] }>(client, {
      method: "GET",
      path: `/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeUrn(org)}${filter}`,
      accessToken: account.tokens.accessToken,
      restliMethod: "FINDER",
      signal,
    });
    return r.body.elements ?? [];
  };

  /** One statistics call per kind of URN for up to `LINKEDIN_POSTS_PER_CALL` posts (members: none). */
  const readPostMetricsBatch = async (
    account: AdapterAccount,
    posts: readonly MetricsPost[],
    signal?: AbortSignal,
  ): Promise<PostBatchRead> => {
    if (posts.length > LINKEDIN_POSTS_PER_CALL)
      throw new RangeError(
        `read at most ${LINKEDIN_POSTS_PER_CALL} LinkedIn posts per call, not ${posts.length}`,
      );
    const out: PostBatchRead = new Map();
    if (!isOrganization(authorUrn(account))) {
      for (const p of posts) out.set(p.networkPostId, { ...NO_POST_COUNTERS });
      return out;
    }
    for (const kind of ["shares", "ugcPosts"] as const) {
      const urns = posts.map((p) => p.networkPostId).filter((urn) => kindOf(urn) === kind);
      if (urns.length === 0) continue;
      const elements = await statistics(account, `&${kind}=${restliList(urns)}`, signal);
      for (const urn of urns) {
        const s = elements.find((e) => e.share === urn || e.ugcPost === urn)?.totalShareStatistics;
        out.set(urn, s ? postCounters(s) : { ...NO_POST_COUNTERS });
      }
    }
    return out;
  };

  return {
    async account(account, signal) {
      const org = authorUrn(account);
      if (!isOrganization(org)) return { ...NO_ACCOUNT };
      const size = await linkedinRequest<{ firstDegreeSize?: number }>(client, {
        method: "GET",
        path: `/rest/networkSizes/${encodeUrn(org)}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`,
        accessToken: account.tokens.accessToken,
        signal,
      });
      const total = (await statistics(account, "", signal)).find((e) => !e.share && !e.ugcPost);
      const s = total?.totalShareStatistics;
      return {
        followers: count(size.body.firstDegreeSize),
        views: count(s?.impressionCount),
        likes: count(s?.likeCount),
        comments: count(s?.commentCount),
        shares: count(s?.shareCount),
      };
    },

    async post(account, post: MetricsPost, signal) {
      const read = (await readPostMetricsBatch(account, [post], signal)).get(post.networkPostId);
      return read && !(read instanceof Error) ? read : { ...NO_POST_COUNTERS };
    },
    postBatchSize: LINKEDIN_POSTS_PER_CALL,
    readPostMetricsBatch,
  };
}
