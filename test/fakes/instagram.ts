/**
 * A provider-shaped fake of the Instagram API with Instagram Login (test only), mounted on the shared router
 * (./server.ts) for the hosts www.instagram.com, api.instagram.com and graph.instagram.com. It does the work
 * the real API does: pulls `image_url`/`video_url` over HTTP and checks the bytes (JPEG only for images),
 * keeps containers with `status_code` (IN_PROGRESS -> FINISHED | ERROR, PUBLISHED after media_publish),
 * enforces the carousel rules (2 to 10 `is_carousel_item` children), counts publishes
 * (`server.counter("instagram.publishes")`) and answers Graph API errors (code 190 for bad tokens). For the
 * analytics sync it serves `followers_count` and media insights with the numbers the test sets
 * (`followers`, `insights`). Comments on the account's own media (`POST` / `GET /{ig-media-id}/comments`,
 * needing `instagram_business_manage_comments`) are kept in `comments` and counted
 * (`server.counter("instagram.comments")`).
 *
 * Sources (2026): https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/
 * (business-login, get-started), .../content-publishing/, .../reference/ig-user/media,
 * .../reference/ig-user/media_publish, .../reference/ig-user/content_publishing_limit, .../reference/ig-container,
 * .../reference/instagram-media/insights, .../instagram-graph-api/reference/ig-media/comments.
 */
import { videoStreamProblems } from "./video-check.ts";
import { Contract } from "./contract.ts";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import {
  decimalId,
  type FakeNetworkServer,
  type FakeRequest,
  type FakeResponse,
  pullMedia,
  sniff,
} from "./server.ts";
import {
  GraphUsage,
  graphError,
  insightsAnswer,
  invalidToken,
  newToken,
  pickFields,
  expiredToken,
  revokedToken,
} from "./graph.ts";

export const IG_AUTHORIZE_HOST = "www.instagram.com";
export const IG_API_HOST = "api.instagram.com";
export const IG_GRAPH_HOST = "graph.instagram.com";

export interface InstagramUser {
  /** The Instagram professional account id (`user_id`, larger than 2^53). */
  userId: string;
  username: string;
  name: string;
  accountType: "BUSINESS" | "MEDIA_CREATOR";
  /** A long-lived token issued directly (tests that skip the connect flow). */
  accessToken: string;
}

interface Container {
  id: string;
  owner: string;
  mediaType: "IMAGE" | "VIDEO" | "REELS" | "CAROUSEL" | "STORIES";
  isCarouselItem: boolean;
  children: string[];
  caption: string;
  statusCode: "IN_PROGRESS" | "FINISHED" | "ERROR" | "EXPIRED" | "PUBLISHED";
  status: string;
  /** Status polls still answered IN_PROGRESS after the media was pulled (slow processing). */
  pollsLeft: number;
  pulled: Promise<void>;
  createdAt: Date;
}

interface Media {
  id: string;
  owner: string;
  media_type: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM";
  media_product_type: "FEED" | "REELS";
  caption: string;
  permalink: string;
  shortcode: string;
  timestamp: string;
  username: string;
  children: string[];
}

interface TokenRecord {
  userId: string;
  kind: "short" | "long";
  revoked: boolean;
  scopes: string[];
  /** The token expired (Graph: code 190, subcode 463). */
  expired?: boolean;
}

export interface InstagramFakeOptions {
  clientId: string;
  clientSecret: string;
  /** Status polls each new container answers IN_PROGRESS after its media is ready (default 0). */
  processingPolls?: number;
  /** `config.quota_total` of content_publishing_limit (the endpoint reference says 50; the guide 100). */
  quotaTotal?: number;
}

const SCOPES_GRANTED = [
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_insights",
  "instagram_business_manage_comments",
];

/** A comment made on a media through the API. */
export interface InstagramComment {
  id: string;
  mediaId: string;
  /** The commenting account (the token's user). */
  userId: string;
  username: string;
  text: string;
  /** Graph's `2026-05-19T23:27:28+0000`. */
  timestamp: string;
}

/** Media insight metrics the fake answers (the ones the API takes for feed posts and Reels). */
const MEDIA_INSIGHTS = ["views", "reach", "likes", "comments", "shares", "saved", "total_interactions"];

/** A media's insights as the test sets them, or too few viewers for Instagram to show any. */
export type InstagramInsights = Partial<Record<string, number>> | "not_enough_viewers";

export class InstagramFake {
  readonly users = new Map<string, InstagramUser>();
  readonly containers = new Map<string, Container>();
  readonly media = new Map<string, Media>();
  /** `followers_count` per user (0 when not set). */
  readonly followers = new Map<string, number>();
  /** Lifetime insights per media id (none set: an empty data set, as for data not available yet). */
  readonly insights = new Map<string, InstagramInsights>();
  /** Comments made through the API, oldest first. */
  readonly comments: InstagramComment[] = [];
  /** The fake's clock for comment timestamps, milliseconds (tests share the service's). */
  now: () => number = () => Date.now();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, { userId: string; redirectUri: string; scopes: string[] }>();
  private loggedIn: string | undefined;
  /** When set, the next authorize request is denied by the user. */
  denyNext = false;
  processingPolls: number;
  quotaTotal: number;
  readonly server: FakeNetworkServer;
  readonly options: InstagramFakeOptions;

  /**
   * Meta's usage metering of every Graph answer (./graph.ts `GraphUsage`: `X-App-Usage`, and
   * `X-Business-Use-Case-Usage` for the token's Instagram account; refusals past the limits).
   */
  readonly graphUsage = new GraphUsage("instagram", () => this.users.size);
  constructor(server: FakeNetworkServer, options: InstagramFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 0;
    this.quotaTotal = options.quotaTotal ?? 100;
    this.mount();
    server.wrap(IG_GRAPH_HOST, (req, next) => {
      const token = req.token();
      const rec = token ? this.tokens.get(token) : undefined;
      return this.graphUsage.meter(rec?.userId, next);
    });
  }

  /** Publishes so far (media_publish calls that created a media object). */
  get publishes(): number {
    return this.server.counter("instagram.publishes");
  }

  /**
   * Adds a professional account; it becomes the one "logged in" at the authorize page. Its token carries
   * `scopes` (default every scope the fake grants).
   */
  addUser(
    input: { username: string; name?: string; scopes?: string[] } = { username: "creator" },
  ): InstagramUser {
    const userId = `1784${decimalId(13)}`;
    const accessToken = newToken("IGAA");
    const user: InstagramUser = {
      userId,
      username: input.username,
      name: input.name ?? input.username,
      accountType: "BUSINESS",
      accessToken,
    };
    this.users.set(userId, user);
    this.tokens.set(accessToken, {
      userId,
      kind: "long",
      revoked: false,
      scopes: input.scopes ?? SCOPES_GRANTED,
    });
    this.loggedIn = userId;
    return user;
  }

  /**
   * Adds a published media of `userId` without the publishing flow (a post the analytics tests read) and
   * returns its id. Not counted as a publish.
   */
  addMedia(userId: string, kind: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM" = "IMAGE"): string {
    const id = decimalId(17);
    const shortcode = randomBytes(8).toString("base64url").slice(0, 11);
    this.media.set(id, {
      id,
      owner: userId,
      media_type: kind,
      media_product_type: kind === "VIDEO" ? "REELS" : "FEED",
      caption: "",
      permalink: `https://www.instagram.com/p/${shortcode}/`,
      shortcode,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "+0000"),
      username: this.users.get(userId)?.username ?? "",
      children: [],
    });
    return id;
  }

  /** Makes `userId` the account that consents at the authorize page. */
  loginAs(userId: string): void {
    this.loggedIn = userId;
  }

  /** Revokes every token of the user (the user removed the app): further calls answer code 190. */
  revokeUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.revoked = true;
  }

  /** Lets every token of the user expire (60 days unused): further calls answer code 190, subcode 463. */
  expireUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.expired = true;
  }

  /** Whether `token` is a live token of this fake (tests check refresh rotated it). */
  tokenValid(token: string): boolean {
    const t = this.tokens.get(token);
    return !!t && !t.revoked;
  }

  private auth(req: FakeRequest): TokenRecord | FakeResponse {
    const token = req.token();
    const rec = token ? this.tokens.get(token) : undefined;
    if (!rec) return invalidToken();
    if (rec.revoked) return revokedToken();
    if (rec.expired) return expiredToken();
    return rec;
  }

  /** The Graph node type of `id` (undefined: not an object of this fake, e.g. `access_token`). */
  nodeOf(id: string): string | undefined {
    if (id === "me" || this.users.has(id)) return "IGUserForIGOnlyAPI";
    if (this.containers.has(id)) return "ShadowIGMediaBuilder";
    if (this.media.has(id)) return "IGMediaForIGOnlyAPI";
    return undefined;
  }

  private mount(): void {
    const s = this.server;
    // Meta's specs of the Instagram API with Instagram Login (test/contracts/graph-instagram.json).
    s.useContract(IG_GRAPH_HOST, new Contract("instagram", ["graph-instagram"]), (id) => this.nodeOf(id));
    s.route("GET", IG_AUTHORIZE_HOST, "/oauth/authorize", (req) => this.authorize(req));
    s.route("POST", IG_API_HOST, "/oauth/access_token", (req) => this.exchangeCode(req));
    s.route("GET", IG_GRAPH_HOST, "/access_token", (req) => this.longLived(req, "ig_exchange_token"));
    s.route("GET", IG_GRAPH_HOST, "/refresh_access_token", (req) => this.longLived(req, "ig_refresh_token"));
    s.route("GET", IG_GRAPH_HOST, "/me", (req) => this.me(req));
    s.route("POST", IG_GRAPH_HOST, "/:userId/media", (req) => this.createContainer(req));
    s.route("GET", IG_GRAPH_HOST, "/:userId/media", (req) => this.listMedia(req));
    s.route("POST", IG_GRAPH_HOST, "/:userId/media_publish", (req) => this.publish(req));
    s.route("GET", IG_GRAPH_HOST, "/:userId/content_publishing_limit", (req) => this.limit(req));
    s.route("GET", IG_GRAPH_HOST, "/:id/insights", (req) => this.mediaInsights(req));
    s.route("POST", IG_GRAPH_HOST, "/:id/comments", (req) => this.comment(req));
    s.route("GET", IG_GRAPH_HOST, "/:id/comments", (req) => this.listComments(req));
    s.route("GET", IG_GRAPH_HOST, "/:id", (req) => this.read(req));
  }

  private authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.options.clientId || !redirectUri) {
      return {
        status: 400,
        raw: "Invalid Request: Request parameters are invalid: Invalid client_id or redirect_uri",
      };
    }
    const target = new URL(redirectUri);
    const state = q.get("state");
    if (this.denyNext || !this.loggedIn) {
      this.denyNext = false;
      target.searchParams.set("error", "access_denied");
      target.searchParams.set("error_reason", "user_denied");
      target.searchParams.set("error_description", "The user denied your request.");
    } else {
      const code = randomBytes(16).toString("hex");
      const asked = (q.get("scope") ?? "").split(/[ ,]+/).filter(Boolean);
      this.codes.set(code, { userId: this.loggedIn, redirectUri, scopes: asked });
      target.searchParams.set("code", code);
    }
    if (state) target.searchParams.set("state", state);
    // Instagram appends `#_` to the redirect (networks.md "Pitfalls").
    return { status: 302, headers: { location: `${target.toString()}#_` } };
  }

  private exchangeCode(req: FakeRequest): FakeResponse {
    const f = req.form();
    const bad = (message: string) => ({
      status: 400,
      body: { error_type: "OAuthException", code: 400, error_message: message },
    });
    if (
      f.get("client_id") !== this.options.clientId ||
      f.get("client_secret") !== this.options.clientSecret
    ) {
      return bad("Invalid client_secret");
    }
    if (f.get("grant_type") !== "authorization_code") return bad("Invalid grant_type");
    const code = this.codes.get(f.get("code") ?? "");
    if (!code) return bad("This authorization code has been used");
    if (code.redirectUri !== f.get("redirect_uri")) return bad("Error validating verification code");
    this.codes.delete(f.get("code")!);
    const token = newToken("IGAA");
    const scopes = code.scopes.filter((s) => SCOPES_GRANTED.includes(s));
    this.tokens.set(token, { userId: code.userId, kind: "short", revoked: false, scopes });
    // user_id is a JSON number beyond 2^53, written raw as Instagram does (networks.md "Pitfalls").
    return {
      raw: `{"access_token":${JSON.stringify(token)},"user_id":${code.userId},"permissions":${JSON.stringify(scopes.join(","))}}`,
    };
  }

  private longLived(req: FakeRequest, grant: string): FakeResponse {
    const q = req.query;
    if (q.get("grant_type") !== grant) return graphError(100, "Unsupported grant_type");
    if (grant === "ig_exchange_token" && q.get("client_secret") !== this.options.clientSecret) {
      return graphError(101, "Error validating client secret.");
    }
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    if (grant === "ig_exchange_token" && rec.kind !== "short") {
      return graphError(100, "Invalid grant: a long-lived token cannot be exchanged again");
    }
    if (grant === "ig_refresh_token" && rec.kind !== "long") {
      return graphError(100, "Only long-lived tokens can be refreshed");
    }
    const token = newToken("IGAA");
    this.tokens.set(token, { ...rec, kind: "long" });
    return { body: { access_token: token, token_type: "bearer", expires_in: 5_183_944 } };
  }

  private me(req: FakeRequest): FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const u = this.users.get(rec.userId)!;
    const record = {
      id: u.userId,
      user_id: u.userId,
      username: u.username,
      name: u.name,
      account_type: u.accountType,
      profile_picture_url: `https://scontent.cdninstagram.com/v/${u.userId}.jpg`,
      media_count: [...this.media.values()].filter((m) => m.owner === u.userId).length,
    };
    return { body: pickFields(record, req.query.get("fields")) };
  }

  private owner(req: FakeRequest): { rec: TokenRecord } | FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const target = req.params.userId === "me" ? rec.userId : req.params.userId;
    if (target !== rec.userId) {
      return graphError(100, `Unsupported request - Object with ID '${target}' does not exist`, {
        subcode: 33,
        type: "GraphMethodException",
      });
    }
    return { rec };
  }

  private async createContainer(req: FakeRequest): Promise<FakeResponse> {
    const o = this.owner(req);
    if (!("rec" in o)) return o;
    const f = req.form();
    const userId = o.rec.userId;
    const isCarouselItem = f.get("is_carousel_item") === "true";
    const mediaType = (f.get("media_type") ?? "").toUpperCase();
    const id = decimalId(17);
    const base = {
      id,
      owner: userId,
      isCarouselItem,
      caption: isCarouselItem ? "" : (f.get("caption") ?? ""),
      statusCode: "IN_PROGRESS" as const,
      status: "In Progress",
      pollsLeft: this.processingPolls,
      createdAt: new Date(),
      children: [] as string[],
    };
    let container: Container;
    if (mediaType === "CAROUSEL") {
      const children = (f.get("children") ?? "").split(",").filter(Boolean);
      if (children.length < 2 || children.length > 10) {
        return graphError(100, "The carousel must have between 2 and 10 children", { subcode: 2207015 });
      }
      for (const c of children) {
        const child = this.containers.get(c);
        if (!child || child.owner !== userId || !child.isCarouselItem) {
          return graphError(
            100,
            `Invalid parameter: children contains an id that is not a carousel item (${c})`,
            {
              subcode: 2207001,
            },
          );
        }
      }
      const pulled = Promise.all(children.map((c) => this.containers.get(c)!.pulled)).then(() => {});
      container = { ...base, mediaType: "CAROUSEL", children, pulled };
    } else if (f.get("image_url")) {
      if (mediaType && mediaType !== "STORIES") {
        return graphError(100, "Invalid parameter: media_type must not be set for an image", {
          subcode: 2207023,
        });
      }
      const fetched = pullMedia(f.get("image_url")!);
      // Feed images (single or carousel item) are downloaded at once and refused outside 4:5 to 1.91:1.
      const refused = mediaType === "STORIES" ? undefined : await feedRatioRefusal(fetched);
      if (refused) return refused;
      container = {
        ...base,
        mediaType: mediaType === "STORIES" ? "STORIES" : "IMAGE",
        pulled: Promise.resolve(),
      };
      container.pulled = this.pull(container, fetched, "image");
    } else if (f.get("video_url")) {
      if (!isCarouselItem && mediaType !== "REELS" && mediaType !== "STORIES") {
        return graphError(100, "The VIDEO media type is no longer supported; use REELS", {
          subcode: 2207023,
        });
      }
      const kind = isCarouselItem ? "VIDEO" : (mediaType as "REELS" | "STORIES");
      container = { ...base, mediaType: kind, pulled: Promise.resolve() };
      container.pulled = this.pull(container, pullMedia(f.get("video_url")!), "video");
    } else {
      return graphError(100, "(#100) The parameter image_url or video_url is required");
    }
    this.containers.set(id, container);
    return { body: { id } };
  }

  /** Reads the media as Meta cURLs it; a wrong format or failed download sets the container to ERROR. */
  private pull(
    container: Container,
    fetched: Promise<{ bytes: Buffer }>,
    kind: "image" | "video",
  ): Promise<void> {
    return fetched.then(
      async ({ bytes }): Promise<void> => {
        const type = sniff(bytes);
        if (kind === "image" && type !== "jpeg") {
          container.statusCode = "ERROR";
          container.status =
            "Error: The image format is not supported. Only JPEG images can be published. (2207083)";
        } else if (kind === "video" && type !== "mp4") {
          container.statusCode = "ERROR";
          container.status = "Error: The video format is not supported. (2207026)";
        } else if (kind === "video") {
          // Reel specifications (23-60 fps, H.264 or HEVC, AAC, at most 1920 columns): a video outside them
          // ends in ERROR with the unsupported-format code 2207026 (Instagram Platform, "Error Codes").
          const problems = await videoStreamProblems("instagram", bytes);
          if (problems.length === 0) return;
          container.statusCode = "ERROR";
          container.status = `Error: The video format is not supported: ${problems[0]!.message}. (2207026)`;
        }
      },
      () => {
        container.statusCode = "ERROR";
        container.status =
          "Error: Media download has failed. The media URI doesn't meet our requirements. (2207052)";
      },
    );
  }

  /** Settles a container's status for a read: waits for the pull, then counts down slow-processing polls. */
  private async settle(c: Container): Promise<void> {
    await c.pulled;
    if (c.statusCode !== "IN_PROGRESS") return;
    if (c.mediaType === "CAROUSEL") {
      const kids = c.children.map((k) => this.containers.get(k)!);
      for (const k of kids) await this.settle(k);
      if (kids.some((k) => k.statusCode === "ERROR")) {
        c.statusCode = "ERROR";
        c.status = "Error: A carousel item failed to process. (2207001)";
        return;
      }
      if (kids.some((k) => k.statusCode === "IN_PROGRESS")) return;
    }
    if (c.pollsLeft > 0) {
      c.pollsLeft -= 1;
      return;
    }
    c.statusCode = "FINISHED";
    c.status = "Finished: Media container is ready to be published";
  }

  private async read(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const id = req.params.id!;
    const container = this.containers.get(id);
    if (container && container.owner === rec.userId) {
      await this.settle(container);
      return {
        body: pickFields(
          { id, status_code: container.statusCode, status: container.status },
          req.query.get("fields") ?? "status_code",
        ),
      };
    }
    const media = this.media.get(id);
    if (media && media.owner === rec.userId)
      return { body: pickFields({ ...media }, req.query.get("fields")) };
    if (id === rec.userId) {
      const u = this.users.get(id)!;
      const user = { id, user_id: id, username: u.username, followers_count: this.followers.get(id) ?? 0 };
      return { body: pickFields(user, req.query.get("fields")) };
    }
    return graphError(100, `Unsupported get request. Object with ID '${id}' does not exist`, {
      subcode: 33,
      type: "GraphMethodException",
    });
  }

  /**
   * `GET /{ig-media-id}/insights?metric=...` (needs `instagram_business_manage_insights`): lifetime values of
   * the metrics the test set, an empty data set for the others, code 10 for a media with too few viewers.
   * @see https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
   */
  private mediaInsights(req: FakeRequest): FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    if (!rec.scopes.includes("instagram_business_manage_insights"))
      return graphError(10, "(#10) Application does not have permission for this action");
    const id = req.params.id!;
    const media = this.media.get(id);
    if (!media || media.owner !== rec.userId) {
      return graphError(100, `Unsupported get request. Object with ID '${id}' does not exist`, {
        subcode: 33,
        type: "GraphMethodException",
      });
    }
    const metrics = (req.query.get("metric") ?? "").split(",").filter(Boolean);
    if (metrics.length === 0) return graphError(100, "(#100) The parameter metric is required");
    const bad = metrics.findIndex((m) => !MEDIA_INSIGHTS.includes(m));
    if (bad >= 0)
      return graphError(
        100,
        `(#100) metric[${bad}] must be one of the following values: ${MEDIA_INSIGHTS.join(", ")}`,
      );
    const set = this.insights.get(id) ?? {};
    if (set === "not_enough_viewers")
      return graphError(10, "(#10) Not enough viewers for the media to show insights");
    return insightsAnswer(id, metrics, set);
  }

  /**
   * The token's own media for a comments call: code 10 without `instagram_business_manage_comments`; a media
   * that does not exist or is not the account's is refused like Graph refuses an unknown object (code 100,
   * subcode 33, GraphMethodException).
   */
  private commentable(
    req: FakeRequest,
    verb: "get" | "post",
  ): { rec: TokenRecord; media: Media } | FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const id = req.params.id!;
    const media = this.media.get(id);
    if (!media || media.owner !== rec.userId)
      return graphError(
        100,
        `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
        { subcode: 33, type: "GraphMethodException" },
      );
    if (!rec.scopes.includes("instagram_business_manage_comments"))
      return graphError(10, "(#10) Application does not have permission for this action");
    return { rec, media };
  }

  /** `POST /{ig-media-id}/comments?message=...` -> `{id}` (ig-media/comments reference). */
  private comment(req: FakeRequest): FakeResponse {
    const c = this.commentable(req, "post");
    if (!("media" in c)) return c;
    const text = req.form().get("message") ?? "";
    if (!text) return graphError(100, "(#100) The parameter message is required");
    const id = decimalId(17);
    this.comments.push({
      id,
      mediaId: c.media.id,
      userId: c.rec.userId,
      username: this.users.get(c.rec.userId)?.username ?? "",
      text,
      timestamp: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, "+0000"),
    });
    this.server.count("instagram.comments");
    return { body: { id } };
  }

  /** `GET /{ig-media-id}/comments?fields=...`: the media's comments, newest first, `limit` per page. */
  private listComments(req: FakeRequest): FakeResponse {
    const c = this.commentable(req, "get");
    if (!("media" in c)) return c;
    const limit = Math.min(Number(req.query.get("limit") ?? 25) || 25, 50);
    const data = this.comments
      .filter((k) => k.mediaId === c.media.id)
      .reverse()
      .slice(0, limit)
      .map((k) =>
        pickFields(
          { id: k.id, text: k.text, timestamp: k.timestamp, username: k.username },
          req.query.get("fields"),
        ),
      );
    return { body: { data, paging: { cursors: { before: "", after: "" } } } };
  }

  private async publish(req: FakeRequest): Promise<FakeResponse> {
    const o = this.owner(req);
    if (!("rec" in o)) return o;
    const userId = o.rec.userId;
    const creationId = req.form().get("creation_id") ?? "";
    const c = this.containers.get(creationId);
    if (!c || c.owner !== userId || c.isCarouselItem) {
      return graphError(100, "Media ID is not available", { subcode: 2207006 });
    }
    await this.settle(c);
    if (c.statusCode === "PUBLISHED")
      return graphError(9007, "The media has already been published", { subcode: 2207006 });
    if (c.statusCode === "ERROR") return graphError(9007, "Media ID is not available", { subcode: 2207006 });
    if (c.statusCode !== "FINISHED") {
      return graphError(9007, "The media is not ready for publishing, please wait for a moment", {
        subcode: 2207027,
      });
    }
    if (this.usage(userId) >= this.quotaTotal) {
      return graphError(9, "Application request limit reached: the account reached its publishing limit", {
        subcode: 2207042,
      });
    }
    const id = decimalId(17);
    const shortcode = randomBytes(8).toString("base64url").slice(0, 11);
    const user = this.users.get(userId)!;
    const reel = c.mediaType === "REELS";
    this.media.set(id, {
      id,
      owner: userId,
      media_type: c.mediaType === "CAROUSEL" ? "CAROUSEL_ALBUM" : reel ? "VIDEO" : "IMAGE",
      media_product_type: reel ? "REELS" : "FEED",
      caption: c.caption,
      permalink: `https://www.instagram.com/${reel ? "reel" : "p"}/${shortcode}/`,
      shortcode,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "+0000"),
      username: user.username,
      children: c.children,
    });
    c.statusCode = "PUBLISHED";
    c.status = "Published";
    this.server.count("instagram.publishes");
    return { body: { id } };
  }

  private usage(userId: string): number {
    const since = Date.now() - 86_400_000;
    return [...this.media.values()].filter((m) => m.owner === userId && Date.parse(m.timestamp) >= since)
      .length;
  }

  private limit(req: FakeRequest): FakeResponse {
    const o = this.owner(req);
    if (!("rec" in o)) return o;
    return {
      body: {
        data: [
          {
            quota_usage: this.usage(o.rec.userId),
            config: { quota_total: this.quotaTotal, quota_duration: 86_400 },
          },
        ],
      },
    };
  }

  private listMedia(req: FakeRequest): FakeResponse {
    const o = this.owner(req);
    if (!("rec" in o)) return o;
    const limit = Math.min(Number(req.query.get("limit") ?? 25) || 25, 100);
    const data = [...this.media.values()]
      .filter((m) => m.owner === o.rec.userId)
      .reverse()
      .slice(0, limit)
      .map((m) => pickFields({ ...m }, req.query.get("fields")));
    return { body: { data, paging: { cursors: { before: "", after: "" } } } };
  }
}

/** Mounts an Instagram fake on `server`. */
export function instagramFake(server: FakeNetworkServer, options: InstagramFakeOptions): InstagramFake {
  return new InstagramFake(server, options);
}

/**
 * Instagram's refusal of a feed image outside 4:5 to 1.91:1 (the ratio compared at two decimals: 1080x566 is
 * Instagram's own 1.91:1): HTTP 400, code 36003, subcode 2207009, with the user message of Instagram's error
 * code table (Instagram Platform reference, "Error Codes": 400 / 36003 / 2207009).
 * Undefined for an image in range, and for bytes that are not an image (the pull reports those).
 */
async function feedRatioRefusal(fetched: Promise<{ bytes: Buffer }>): Promise<FakeResponse | undefined> {
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = await sharp((await fetched).bytes).metadata());
  } catch {
    return undefined;
  }
  if (!width || !height) return undefined;
  const ratio = Math.round((width / height) * 100) / 100;
  if (ratio >= 0.8 && ratio <= 1.91) return undefined;
  return graphError(36003, "The aspect ratio is not supported.", {
    subcode: 2207009,
    userTitle: "Cannot publish the image",
    userMessage: `The submitted image with aspect ratio ${Math.round((width / height) * 10000) / 10000} cannot be published. Please submit an image with a valid aspect ratio.`,
  });
}
