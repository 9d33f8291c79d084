/**
 * The seven networks of the nightly sync benchmark (bench/sync.ts), each on its provider-shaped fake of
 * test/fakes/ (the networks' batch sizes and limits: YouTube `videos.list` up to 50 ids, X `GET /2/tweets`
 * up to 100, TikTok `video/query` up to 20, LinkedIn share statistics per `List(...)`, one call per post on
 * Instagram, Facebook and Pinterest; Meta's and X's usage metering): for each network,
 * - `connect`: a new user of the fake with nonzero counters, connected as the connect flow does after the
 *   code exchange: the tokens the fake issued with the scopes the connect asks for (the adapter's table),
 *   and the account `adapter.oauth.accounts` lists for them (its network account id, metadata, settings):
 *   LinkedIn's organization page (`authorType` organization; LINKEDIN_ORGANIZATIONS), Facebook's Page with
 *   its Page token (the fake issues user tokens only through its dialog, so the Page is taken as `accounts`
 *   maps `/me/accounts`);
 * - `addPost`: a published post of that account at the fake with nonzero counters, and the delivery's
 *   network ids and post type as the publisher leaves them;
 * - `read`: what one request to the network's API host reads: the account's own counters (keyed by its id,
 *   or by its access token where the endpoint is `me`) or posts (keyed by post id), per endpoint; anything
 *   else (a token refresh, a lookup) is undefined.
 */
import type { AppContext } from "../src/context.ts";
import { upsertConnectedAccount } from "../src/domain/social/accounts.ts";
import type { Owner } from "../src/domain/owner.ts";
import { FACEBOOK, FACEBOOK_CAPABILITIES } from "../src/providers/social/facebook/table.ts";
import { INSTAGRAM } from "../src/providers/social/instagram/table.ts";
import { linkedinTable } from "../src/providers/social/linkedin/table.ts";
import { LINKEDIN_POSTS_PER_CALL } from "../src/providers/social/linkedin/metrics.ts";
import type { NetworkAccount, NetworkIds, TokenSet } from "../src/providers/social/network.ts";
import type { NetworkTable } from "../src/providers/social/network-table.ts";
import { PINTEREST } from "../src/providers/social/pinterest/table.ts";
import { TIKTOK } from "../src/providers/social/tiktok/table.ts";
import { TIKTOK_VIDEOS_PER_CALL } from "../src/providers/social/tiktok/metrics.ts";
import type { Network } from "../src/providers/social/types.ts";
import { X } from "../src/providers/social/x/table.ts";
import { X_POSTS_PER_CALL } from "../src/providers/social/x/metrics.ts";
import { YOUTUBE } from "../src/providers/social/youtube/table.ts";
import { YOUTUBE_VIDEOS_PER_CALL } from "../src/providers/social/youtube/metrics.ts";
import { FB_GRAPH_HOST, facebookFake } from "../test/fakes/facebook.ts";
import { IG_GRAPH_HOST, instagramFake } from "../test/fakes/instagram.ts";
import { LI_API_HOST, LI_ORGANIZATION_APP_SCOPES, linkedinFake } from "../test/fakes/linkedin.ts";
import { FAKE_APPS } from "../test/fakes/live-env.ts";
import { PIN_API_HOST, pinterestFake } from "../test/fakes/pinterest.ts";
import { decimalId, type FakeNetworkServer, type FakeRequest } from "../test/fakes/server.ts";
import { TT_API_HOST, tiktokFake } from "../test/fakes/tiktok.ts";
import { X_API_HOST, xFake } from "../test/fakes/x.ts";
import { GOOGLE_APIS_HOST, youtubeFake } from "../test/fakes/youtube.ts";

/** A published post at a fake: its network id, the delivery's network ids and the post's type. */
export interface PostSeed {
  id: string;
  networkIds: NetworkIds;
  type: "video" | "image" | "text";
}

/** A user connected at a fake: the account and tokens to upsert, and how to add one of its posts. */
export interface ConnectedUser {
  account: NetworkAccount;
  tokens: TokenSet;
  /** Adds the account's `k`-th post (counters grow with `k`, none is 0). */
  addPost(k: number): PostSeed;
}

/** What one request reads: the account's own counters or posts, on `endpoint`, keyed per account or post. */
export interface Read {
  what: "account" | "posts";
  endpoint: string;
  keys: string[];
}

export interface BenchNetwork {
  network: Network;
  /** The API host the metrics are read from (slowed and watched by the bench). */
  host: string;
  /** Posts one metrics call reads (1: one call per post). */
  postsPerCall: number;
  /** Connects the `i`-th user of this network (see the module comment). */
  connect(ctx: AppContext, i: number): Promise<ConnectedUser>;
  read(req: FakeRequest): Read | undefined;
}

/** The order of the networks: account `i` is on `BENCH_NETWORKS[i % 7]`. */
export const BENCH_NETWORKS = [
  "youtube",
  "x",
  "tiktok",
  "instagram",
  "facebook",
  "linkedin",
  "pinterest",
] as const satisfies readonly Network[];

/** X's `public_metrics` of a post. */
const X_METRICS = [
  "impression_count",
  "like_count",
  "reply_count",
  "retweet_count",
  "quote_count",
  "bookmark_count",
] as const;
/** LinkedIn's `totalShareStatistics` of a post. */
const LI_STATISTICS = [
  "impressionCount",
  "uniqueImpressionsCount",
  "likeCount",
  "commentCount",
  "shareCount",
  "clickCount",
  "engagement",
] as const;

const account = (endpoint: string, key: string | null | undefined): Read => ({
  what: "account",
  endpoint,
  keys: [key ?? ""],
});
const posts = (endpoint: string, keys: readonly string[] | undefined): Read => ({
  what: "posts",
  endpoint,
  keys: [...(keys ?? [])],
});
/** The path's segments (version prefix already gone), e.g. `["1784…", "insights"]`. */
const segments = (req: FakeRequest) => req.path.split("/").filter(Boolean);
/** Counters of the `k`-th post (or account): the first of `names` is k + 1, every other 1 (none is 0). */
function counters<K extends string>(names: readonly K[], k: number): Record<K, number> {
  return Object.fromEntries(names.map((n, j) => [n, j === 0 ? k + 1 : 1])) as Record<K, number>;
}

/** A LinkedIn post of the fake but its URN, author and times. */
const LI_POST = {
  commentary: "Bench",
  text: "Bench",
  visibility: "PUBLIC",
  lifecycleState: "PUBLISHED",
  distribution: {},
};

/** `List(a,b)` of a Rest.li query parameter as its items. */
const restliItems = (value: string | null) => /^List\((.*)\)$/.exec(value ?? "")?.[1]?.split(",");

/**
 * The account `adapter.oauth.accounts` lists for `tokens` (the one `pick` chooses, else the first), with
 * the tokens as the exchange grants them: every scope of the network's connect (`table`).
 */
async function connectAs(
  ctx: AppContext,
  table: NetworkTable,
  issued: { accessToken: string; refreshToken?: string },
  pick: (a: NetworkAccount) => boolean = () => true,
): Promise<{ account: NetworkAccount; tokens: TokenSet }> {
  const tokens: TokenSet = { ...issued, scopes: [...table.oauth.scopes] };
  const listed = await ctx.providers.networks.adapter(table.network).oauth.accounts(tokens);
  const account = listed.find(pick);
  if (!account) throw new Error(`${table.name} listed no account to connect`);
  return { account, tokens };
}

/** Mounts the seven fakes on `server` with the apps' credentials (LinkedIn's with the page scopes). */
export function mountBenchFakes(server: FakeNetworkServer) {
  return {
    yt: youtubeFake(server, FAKE_APPS.youtube),
    x: xFake(server, FAKE_APPS.x),
    tt: tiktokFake(server, FAKE_APPS.tiktok),
    ig: instagramFake(server, FAKE_APPS.instagram),
    fb: facebookFake(server, FAKE_APPS.facebook),
    li: linkedinFake(server, { ...FAKE_APPS.linkedin, appScopes: LI_ORGANIZATION_APP_SCOPES }),
    pin: pinterestFake(server, FAKE_APPS.pinterest),
  };
}

/** The networks by name, on the fakes `mountBenchFakes` mounted on `server` (mounted here when not given). */
export function benchNetworks(
  server: FakeNetworkServer,
  fakes: ReturnType<typeof mountBenchFakes> = mountBenchFakes(server),
): Record<Network, BenchNetwork> {
  const { yt, x, tt, ig, fb, li, pin } = fakes;
  let linkedinPosts = 0;
  return {
    youtube: {
      network: "youtube",
      host: GOOGLE_APIS_HOST,
      postsPerCall: YOUTUBE_VIDEOS_PER_CALL,
      async connect(ctx, i) {
        const user = yt.addUser({ title: `Bench ${i}`, subscriberCount: i + 1, viewCount: 10 * (i + 1) });
        const channel = user.channel!.id;
        return {
          ...(await connectAs(ctx, YOUTUBE, user)),
          addPost: (k) => ({
            id: yt.addVideo(channel, counters(["viewCount", "likeCount", "commentCount"], k)),
            networkIds: {},
            type: "video",
          }),
        };
      },
      read(req) {
        const ids = req.query.get("id")?.split(",");
        if (req.path === "/youtube/v3/channels") return account("channels.list", ids?.[0]);
        return req.path === "/youtube/v3/videos" ? posts("videos.list", ids) : undefined;
      },
    },
    x: {
      network: "x",
      host: X_API_HOST,
      postsPerCall: X_POSTS_PER_CALL,
      async connect(ctx, i) {
        const user = x.addUser({ username: `bench${i}`, followers: i + 1 });
        return {
          ...(await connectAs(ctx, X, user)),
          addPost: (k) => ({
            id: x.addTweet(user.id, counters(X_METRICS, k)),
            networkIds: {},
            type: "text",
          }),
        };
      },
      read(req) {
        if (req.method !== "GET") return undefined;
        if (req.path === "/2/users/me") return account("users/me", req.token());
        return req.path === "/2/tweets" ? posts("tweets", req.query.get("ids")?.split(",")) : undefined;
      },
    },
    tiktok: {
      network: "tiktok",
      host: TT_API_HOST,
      postsPerCall: TIKTOK_VIDEOS_PER_CALL,
      async connect(ctx, i) {
        const creator = tt.addCreator({ username: `bench${i}` });
        tt.stats.set(
          creator.openId,
          counters(["follower_count", "following_count", "likes_count", "video_count"], i),
        );
        return {
          ...(await connectAs(ctx, TIKTOK, creator)),
          addPost: (k) => ({
            id: tt.addVideo(
              creator.openId,
              counters(["view_count", "like_count", "comment_count", "share_count"], k),
            ),
            networkIds: { publishId: `v_pub_file~v2-${i}.${k}` },
            type: "video",
          }),
        };
      },
      read(req) {
        const path = segments(req).join("/");
        if (path === "v2/user/info") return account("user/info", req.token());
        return path === "v2/video/query" ? posts("video/query", req.json()?.filters?.video_ids) : undefined;
      },
    },
    instagram: {
      network: "instagram",
      host: IG_GRAPH_HOST,
      postsPerCall: 1,
      async connect(ctx, i) {
        const user = ig.addUser({ username: `bench${i}` });
        ig.followers.set(user.userId, i + 1);
        return {
          ...(await connectAs(ctx, INSTAGRAM, user)),
          addPost: (k) => {
            const id = ig.addMedia(user.userId, "IMAGE");
            ig.insights.set(id, counters(["views", "reach", "likes", "comments", "shares", "saved"], k));
            return { id, networkIds: { mediaId: id }, type: "image" };
          },
        };
      },
      read(req) {
        const [id, edge] = segments(req);
        if (edge === "insights") return posts("media insights", [id!]);
        return !edge && req.query.get("fields") === "followers_count" ? account("user", id) : undefined;
      },
    },
    facebook: {
      network: "facebook",
      host: FB_GRAPH_HOST,
      postsPerCall: 1,
      async connect(_ctx, i) {
        const page = fb.addUser({ name: `Bench ${i}`, pages: [`Bench Page ${i}`] }).pages[0]!;
        fb.followers.set(page.id, i + 1);
        const tokens: TokenSet = { accessToken: page.accessToken, scopes: [...FACEBOOK.oauth.scopes] };
        return {
          account: {
            networkAccountId: page.id,
            handle: page.name,
            displayName: page.name,
            tokens,
            capabilities: FACEBOOK_CAPABILITIES,
          },
          tokens,
          addPost: (k) => {
            const id = fb.addPost(page, `Post ${k}`);
            fb.postStats.set(id, counters(["views", "reactions", "comments", "shares", "reach"], k));
            return { id, networkIds: { postId: id }, type: "text" };
          },
        };
      },
      read(req) {
        const [id, edge] = segments(req);
        if (edge === "insights") return posts("post insights", [id!]);
        if (edge) return undefined;
        const fields = req.query.get("fields") ?? "";
        if (fields === "followers_count") return account("page", id);
        return fields.startsWith("reactions") ? posts("post fields", [id!]) : undefined;
      },
    },
    linkedin: {
      network: "linkedin",
      host: LI_API_HOST,
      postsPerCall: LINKEDIN_POSTS_PER_CALL,
      async connect(ctx, i) {
        const member = li.addMember({ name: `Bench ${i}`, pages: [{ name: `Bench Co ${i}` }] });
        const org = member.organizations[0]!;
        org.followers = i + 1;
        org.totals = counters(LI_STATISTICS, 10 * i);
        const page = (a: NetworkAccount) => a.metadata?.authorType === "organization";
        return {
          ...(await connectAs(ctx, linkedinTable(true), member, page)),
          addPost: (k) => {
            linkedinPosts += 1;
            const urn = `urn:li:share:${7_000_000_000 + linkedinPosts}`;
            const at = Date.now();
            li.posts.set(urn, { ...LI_POST, urn, author: org.urn, createdAt: at, lastModifiedAt: at });
            li.postStatistics.set(urn, counters(LI_STATISTICS, k));
            return { id: urn, networkIds: {}, type: "text" };
          },
        };
      },
      read(req) {
        if (req.path.startsWith("/rest/networkSizes/")) return account("networkSizes", req.params.urn);
        if (req.path !== "/rest/organizationalEntityShareStatistics") return undefined;
        const listed = [
          ...(restliItems(req.query.get("shares")) ?? []),
          ...(restliItems(req.query.get("ugcPosts")) ?? []),
        ];
        return listed.length > 0
          ? posts("share statistics", listed)
          : account("share statistics", req.query.get("organizationalEntity"));
      },
    },
    pinterest: {
      network: "pinterest",
      host: PIN_API_HOST,
      postsPerCall: 1,
      async connect(ctx, i) {
        const user = pin.addUser({ username: `bench${i}`, followerCount: i + 1 });
        const board = user.boards[0]!.id;
        const today = new Date().toISOString().slice(0, 10);
        return {
          ...(await connectAs(ctx, PINTEREST, user)),
          addPost: (k) => {
            const id = decimalId(18);
            pin.pins.set(id, {
              id,
              ownerId: user.id,
              boardId: board,
              title: null,
              description: null,
              link: null,
              mediaType: "image",
              imageUrls: [],
              createdAt: new Date(),
            });
            pin.setAnalytics(id, {
              daily: { [today]: { IMPRESSION: k + 1, SAVE: 1 } },
              lifetime: { TOTAL_COMMENTS: 1, TOTAL_REACTIONS: 1 },
            });
            return { id, networkIds: {}, type: "image" };
          },
        };
      },
      read(req) {
        const [, kind, id, edge] = segments(req);
        if (kind === "user_account") return account("user_account", req.token());
        return kind === "pins" && edge === "analytics" ? posts("pin analytics", [id!]) : undefined;
      },
    },
  };
}

/**
 * Connects account `i` of the bench (on `BENCH_NETWORKS[i % 7]`) for `owner` as the connect flow saves it.
 * @returns the account's id, its network and the fake's user (whose posts the bench may add).
 */
export async function connectBenchAccount(
  ctx: AppContext,
  owner: Owner,
  networks: Record<Network, BenchNetwork>,
  i: number,
): Promise<{ id: string; network: Network; user: ConnectedUser }> {
  const net = networks[BENCH_NETWORKS[i % BENCH_NETWORKS.length]!];
  const user = await net.connect(ctx, i);
  const { account } = await upsertConnectedAccount(ctx.db, ctx.sealer, owner, {
    network: net.network,
    mode: "live",
    account: user.account,
    tokens: user.tokens,
    now: new Date(),
  });
  return { id: account.social_account_id as string, network: net.network, user };
}
