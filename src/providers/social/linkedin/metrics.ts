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
 * - members: LinkedIn gives member post and follower counts only to apps with restricted permissions
 *   (`r_member_postAnalytics`), so every counter is null (reported as missing, not an error) and nothing is
 *   called.
 * A counter LinkedIn leaves out is null, never 0.
 */
import { type AdapterAccount, type MetricsPost, NO_POST_COUNTERS, type NetworkMetrics } from "../network.ts";
import type { AccountCounters } from "../types.ts";
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
      const urn = post.networkPostId;
      if (!isOrganization(authorUrn(account))) return { ...NO_POST_COUNTERS };
      const kind = urn.startsWith("urn:li:ugcPost:") ? "ugcPosts" : "shares";
      const elements = await statistics(account, `&${kind}=${restliList([urn])}`, signal);
      const s = elements.find((e) => e.share === urn || e.ugcPost === urn)?.totalShareStatistics;
      if (!s) return { ...NO_POST_COUNTERS };
      return {
        views: count(s.impressionCount),
        reach: count(s.uniqueImpressionsCount),
        likes: count(s.likeCount),
        comments: count(s.commentCount),
        shares: count(s.shareCount),
        saves: null,
      };
    },
  };
}
