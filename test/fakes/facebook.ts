/**
 * A provider-shaped fake of Facebook Login and the Pages API of the Graph API (test only), mounted on the
 * shared router (./server.ts) for www.facebook.com and graph.facebook.com. Users grant Pages; `/me/accounts`
 * answers Page tokens; Page calls need that Page's token. Photos are pulled from `url` and checked
 * (JPEG/PNG/WEBP), `published=false` photos wait to be attached with `attached_media` on `/feed`, videos go
 * through `status.video_status` processing -> ready. Publishes are counted (`facebook.publishes`).
 * `onPostCreated` runs after a post is created and before the create call is answered (a caller that dies
 * while its create is in flight). For the analytics sync it serves Page `followers_count`, post engagement
 * fields and post insights with the numbers the test sets (`followers`, `postStats`); a field or insights
 * read the token lacks the permission for (`fieldPermissions`, `read_insights`), or an insights metric it
 * refuses (`refusedInsights`), fails the whole request, as the Graph API does.
 *
 * Sources (2026): https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow,
 * https://developers.facebook.com/docs/pages-api/posts, .../graph-api/reference/page/photos,
 * .../graph-api/reference/page/feed, .../video-api/guides/publishing, .../graph-api/guides/error-handling,
 * .../graph-api/reference/post, .../graph-api/reference/v23.0/insights.
 */
import { Contract } from "./contract.ts";
import { randomBytes } from "node:crypto";
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
import {
  decimalId,
  type FakeNetworkServer,
  type FakeRequest,
  type FakeResponse,
  pullMedia,
  sniff,
} from "./server.ts";

export const FB_DIALOG_HOST = "www.facebook.com";
export const FB_GRAPH_HOST = "graph.facebook.com";

export interface FacebookPage {
  id: string;
  name: string;
  owner: string;
  accessToken: string;
}

export interface FacebookUser {
  id: string;
  name: string;
  pages: FacebookPage[];
}

interface TokenRecord {
  userId: string;
  pageId?: string;
  scopes?: string[];
  kind: "short" | "long" | "page";
  revoked: boolean;
  /** The token expired (Graph: code 190, subcode 463). */
  expired?: boolean;
}

interface Photo {
  id: string;
  pageId: string;
  published: boolean;
  attached: boolean;
  caption: string;
}

interface Video {
  id: string;
  pageId: string;
  description: string;
  pollsLeft: number;
  ok: Promise<boolean>;
  postId: string;
}

export interface FeedPost {
  id: string;
  pageId: string;
  message: string;
  created_time: string;
  permalink_url: string;
  attachments: string[];
}

/** Permissions a user grants at the dialog unless the test says otherwise (Page tokens carry them too). */
export const FB_SCOPES_GRANTED = [
  "pages_show_list",
  "pages_manage_posts",
  "pages_read_engagement",
  "read_insights",
];

/** The counters of a Page post as the test sets them (views and reach are its insights). */
export interface FacebookPostStats {
  reactions?: number;
  comments?: number;
  shares?: number;
  /** `post_media_view`; unset: no insights (Pages under 100 likes, data not ready). */
  views?: number;
  /** `post_total_media_view_unique`. */
  reach?: number;
}

/** Page post insights the Graph API answers (the `post_impressions*` family is deprecated). */
const POST_INSIGHTS: Record<string, keyof FacebookPostStats> = {
  post_media_view: "views",
  post_total_media_view_unique: "reach",
};

export interface FacebookFakeOptions {
  clientId: string;
  clientSecret: string;
  /** Status polls a new video answers `processing` after its download (default 0). */
  processingPolls?: number;
}

export class FacebookFake {
  readonly users = new Map<string, FacebookUser>();
  readonly photos = new Map<string, Photo>();
  readonly videos = new Map<string, Video>();
  readonly posts = new Map<string, FeedPost>();
  /** Comments made as a Page on its posts. */
  readonly comments: Array<{
    id: string;
    postId: string;
    fromId: string;
    message: string;
    created_time: string;
  }> = [];
  /** `followers_count` per Page (0 when not set). */
  readonly followers = new Map<string, number>();
  /** Counters per post id (unset: no reactions, comments or shares, no insights). */
  readonly postStats = new Map<string, FacebookPostStats>();
  /**
   * The permission each engagement field of a post needs (`reactions`, `comments`, `shares`); a token
   * without it gets the whole field request refused with code 10. Pages API default: pages_read_engagement.
   * A test sets e.g. `comments` to `pages_read_user_content` for a Page whose comments need it.
   */
  readonly fieldPermissions: Partial<Record<keyof FacebookPostStats, string>> = {
    reactions: "pages_read_engagement",
    comments: "pages_read_engagement",
    shares: "pages_read_engagement",
  };
  /** Insights metrics Facebook refuses for the posts of this test (code 100, the whole request fails). */
  readonly refusedInsights = new Set<string>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, { userId: string; redirectUri: string; scopes: string[] }>();
  private loggedIn: string | undefined;
  denyNext = false;
  processingPolls: number;
  /**
   * Called with each new post (feed post, published photo, video) after it was created and counted; the
   * create call is answered once the returned promise settles. Tests use it to kill the caller mid-create.
   */
  onPostCreated: ((post: FeedPost) => void | Promise<void>) | undefined;
  readonly server: FakeNetworkServer;
  readonly options: FacebookFakeOptions;

  /**
   * Meta's usage metering of every Graph answer (./graph.ts `GraphUsage`: `X-App-Usage`, and
   * `X-Business-Use-Case-Usage` for the token's Page; refusals past the limits).
   */
  readonly graphUsage = new GraphUsage("pages", () => this.users.size);
  constructor(server: FakeNetworkServer, options: FacebookFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 0;
    this.mount();
    server.wrap(FB_GRAPH_HOST, (req, next) => {
      const token = req.token();
      const rec = token ? this.tokens.get(token) : undefined;
      return this.graphUsage.meter(rec?.pageId, next);
    });
  }

  /** Posts created so far (feed posts, published photos, videos). */
  get publishes(): number {
    return this.server.counter("facebook.publishes");
  }

  /**
   * Adds a user with Pages; the user becomes the one logged in at the dialog. The Page tokens carry
   * `scopes` (default FB_SCOPES_GRANTED), as Page tokens carry the user's grant.
   */
  addUser(input: { name: string; pages: string[]; scopes?: string[] }): FacebookUser {
    const user: FacebookUser = { id: decimalId(16), name: input.name, pages: [] };
    const scopes = input.scopes ?? FB_SCOPES_GRANTED;
    for (const name of input.pages) {
      const page: FacebookPage = { id: decimalId(15), name, owner: user.id, accessToken: newToken("EAAP") };
      this.tokens.set(page.accessToken, {
        userId: user.id,
        pageId: page.id,
        kind: "page",
        revoked: false,
        scopes,
      });
      user.pages.push(page);
    }
    this.users.set(user.id, user);
    this.loggedIn = user.id;
    return user;
  }

  /** Adds a Page post made outside the service (a post the analytics tests read); returns its id. */
  addPost(page: FacebookPage, message = ""): string {
    return this.newPost(page, message, []).id;
  }

  /** The user removes the app: every user and Page token of theirs answers code 190. */
  revokeUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.revoked = true;
  }

  /** Lets every token of the user expire (60 days unused): further calls answer code 190, subcode 463. */
  expireUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.expired = true;
  }

  private auth(req: FakeRequest): TokenRecord | FakeResponse {
    const token = req.token();
    const rec = token ? this.tokens.get(token) : undefined;
    if (!rec) return invalidToken();
    if (rec.revoked) return revokedToken();
    if (rec.expired) return expiredToken();
    return rec;
  }

  /** A Page call: needs that Page's token. */
  private page(req: FakeRequest): FacebookPage | FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const pageId = req.params.pageId!;
    if (rec.kind !== "page" || rec.pageId !== pageId) {
      return graphError(
        200,
        "(#200) The permission(s) pages_manage_posts are not available; use a Page access token",
        {
          type: "OAuthException",
        },
      );
    }
    return this.users.get(rec.userId)!.pages.find((p) => p.id === pageId)!;
  }

  /** The Graph node type of `id` (undefined: not an object of this fake, e.g. `oauth`). */
  nodeOf(id: string): string | undefined {
    if (id === "me" || this.users.has(id)) return "User";
    for (const u of this.users.values()) if (u.pages.some((p) => p.id === id)) return "Page";
    if (this.posts.has(id)) return "PagePost";
    if (this.photos.has(id)) return "Photo";
    if (this.videos.has(id)) return "AdVideo";
    return undefined;
  }

  private mount(): void {
    const s = this.server;
    // Meta's Graph specs converted to OpenAPI (test/contracts/graph-facebook.json), by the node type of an id.
    s.useContract(FB_GRAPH_HOST, new Contract("facebook", ["graph-facebook"]), (id) => this.nodeOf(id));
    s.route("GET", FB_DIALOG_HOST, "/dialog/oauth", (req) => this.dialog(req));
    s.route("GET", FB_GRAPH_HOST, "/oauth/access_token", (req) => this.accessToken(req));
    s.route("GET", FB_GRAPH_HOST, "/me", (req) => this.me(req));
    s.route("GET", FB_GRAPH_HOST, "/me/accounts", (req) => this.accounts(req));
    s.route("GET", FB_GRAPH_HOST, "/me/permissions", (req) => this.permissions(req));
    s.route("POST", FB_GRAPH_HOST, "/:pageId/photos", (req) => this.photo(req));
    s.route("POST", FB_GRAPH_HOST, "/:pageId/feed", (req) => this.feed(req));
    s.route("GET", FB_GRAPH_HOST, "/:pageId/feed", (req) => this.listFeed(req));
    s.route("GET", FB_GRAPH_HOST, "/:pageId/published_posts", (req) => this.listFeed(req));
    s.route("POST", FB_GRAPH_HOST, "/:pageId/videos", (req) => this.video(req));
    s.route("GET", FB_GRAPH_HOST, "/:id/insights", (req) => this.postInsights(req));
    s.route("POST", FB_GRAPH_HOST, "/:id/comments", (req) => this.comment(req));
    s.route("GET", FB_GRAPH_HOST, "/:id/comments", (req) => this.listComments(req));
    s.route("DELETE", FB_GRAPH_HOST, "/:id", (req) => this.deletePost(req));
    s.route("GET", FB_GRAPH_HOST, "/:id", (req) => this.read(req));
  }

  private dialog(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.options.clientId || !redirectUri) {
      return { status: 400, raw: "Invalid App ID" };
    }
    const target = new URL(redirectUri);
    if (this.denyNext || !this.loggedIn) {
      this.denyNext = false;
      target.searchParams.set("error", "access_denied");
      target.searchParams.set("error_code", "200");
      target.searchParams.set("error_description", "Permissions error");
      target.searchParams.set("error_reason", "user_denied");
    } else {
      const code = randomBytes(24).toString("base64url");
      const scopes = (q.get("scope") ?? "").split(/[ ,]+/).filter(Boolean);
      this.codes.set(code, { userId: this.loggedIn, redirectUri, scopes });
      target.searchParams.set("code", code);
    }
    const state = q.get("state");
    if (state) target.searchParams.set("state", state);
    return { status: 302, headers: { location: `${target.toString()}#_=_` } };
  }

  private accessToken(req: FakeRequest): FakeResponse {
    const q = req.form();
    if (
      q.get("client_id") !== this.options.clientId ||
      q.get("client_secret") !== this.options.clientSecret
    ) {
      return graphError(101, "Error validating client secret.");
    }
    if (q.get("grant_type") === "fb_exchange_token") {
      const rec = this.tokens.get(q.get("fb_exchange_token") ?? "");
      if (!rec) return invalidToken();
      if (rec.revoked) return revokedToken();
      const token = newToken("EAAL");
      this.tokens.set(token, { userId: rec.userId, kind: "long", revoked: false, scopes: rec.scopes ?? [] });
      return { body: { access_token: token, token_type: "bearer", expires_in: 5_183_944 } };
    }
    const code = this.codes.get(q.get("code") ?? "");
    if (!code) {
      return graphError(100, "This authorization code has been used.", { subcode: 36009 });
    }
    if (code.redirectUri !== q.get("redirect_uri")) {
      return graphError(
        100,
        "Error validating verification code. Please make sure your redirect_uri is identical",
        {
          subcode: 36008,
        },
      );
    }
    this.codes.delete(q.get("code")!);
    const token = newToken("EAAS");
    this.tokens.set(token, { userId: code.userId, kind: "short", revoked: false, scopes: code.scopes });
    return { body: { access_token: token, token_type: "bearer", expires_in: 5_183_944 } };
  }

  private me(req: FakeRequest): FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    if (rec.kind === "page") {
      const p = this.users.get(rec.userId)!.pages.find((x) => x.id === rec.pageId)!;
      return { body: pickFields({ id: p.id, name: p.name }, req.query.get("fields")) };
    }
    const u = this.users.get(rec.userId)!;
    return { body: pickFields({ id: u.id, name: u.name }, req.query.get("fields")) };
  }

  /** `GET /me/permissions`: the scopes granted at the dialog. */
  private permissions(req: FakeRequest): FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    return { body: { data: (rec.scopes ?? []).map((permission) => ({ permission, status: "granted" })) } };
  }

  private accounts(req: FakeRequest): FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    if (rec.kind === "page")
      return graphError(100, "(#100) Tried accessing nonexisting field (accounts) on node type (Page)");
    const u = this.users.get(rec.userId)!;
    const data = u.pages.map((p) =>
      pickFields(
        {
          id: p.id,
          name: p.name,
          access_token: p.accessToken,
          category: "Brand",
          tasks: ["ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MESSAGING", "MODERATE", "MANAGE"],
          picture: { data: { url: `https://scontent.xx.fbcdn.net/v/${p.id}.jpg`, is_silhouette: false } },
        },
        req.query.get("fields") ?? "name,access_token,category,tasks",
      ),
    );
    return { body: { data, paging: { cursors: { before: "", after: "" } } } };
  }

  private newPost(page: FacebookPage, message: string, attachments: string[]): FeedPost {
    const postId = decimalId(16);
    const id = `${page.id}_${postId}`;
    const post: FeedPost = {
      id,
      pageId: page.id,
      message,
      created_time: new Date().toISOString().replace(/\.\d{3}Z$/, "+0000"),
      permalink_url: `https://www.facebook.com/${page.id}/posts/${postId}`,
      attachments,
    };
    this.posts.set(id, post);
    this.server.count("facebook.publishes");
    return post;
  }

  private async photo(req: FakeRequest): Promise<FakeResponse> {
    const page = this.page(req);
    if (!("id" in page)) return page;
    const f = req.form();
    const url = f.get("url");
    if (!url) return graphError(324, "(#324) Requires upload file");
    let type: string;
    try {
      type = sniff((await pullMedia(url)).bytes);
    } catch {
      return graphError(100, "(#100) url should represent a valid URL", { subcode: 2069019 });
    }
    if (type !== "jpeg" && type !== "png" && type !== "webp") {
      return graphError(324, "(#324) Missing or invalid image file");
    }
    const published = f.get("published") !== "false";
    const caption = f.get("caption") ?? f.get("message") ?? "";
    const photo: Photo = { id: decimalId(16), pageId: page.id, published, attached: false, caption };
    this.photos.set(photo.id, photo);
    if (!published) return { body: { id: photo.id } };
    const post = this.newPost(page, caption, [photo.id]);
    await this.onPostCreated?.(post);
    return { body: { id: photo.id, post_id: post.id } };
  }

  /**
   * The Page post `id` the token's Page may act on, or Graph's answer for an object the token cannot see
   * (a post that does not exist, or another Page's): code 100, subcode 33, GraphMethodException
   * (https://developers.facebook.com/docs/graph-api/guides/error-handling).
   */
  private ownPost(req: FakeRequest, verb: "get" | "post" | "delete"): FeedPost | FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const id = req.params.id ?? "";
    const post = this.posts.get(id);
    if (!post || rec.kind !== "page" || post.pageId !== rec.pageId)
      return graphError(
        100,
        `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
        { type: "GraphMethodException", subcode: 33 },
      );
    return post;
  }

  /**
   * `POST /{post-id}/comments {message}` as the Page (https://developers.facebook.com/docs/graph-api/
   * reference/object/comments/): needs pages_manage_engagement in the Page token's grant, else (#200).
   */
  private comment(req: FakeRequest): FakeResponse {
    const post = this.ownPost(req, "post");
    if (!("pageId" in post)) return post;
    const rec = this.tokens.get(req.token() ?? "")!;
    if (!(rec.scopes ?? []).includes("pages_manage_engagement"))
      return graphError(200, "(#200) The permission(s) pages_manage_engagement are not available", {
        type: "OAuthException",
      });
    const message = req.form().get("message") ?? "";
    if (!message) return graphError(100, "(#100) Missing message or attachment");
    const id = `${post.id.split("_").at(-1)}_${decimalId(16)}`;
    this.comments.push({
      id,
      postId: post.id,
      fromId: post.pageId,
      message,
      created_time: new Date().toISOString().replace(/\.\d{3}Z$/, "+0000"),
    });
    this.server.count("facebook.comments");
    return { body: { id } };
  }

  private listComments(req: FakeRequest): FakeResponse {
    const post = this.ownPost(req, "get");
    if (!("pageId" in post)) return post;
    const page = this.users
      .get(this.tokens.get(req.token() ?? "")!.userId)!
      .pages.find((p) => p.id === post.pageId)!;
    return {
      body: {
        data: this.comments
          .filter((c) => c.postId === post.id)
          .map((c) => ({
            id: c.id,
            message: c.message,
            from: { id: c.fromId, name: page.name },
            created_time: c.created_time,
          })),
      },
    };
  }

  /** `DELETE /{post-id}` (https://developers.facebook.com/docs/pages-api/posts): the Page's own post only. */
  private deletePost(req: FakeRequest): FakeResponse {
    const post = this.ownPost(req, "delete");
    if (!("pageId" in post)) return post;
    this.posts.delete(post.id);
    this.server.count("facebook.deletes");
    return { body: { success: true } };
  }

  private async feed(req: FakeRequest): Promise<FakeResponse> {
    const page = this.page(req);
    if (!("id" in page)) return page;
    const f = req.form();
    const attached: string[] = [];
    const entries: string[] = [];
    const whole = f.get("attached_media");
    if (whole) {
      try {
        for (const e of JSON.parse(whole) as unknown[])
          entries.push(typeof e === "string" ? e : JSON.stringify(e));
      } catch {
        return graphError(100, "(#100) param attached_media must be an array.");
      }
    }
    for (const [k, v] of f) if (/^attached_media\[\d+\]$/.test(k)) entries.push(v);
    for (const e of entries) {
      let fbid: string | undefined;
      try {
        fbid = (JSON.parse(e) as { media_fbid?: string }).media_fbid;
      } catch {}
      const photo = fbid ? this.photos.get(fbid) : undefined;
      if (!photo || photo.pageId !== page.id || photo.published || photo.attached) {
        return graphError(
          100,
          "(#100) attached_media: the media_fbid is not an unpublished photo of this Page",
        );
      }
      attached.push(photo.id);
    }
    const message = f.get("message") ?? "";
    if (!message && attached.length === 0 && !f.get("link")) {
      return graphError(100, "(#100) Missing message or attachment");
    }
    for (const id of attached) this.photos.get(id)!.attached = true;
    const post = this.newPost(page, message, attached);
    await this.onPostCreated?.(post);
    return { body: { id: post.id } };
  }

  private async video(req: FakeRequest): Promise<FakeResponse> {
    const page = this.page(req);
    if (!("id" in page)) return page;
    const f = req.form();
    const url = f.get("file_url");
    if (!url) return graphError(100, "(#100) file_url or source is required");
    const id = decimalId(16);
    const ok = pullMedia(url).then(
      ({ bytes }) => sniff(bytes) === "mp4",
      () => false,
    );
    const post = this.newPost(page, f.get("description") ?? "", []);
    post.permalink_url = `/${page.id}/videos/${id}/`;
    this.videos.set(id, {
      id,
      pageId: page.id,
      description: f.get("description") ?? "",
      pollsLeft: this.processingPolls,
      ok,
      postId: post.id,
    });
    await this.onPostCreated?.(post);
    return { body: { id } };
  }

  private listFeed(req: FakeRequest): FakeResponse {
    const page = this.page(req);
    if (!("id" in page)) return page;
    const limit = Math.min(Number(req.query.get("limit") ?? 25) || 25, 100);
    const data = [...this.posts.values()]
      .filter((p) => p.pageId === page.id)
      .reverse()
      .slice(0, limit)
      .map((p) => pickFields({ ...p }, req.query.get("fields") ?? "message,created_time"));
    return { body: { data, paging: { cursors: { before: "", after: "" } } } };
  }

  /**
   * A post's engagement fields as Facebook answers them: `reactions` and `comments` edges with a
   * `summary.total_count`, and `shares.count`, left out while the post has no shares.
   */
  private engagement(postId: string): Record<string, unknown> {
    const st = this.postStats.get(postId) ?? {};
    const edge = (n: number | undefined) => ({ data: [], summary: { total_count: n ?? 0 } });
    return {
      reactions: edge(st.reactions),
      comments: edge(st.comments),
      ...(st.shares ? { shares: { count: st.shares } } : {}),
    };
  }

  /**
   * `GET /{post-id}/insights?metric=...&period=lifetime` with that Page's token and `read_insights`:
   * lifetime values the test set, an empty data set for the others; a deprecated or unknown metric is
   * refused (code 100) like the Graph API does.
   * @see https://developers.facebook.com/docs/graph-api/reference/v23.0/insights
   */
  private postInsights(req: FakeRequest): FakeResponse {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const id = req.params.id!;
    const post = this.posts.get(id);
    if (!post) {
      return graphError(100, `Unsupported get request. Object with ID '${id}' does not exist`, {
        subcode: 33,
        type: "GraphMethodException",
      });
    }
    if (rec.kind !== "page" || rec.pageId !== post.pageId)
      return graphError(190, "(#190) This method must be called with a Page Access Token");
    if (!(rec.scopes ?? []).includes("read_insights")) return permissionRefusal("read_insights");
    const metrics = (req.query.get("metric") ?? "").split(",").filter(Boolean);
    if (metrics.length === 0 || metrics.some((m) => !(m in POST_INSIGHTS) || this.refusedInsights.has(m)))
      return graphError(100, "(#100) The value must be a valid insights metric");
    const st = this.postStats.get(id) ?? {};
    const values = Object.fromEntries(metrics.map((m) => [m, st[POST_INSIGHTS[m]!]]));
    return insightsAnswer(id, metrics, values);
  }

  private async read(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req);
    if (!("userId" in rec)) return rec;
    const id = req.params.id!;
    const fields = req.query.get("fields");
    const post = this.posts.get(id);
    if (post) {
      // One field the token may not read fails the whole request, as the Graph API answers.
      const asked = (fields ?? "").split(",").map((f) => f.trim().split(/[.{]/)[0]!);
      const lacking = asked
        .map((f) => this.fieldPermissions[f as keyof FacebookPostStats])
        .find((perm) => perm !== undefined && !(rec.scopes ?? []).includes(perm));
      if (lacking) return permissionRefusal(lacking);
      return { body: pickFields({ ...post, ...this.engagement(id) }, fields) };
    }
    const page = this.users.get(rec.userId)?.pages.find((p) => p.id === id);
    if (page) {
      const record = { id, name: page.name, followers_count: this.followers.get(id) ?? 0 };
      return { body: pickFields(record, fields) };
    }
    const video = this.videos.get(id);
    if (video) {
      const good = await video.ok;
      let status = "ready";
      if (!good) status = "error";
      else if (video.pollsLeft > 0) {
        video.pollsLeft -= 1;
        status = "processing";
      }
      return {
        body: pickFields(
          {
            id,
            description: video.description,
            permalink_url: `/${video.pageId}/videos/${id}/`,
            post_id: video.postId,
            status: { video_status: status, processing_progress: status === "ready" ? 100 : 50 },
          },
          fields,
        ),
      };
    }
    const photo = this.photos.get(id);
    if (photo) return { body: pickFields({ id, name: photo.caption, published: photo.published }, fields) };
    return graphError(100, `Unsupported get request. Object with ID '${id}' does not exist`, {
      subcode: 33,
      type: "GraphMethodException",
    });
  }
}

/** Mounts a Facebook fake on `server`. */
export function facebookFake(server: FakeNetworkServer, options: FacebookFakeOptions): FacebookFake {
  return new FacebookFake(server, options);
}

/**
 * The Graph API's refusal of a read the token lacks `permission` for (code 10, OAuthException): the whole
 * request fails, whatever else it asked for.
 * @see https://developers.facebook.com/docs/graph-api/guides/error-handling
 */
function permissionRefusal(permission: string): FakeResponse {
  return graphError(10, `(#10) This endpoint requires the '${permission}' permission`);
}
