/**
 * A provider-shaped fake of X API v2 (test only), mounted on the shared router (./server.ts) for the hosts
 * x.com (the OAuth 2.0 consent page) and api.x.com. It does what X does:
 * - OAuth 2.0 authorization code with PKCE: the authorize page records `code_challenge` (S256); the token
 *   endpoint wants HTTP Basic `client_id:client_secret`, a single-use 30-second code, the same
 *   `redirect_uri` and a `code_verifier` whose SHA-256 (base64url) is the challenge; the refresh_token grant
 *   rotates the refresh token (the old one stops working); access tokens live 2 hours;
 * - bearer checks per endpoint with X's scopes (401 problem for a bad/revoked token, 403 for a missing scope);
 * - media upload: images in one multipart call (JPEG/PNG/WEBP by their bytes, at most 5 MB); video by
 *   initialize / append (multipart `media` + `segment_index`, bytes counted against `total_bytes`) /
 *   finalize (segments 0..n-1 present, sizes adding up to `total_bytes`, an MP4 by its bytes) / STATUS
 *   polls (`pending` -> `in_progress` -> `succeeded` | `failed`, `processingPolls` of them); media ids expire;
 * - `POST /2/tweets` checks the weighted text length (twitter-text), the media (owned, processed, unexpired,
 *   at most 4 images or 1 video), refuses duplicate text with X's 403, enforces a 24-hour user post cap
 *   (`dailyTweetLimit`, 429 with `x-user-limit-24hour-*` headers) and counts posts (`x.tweets`); the stored
 *   text is X's rendering (`&amp;` escapes, t.co links for URLs and a trailing t.co link for media);
 * - the user timeline (`GET /2/users/{id}/tweets`, newest first, `max_results` 5..100; a new post can be
 *   held back from it for `timelineLag` reads, as X's timelines lag), posts by ids with `public_metrics`,
 *   `GET /2/users/me` with `public_metrics`; the metrics are numbers the test sets;
 * - per-user rate limits on those two reads (`GET /2/tweets`, `GET /2/users/me`), each its own 15-minute
 *   window per user token (`readLimits`, default 900 a window as in X's example): every answer carries
 *   `x-rate-limit-limit`, `x-rate-limit-remaining` and `x-rate-limit-reset` (epoch seconds of the window's
 *   end), so the call that uses the last request answers 200 with `x-rate-limit-remaining: 0`; a call past
 *   the limit answers 429 Too Many Requests (problem details) with the same headers.
 *
 * Sources (2026): https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code,
 * https://docs.x.com/x-api/media/initialize-media-upload (and append, finalize, get status, upload media,
 * quickstart/best-practices), https://docs.x.com/x-api/posts/create-post, .../posts/get-posts-by-ids,
 * .../users/get-posts, .../users/get-my-user, https://docs.x.com/x-api/fundamentals/rate-limits,
 * https://docs.x.com/fundamentals/rate-limits ("Every API response includes headers showing your current
 * rate limit status").
 */
import { Contract } from "./contract.ts";
import { X_OAUTH_OPERATIONS } from "./hand-operations.ts";
import { createHash, randomBytes } from "node:crypto";
import { captionLength } from "../../src/providers/social/rule-check.ts";
import { X_CAPABILITIES, X_SCOPES } from "../../src/providers/social/x/oauth.ts";
import { decimalId, type FakeNetworkServer, type FakeRequest, type FakeResponse, sniff } from "./server.ts";

export const X_WEB_HOST = "x.com";
export const X_API_HOST = "api.x.com";

const ALL_SCOPES = ["tweet.read", "tweet.write", "users.read", "offline.access", "media.write"];
const MB = 1024 * 1024;
const ACCESS_TOKEN_SECONDS = 7200;
const MEDIA_SECONDS = 86_400;

export interface XUser {
  id: string;
  username: string;
  name: string;
  /** Tokens issued directly (tests that skip the connect flow), with every scope. */
  accessToken: string;
  refreshToken: string;
  followers: number;
  following: number;
  /** Likes the user gave (X's user `like_count`). */
  likesGiven: number;
}

export interface XPublicMetrics {
  impression_count: number;
  like_count: number;
  reply_count: number;
  retweet_count: number;
  quote_count: number;
  bookmark_count: number;
}

export interface XTweet {
  id: string;
  authorId: string;
  /** The text as sent. */
  sent: string;
  /** The text as X renders it (entities escaped, t.co links). */
  text: string;
  createdAt: Date;
  mediaIds: string[];
  mediaKeys: string[];
  metrics: XPublicMetrics;
  /** Timeline reads still to come before the post is listed. */
  hiddenReads: number;
  /** The post this one replies to (`reply.in_reply_to_tweet_id`). */
  inReplyTo?: string | undefined;
}

export interface XMedia {
  id: string;
  key: string;
  ownerId: string;
  kind: "image" | "video";
  totalBytes: number;
  segments: Map<number, Buffer>;
  finalized: boolean;
  /** Alt text set with `POST /2/media/metadata` (at most 1,000 characters: the contract checks it). */
  altText?: string;
  state: "uploading" | "pending" | "in_progress" | "succeeded" | "failed";
  pollsLeft: number;
  valid: boolean;
  expiresAt: number;
}

interface TokenRecord {
  userId: string;
  scopes: string[];
  kind: "access" | "refresh";
  revoked: boolean;
  expiresAt?: number;
}

export interface XFakeOptions {
  clientId: string;
  clientSecret: string;
  /**
   * STATUS polls until a finalized video is processed: finalize answers `pending`, the last of these polls
   * `succeeded` (or `failed`), the ones before `in_progress` (default 1; 0 = finalize answers it processed).
   */
  processingPolls?: number;
}

/** A new post's public metrics. */
const NO_METRICS: XPublicMetrics = {
  impression_count: 0,
  like_count: 0,
  reply_count: 0,
  retweet_count: 0,
  quote_count: 0,
  bookmark_count: 0,
};

const problem = (status: number, title: string, detail: string, type = "about:blank"): FakeResponse => ({
  status,
  headers: { "content-type": "application/problem+json" },
  raw: JSON.stringify({ title, detail, type, status }),
});

const invalid = (message: string): FakeResponse => ({
  status: 400,
  body: {
    errors: [{ message }],
    title: "Invalid Request",
    detail: "One or more parameters to your request was invalid.",
    type: "https://api.twitter.com/2/problems/invalid-request",
  },
});

/** Whether the request is valid against X's 2026-07 description only (so is answered in its names). */
const onlyPosts = (req: FakeRequest) =>
  !req.descriptions.includes("x-latest") && req.descriptions.includes("x-2026-07");

const tco = () => `https://t.co/${randomBytes(8).toString("base64url").slice(0, 10)}`;

/** X's rendering of a post's text: &, <, > escaped, URLs as t.co links, a t.co link appended for media. */
function render(text: string, hasMedia: boolean): string {
  const escaped = text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/https?:\/\/\S+/g, () => tco());
  return hasMedia ? `${escaped}${escaped ? " " : ""}${tco()}` : escaped;
}

export class XFake {
  readonly users = new Map<string, XUser>();
  readonly tweets = new Map<string, XTweet>();
  readonly media = new Map<string, XMedia>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<
    string,
    { userId: string; redirectUri: string; scopes: string[]; challenge: string; method: string; at: number }
  >();
  private loggedIn: string | undefined;
  denyNext = false;
  processingPolls: number;
  /** Posts a user may create in 24 hours (X's user post cap); undefined = no cap. */
  dailyTweetLimit: number | undefined;
  /** Timeline reads each new post stays unlisted for (X's timelines lag); default 0. */
  timelineLag = 0;
  /** The fake's clock, milliseconds (tests move it to expire media). */
  now: () => number = () => Date.now();
  /** Requests per 15-minute window per user token on the metered reads (X's per-user limits). */
  readonly readLimits: Record<"/2/tweets" | "/2/users/me", number> = {
    "/2/tweets": 900,
    "/2/users/me": 900,
  };
  /** Each user's window per metered read: `{userId} {endpoint}` -> start (ms) and requests made. */
  private readonly windows = new Map<string, { start: number; used: number }>();
  readonly server: FakeNetworkServer;
  readonly options: XFakeOptions;

  constructor(server: FakeNetworkServer, options: XFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 1;
    this.mount();
  }

  /** Posts created (`POST /2/tweets` answered 201). */
  get created(): number {
    return this.server.counter("x.tweets");
  }

  /** Adds a user (logged in at the consent page) with tokens issued directly. */
  addUser(input: { username?: string; name?: string; followers?: number; likesGiven?: number } = {}): XUser {
    const u: XUser = {
      id: decimalId(19),
      username: input.username ?? `user${randomBytes(3).toString("hex")}`,
      name: input.name ?? "X User",
      accessToken: randomBytes(32).toString("base64url"),
      refreshToken: randomBytes(32).toString("base64url"),
      followers: input.followers ?? 0,
      following: 0,
      likesGiven: input.likesGiven ?? 0,
    };
    this.users.set(u.id, u);
    this.tokens.set(u.accessToken, {
      userId: u.id,
      scopes: ALL_SCOPES,
      kind: "access",
      revoked: false,
      expiresAt: this.now() + ACCESS_TOKEN_SECONDS * 1000,
    });
    this.tokens.set(u.refreshToken, { userId: u.id, scopes: ALL_SCOPES, kind: "refresh", revoked: false });
    this.loggedIn = u.id;
    return u;
  }

  /** The user revokes the app: every token of theirs stops working. */
  revokeUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.revoked = true;
  }

  /** Whether `token` is a working access token. */
  tokenValid(token: string): boolean {
    const t = this.tokens.get(token);
    return !!t && t.kind === "access" && !t.revoked && (t.expiresAt ?? Infinity) > this.now();
  }

  /** Sets (part of) a post's public metrics. */
  setMetrics(tweetId: string, metrics: Partial<XPublicMetrics>): void {
    const t = this.tweets.get(tweetId);
    if (!t) throw new Error(`no post ${tweetId}`);
    Object.assign(t.metrics, metrics);
  }

  /** The posts of `userId`, oldest first. */
  /** Adds a post of `userId` with `metrics` (as if published earlier through X); its id. */
  addTweet(userId: string, metrics: Partial<XPublicMetrics> = {}): string {
    const id = String(1_800_000_000_000_000_000n + BigInt(this.tweets.size + 1) * 7919n);
    this.tweets.set(id, {
      id,
      authorId: userId,
      sent: `Post ${id}`,
      text: `Post ${id}`,
      createdAt: new Date(),
      mediaIds: [],
      mediaKeys: [],
      metrics: { ...NO_METRICS, ...metrics },
      hiddenReads: 0,
    });
    return id;
  }

  postsOf(userId: string): XTweet[] {
    return [...this.tweets.values()].filter((t) => t.authorId === userId);
  }

  private auth(req: FakeRequest, scopes: readonly string[]): TokenRecord | FakeResponse {
    const token = String(req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
    if (!this.tokenValid(token)) return problem(401, "Unauthorized", "Unauthorized");
    const rec = this.tokens.get(token)!;
    if (!scopes.every((s) => rec.scopes.includes(s))) return problem(403, "Forbidden", "Forbidden");
    return rec;
  }

  /**
   * Counts one request of `userId` on `endpoint` in its 15-minute window and answers X's headers; `over`
   * when the window's limit was already used (the request is refused with 429).
   */
  private meter(
    userId: string,
    endpoint: keyof XFake["readLimits"],
  ): { headers: Record<string, string>; over: boolean } {
    const key = `${userId} ${endpoint}`;
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now >= w.start + 15 * 60_000) {
      w = { start: now, used: 0 };
      this.windows.set(key, w);
    }
    const limit = this.readLimits[endpoint];
    const over = w.used >= limit;
    if (!over) w.used += 1;
    return {
      over,
      headers: {
        "x-rate-limit-limit": String(limit),
        "x-rate-limit-remaining": String(Math.max(0, limit - w.used)),
        "x-rate-limit-reset": String(Math.ceil((w.start + 15 * 60_000) / 1000)),
      },
    };
  }

  /** `answer` with the metered headers, or X's 429 when the window is used up. */
  private metered(
    userId: string,
    endpoint: keyof XFake["readLimits"],
    answer: () => FakeResponse,
  ): FakeResponse {
    const m = this.meter(userId, endpoint);
    if (m.over) {
      const refused = problem(429, "Too Many Requests", "Too Many Requests");
      return { ...refused, headers: { ...refused.headers, ...m.headers } };
    }
    const r = answer();
    return { ...r, headers: { ...r.headers, ...m.headers } };
  }

  private mount(): void {
    const s = this.server;
    // X API v2: valid against the 2026-07 description or v2.159 (test/contracts/x-*.json); OAuth by hand.
    s.useContract(X_API_HOST, new Contract("x", ["x-latest", "x-2026-07"], X_OAUTH_OPERATIONS));
    s.route("GET", X_WEB_HOST, "/i/oauth2/authorize", (req) => this.authorize(req));
    s.route("POST", X_API_HOST, "/2/oauth2/token", (req) => this.token(req));
    s.route("GET", X_API_HOST, "/2/users/me", (req) => this.me(req));
    s.route("POST", X_API_HOST, "/2/media/upload", (req) => this.uploadImage(req));
    s.route("GET", X_API_HOST, "/2/media/upload", (req) => this.status(req));
    s.route("POST", X_API_HOST, "/2/media/upload/initialize", (req) => this.initialize(req));
    s.route("POST", X_API_HOST, "/2/media/upload/:id/append", (req) => this.append(req));
    s.route("POST", X_API_HOST, "/2/media/upload/:id/finalize", (req) => this.finalize(req));
    s.route("POST", X_API_HOST, "/2/media/metadata", (req) => this.metadata(req));
    s.route("POST", X_API_HOST, "/2/tweets", (req) => this.createTweet(req));
    s.route("GET", X_API_HOST, "/2/tweets", (req) => this.tweetsById(req));
    s.route("GET", X_API_HOST, "/2/users/:id/tweets", (req) => this.timeline(req));
    s.route("DELETE", X_API_HOST, "/2/tweets/:id", (req) => this.deleteTweet(req));
  }

  /** Replies created (`POST /2/tweets` with `reply`, answered 201). */
  get replies(): number {
    return this.server.counter("x.replies");
  }

  /**
   * `DELETE /2/tweets/{id}` (https://docs.x.com/x-api/posts/delete-post): the author's own post is deleted,
   * `{data: {deleted: true}}`; another user's post is refused with 403, a post X does not have with 404
   * (problem details, https://docs.x.com/x-api/fundamentals/response-codes-and-errors).
   */
  private deleteTweet(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["tweet.read", "tweet.write", "users.read"]);
    if (!("userId" in rec)) return rec;
    const t = this.tweets.get(req.params.id ?? "");
    if (!t) return problem(404, "Not Found Error", `Could not find tweet with id: [${req.params.id}].`);
    if (t.authorId !== rec.userId)
      return problem(403, "Forbidden", "You are not allowed to delete this Tweet.");
    this.tweets.delete(t.id);
    this.server.count("x.deletes");
    return { body: { data: { deleted: true } } };
  }

  private authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.options.clientId || !redirectUri || q.get("response_type") !== "code") {
      return { status: 400, raw: "Something went wrong: invalid client_id, redirect_uri or response_type" };
    }
    const challenge = q.get("code_challenge");
    const method = q.get("code_challenge_method");
    if (!challenge || (method !== "S256" && method !== "plain") || !q.get("state")) {
      return { status: 400, raw: "Something went wrong: code_challenge and state are required" };
    }
    const target = new URL(redirectUri);
    if (this.denyNext || !this.loggedIn) {
      this.denyNext = false;
      target.searchParams.set("error", "access_denied");
    } else {
      const code = randomBytes(30).toString("base64url");
      const scopes = (q.get("scope") ?? "").split(" ").filter((x) => ALL_SCOPES.includes(x));
      this.codes.set(code, { userId: this.loggedIn, redirectUri, scopes, challenge, method, at: this.now() });
      target.searchParams.set("code", code);
    }
    target.searchParams.set("state", q.get("state")!);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeResponse {
    const bad = (status: number, error: string, description: string): FakeResponse => ({
      status,
      body: { error, error_description: description },
    });
    const basic = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ""));
    const [id, secret] = basic
      ? Buffer.from(basic[1]!, "base64")
          .toString("utf8")
          .split(":")
          .map((p) => decodeURIComponent(p))
      : [];
    if (id !== this.options.clientId || secret !== this.options.clientSecret) {
      return bad(401, "unauthorized_client", "Missing valid authorization header");
    }
    const f = req.form();
    let userId: string;
    let scopes: string[];
    if (f.get("grant_type") === "authorization_code") {
      const code = this.codes.get(f.get("code") ?? "");
      this.codes.delete(f.get("code") ?? "");
      const verifier = f.get("code_verifier") ?? "";
      const expected =
        code?.method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
      if (
        !code ||
        this.now() - code.at > 30_000 ||
        code.redirectUri !== f.get("redirect_uri") ||
        code.challenge !== expected
      ) {
        return bad(400, "invalid_request", "Value passed for the authorization code was invalid.");
      }
      userId = code.userId;
      scopes = code.scopes;
    } else if (f.get("grant_type") === "refresh_token") {
      const rec = this.tokens.get(f.get("refresh_token") ?? "");
      if (rec?.kind !== "refresh" || rec.revoked) {
        return bad(400, "invalid_request", "Value passed for the token was invalid.");
      }
      rec.revoked = true; // rotation: a refresh token works once
      userId = rec.userId;
      scopes = rec.scopes;
    } else {
      return bad(400, "invalid_request", "Value passed for the grant_type was invalid.");
    }
    const access = randomBytes(32).toString("base64url");
    this.tokens.set(access, {
      userId,
      scopes,
      kind: "access",
      revoked: false,
      expiresAt: this.now() + ACCESS_TOKEN_SECONDS * 1000,
    });
    const body: Record<string, unknown> = {
      token_type: "bearer",
      expires_in: ACCESS_TOKEN_SECONDS,
      access_token: access,
      scope: scopes.join(" "),
    };
    if (scopes.includes("offline.access")) {
      const refresh = randomBytes(32).toString("base64url");
      this.tokens.set(refresh, { userId, scopes, kind: "refresh", revoked: false });
      body.refresh_token = refresh;
    }
    return { body };
  }

  private me(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["tweet.read", "users.read"]);
    if (!("userId" in rec)) return rec;
    return this.metered(rec.userId, "/2/users/me", () => this.meAnswer(req, rec.userId));
  }

  private meAnswer(req: FakeRequest, userId: string): FakeResponse {
    const rec = { userId };
    const u = this.users.get(rec.userId)!;
    const fields = (req.query.get("user.fields") ?? "").split(",");
    const data: Record<string, unknown> = { id: u.id, name: u.name, username: u.username };
    if (fields.includes("profile_image_url"))
      data.profile_image_url = `https://pbs.twimg.com/profile_images/${u.id}/photo_normal.jpg`;
    if (fields.includes("public_metrics")) {
      data.public_metrics = {
        followers_count: u.followers,
        following_count: u.following,
        tweet_count: this.postsOf(u.id).length,
        listed_count: 0,
        like_count: u.likesGiven,
        media_count: this.postsOf(u.id).filter((t) => t.mediaIds.length > 0).length,
      };
    }
    return { body: { data } };
  }

  private async multipart(req: FakeRequest): Promise<FormData | undefined> {
    const type = String(req.headers["content-type"] ?? "");
    if (!type.startsWith("multipart/form-data")) return undefined;
    return new Response(new Uint8Array(req.body), { headers: { "content-type": type } })
      .formData()
      .catch(() => undefined);
  }

  private newMedia(ownerId: string, kind: "image" | "video", totalBytes: number): XMedia {
    const id = decimalId(19);
    const m: XMedia = {
      id,
      key: `${kind === "image" ? 3 : 7}_${id}`,
      ownerId,
      kind,
      totalBytes,
      segments: new Map(),
      finalized: false,
      state: kind === "image" ? "succeeded" : "uploading",
      pollsLeft: this.processingPolls,
      valid: true,
      expiresAt: this.now() + MEDIA_SECONDS * 1000,
    };
    this.media.set(id, m);
    return m;
  }

  private async uploadImage(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req, ["media.write"]);
    if (!("userId" in rec)) return rec;
    const form = await this.multipart(req);
    if (!form) return invalid("The request body must be multipart/form-data.");
    if (form.get("media_category") !== "tweet_image")
      return invalid("media_category must be tweet_image for this upload.");
    const file = form.get("media");
    if (!(file instanceof Blob)) return invalid("The media field is required.");
    const bytes = Buffer.from(await file.arrayBuffer());
    if (!["jpeg", "png", "webp"].includes(sniff(bytes))) return invalid("media type unrecognized.");
    if (bytes.length > 5 * MB) return invalid("File size exceeds 5242880 bytes.");
    const m = this.newMedia(rec.userId, "image", bytes.length);
    m.segments.set(0, bytes);
    m.finalized = true;
    this.server.count("x.media");
    return {
      body: {
        data: { id: m.id, media_key: m.key, size: bytes.length, expires_after_secs: MEDIA_SECONDS },
      },
    };
  }

  /**
   * `POST /2/media/metadata {id, metadata:{alt_text:{text}}}` (https://docs.x.com/x-api/media/metadata-create):
   * the caller's unexpired media; the answer echoes the metadata. The contract refuses a text over 1,000.
   */
  private metadata(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["media.write"]);
    if (!("userId" in rec)) return rec;
    const body = req.json() as { id?: string; metadata?: { alt_text?: { text?: string } } };
    const m = this.ownMedia(rec, body?.id);
    if (!("id" in m && "ownerId" in m)) return m;
    const text = body.metadata?.alt_text?.text;
    if (text !== undefined) m.altText = text;
    return {
      body: {
        data: { id: m.id, associated_metadata: text !== undefined ? { alt_text: { text } } : {} },
      },
    };
  }

  private initialize(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["media.write"]);
    if (!("userId" in rec)) return rec;
    const body = req.json() as { media_type?: string; total_bytes?: number; media_category?: string };
    if (body?.media_category !== "tweet_video") return invalid("media_category must be tweet_video.");
    if (body.media_type !== "video/mp4" && body.media_type !== "video/quicktime")
      return invalid("media_type must be a video type.");
    const total = Number(body.total_bytes);
    if (!Number.isInteger(total) || total <= 0 || total > 8 * 1024 * MB)
      return invalid("total_bytes is out of range.");
    const m = this.newMedia(rec.userId, "video", total);
    return { body: { data: { id: m.id, media_key: m.key, expires_after_secs: MEDIA_SECONDS } } };
  }

  /** The caller's unexpired media `id`, or the error X answers. */
  private ownMedia(rec: TokenRecord, id: string | null | undefined): XMedia | FakeResponse {
    const m = id ? this.media.get(id) : undefined;
    if (!m || m.ownerId !== rec.userId) return invalid(`The media_id ${id} was not found.`);
    if (m.expiresAt <= this.now()) return invalid(`The media_id ${id} has expired.`);
    return m;
  }

  private async append(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req, ["media.write"]);
    if (!("userId" in rec)) return rec;
    const m = this.ownMedia(rec, req.params.id);
    if (!("key" in m)) return m;
    if (m.kind !== "video" || m.finalized) return invalid("The upload is already finalized.");
    const form = await this.multipart(req);
    if (!form) return invalid("The request body must be multipart/form-data.");
    const index = Number(form.get("segment_index"));
    const file = form.get("media");
    if (!Number.isInteger(index) || index < 0 || index > 999)
      return invalid("segment_index is out of range.");
    if (!(file instanceof Blob)) return invalid("The media field is required.");
    const bytes = Buffer.from(await file.arrayBuffer());
    const others = [...m.segments].reduce((n, [i, b]) => (i === index ? n : n + b.length), 0);
    if (others + bytes.length > m.totalBytes)
      return invalid("The segments are larger than total_bytes of the upload.");
    m.segments.set(index, bytes);
    this.server.count("x.appendedBytes", bytes.length);
    return { body: { data: { expires_at: Math.floor(m.expiresAt / 1000) } } };
  }

  private processingInfo(m: XMedia): Record<string, unknown> {
    const info: Record<string, unknown> = { state: m.state };
    if (m.state === "pending" || m.state === "in_progress") {
      info.check_after_secs = 1;
      info.progress_percent = m.state === "pending" ? 0 : 50;
    }
    if (m.state === "succeeded") info.progress_percent = 100;
    // A failed state carries no `error`: neither of X's descriptions has one in `processing_info` (the 2026-07
    // one closes the object), so an adapter must not count on it.
    return info;
  }

  private mediaAnswer(m: XMedia, withInfo: boolean): FakeResponse {
    const data: Record<string, unknown> = {
      id: m.id,
      media_key: m.key,
      size: m.totalBytes,
      expires_after_secs: Math.max(0, Math.floor((m.expiresAt - this.now()) / 1000)),
    };
    if (withInfo) data.processing_info = this.processingInfo(m);
    return { body: { data } };
  }

  private finalize(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["media.write"]);
    if (!("userId" in rec)) return rec;
    const m = this.ownMedia(rec, req.params.id);
    if (!("key" in m)) return m;
    if (m.kind !== "video") return invalid("Only chunked uploads are finalized.");
    if (!m.finalized) {
      const indexes = [...m.segments.keys()].sort((a, b) => a - b);
      if (indexes.some((v, i) => v !== i)) return invalid("Segments are missing from the upload.");
      const bytes = Buffer.concat(indexes.map((i) => m.segments.get(i)!));
      if (bytes.length !== m.totalBytes)
        return invalid(`File size mismatch: received ${bytes.length} of ${m.totalBytes} bytes.`);
      m.finalized = true;
      m.valid = sniff(bytes) === "mp4";
      m.state = m.pollsLeft > 0 ? "pending" : m.valid ? "succeeded" : "failed";
      this.server.count("x.media");
    }
    // X leaves processing_info out when the media needs no processing.
    return this.mediaAnswer(m, m.state !== "succeeded");
  }

  private status(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["media.write"]);
    if (!("userId" in rec)) return rec;
    if (req.query.get("command") !== "STATUS") return invalid("command must be STATUS.");
    const m = this.ownMedia(rec, req.query.get("media_id"));
    if (!("key" in m)) return m;
    if (!m.finalized) return invalid("The upload is not finalized.");
    if (m.state === "pending" || m.state === "in_progress") {
      m.pollsLeft -= 1;
      m.state = m.pollsLeft > 0 ? "in_progress" : m.valid ? "succeeded" : "failed";
    }
    return this.mediaAnswer(m, m.kind === "video");
  }

  private userLimitHeaders(userId: string): { headers: Record<string, string>; exhausted: boolean } {
    if (this.dailyTweetLimit === undefined) return { headers: {}, exhausted: false };
    const day = this.now() - 86_400_000;
    const recent = this.postsOf(userId).filter((t) => t.createdAt.getTime() > day);
    const oldest = recent[0]?.createdAt.getTime() ?? this.now();
    const remaining = Math.max(0, this.dailyTweetLimit - recent.length);
    return {
      exhausted: remaining === 0,
      headers: {
        "x-user-limit-24hour-limit": String(this.dailyTweetLimit),
        "x-user-limit-24hour-remaining": String(remaining),
        "x-user-limit-24hour-reset": String(Math.ceil((oldest + 86_400_000) / 1000)),
      },
    };
  }

  private createTweet(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["tweet.read", "tweet.write", "users.read"]);
    if (!("userId" in rec)) return rec;
    const body = req.json() as
      | { text?: unknown; media?: { media_ids?: unknown }; reply?: { in_reply_to_tweet_id?: unknown } }
      | undefined;
    if (!body) return invalid("The request body must be JSON.");
    // A reply to a post X does not have (never made, or deleted): X's 403 for it
    // (https://docs.x.com/x-api/fundamentals/response-codes-and-errors, "403 Forbidden").
    const inReplyTo = body.reply ? String(body.reply.in_reply_to_tweet_id ?? "") : undefined;
    if (inReplyTo !== undefined && !this.tweets.has(inReplyTo))
      return problem(
        403,
        "Forbidden",
        "You attempted to reply to a Tweet that is deleted or not visible to you.",
      );
    const text = typeof body.text === "string" ? body.text : "";
    const ids = Array.isArray(body.media?.media_ids) ? (body.media.media_ids as string[]) : [];
    if (!text && ids.length === 0) return invalid("A post needs text or media.");
    if (captionLength("x", text) > 280) return problem(403, "Forbidden", "Your Tweet text is too long.");
    const media: XMedia[] = [];
    for (const id of ids) {
      const m = this.ownMedia(rec, String(id));
      if (!("key" in m)) return invalid("Your media IDs are invalid.");
      if (m.state !== "succeeded") return invalid("Your media IDs are invalid.");
      media.push(m);
    }
    const videos = media.filter((m) => m.kind === "video").length;
    if (media.length > 4 || (videos > 0 && media.length > 1))
      return invalid("A post holds at most 4 images or 1 video.");
    const limit = this.userLimitHeaders(rec.userId);
    if (limit.exhausted)
      return { ...problem(429, "Too Many Requests", "Too Many Requests"), headers: limit.headers };
    if (text && this.postsOf(rec.userId).some((t) => t.sent === text)) {
      return problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.");
    }
    const t: XTweet = {
      id: decimalId(19),
      authorId: rec.userId,
      sent: text,
      text: render(text, media.length > 0),
      createdAt: new Date(this.now()),
      mediaIds: media.map((m) => m.id),
      mediaKeys: media.map((m) => m.key),
      metrics: { ...NO_METRICS },
      hiddenReads: this.timelineLag,
      inReplyTo,
    };
    this.tweets.set(t.id, t);
    this.server.count(inReplyTo ? "x.replies" : "x.tweets");
    return {
      status: 201,
      headers: this.userLimitHeaders(rec.userId).headers,
      body: { data: { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] } },
    };
  }

  /** A post as X answers it; `postsNaming`: in the 2026-07 description's names (the request matched only it). */
  private tweetView(t: XTweet, fields: string[], postsNaming = false): Record<string, unknown> {
    const v: Record<string, unknown> = { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] };
    if (fields.includes("created_at")) v.created_at = t.createdAt.toISOString();
    if (fields.includes("author_id")) v.author_id = t.authorId;
    if (fields.includes("attachments") && t.mediaKeys.length > 0) v.attachments = { media_keys: t.mediaKeys };
    if (fields.includes("referenced_tweets") && t.inReplyTo)
      v.referenced_tweets = [{ type: "replied_to", id: t.inReplyTo }];
    if (fields.includes("public_metrics")) {
      const { retweet_count, ...rest } = t.metrics;
      // X's 2026-07 description names a post's reposts `repost_count`; v2.159 `retweet_count`.
      v.public_metrics = postsNaming ? { repost_count: retweet_count, ...rest } : { ...t.metrics };
    }
    return v;
  }

  private tweetsById(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["tweet.read", "users.read"]);
    if (!("userId" in rec)) return rec;
    return this.metered(rec.userId, "/2/tweets", () => this.lookup(req));
  }

  private lookup(req: FakeRequest): FakeResponse {
    const ids = (req.query.get("ids") ?? "").split(",").filter(Boolean);
    if (ids.length < 1 || ids.length > 100)
      return invalid(
        `The number of values in the \`ids\` query parameter list [${ids.length}] is not between 1 and 100`,
      );
    this.server.count("x.tweets.lookup");
    // `tweet.fields` (v2.159) or `post.fields` (2026-07): the contract check let one description's name through.
    const fields = (req.query.get("tweet.fields") ?? req.query.get("post.fields") ?? "").split(",");
    const data = ids.flatMap((id) =>
      this.tweets.has(id) ? [this.tweetView(this.tweets.get(id)!, fields, onlyPosts(req))] : [],
    );
    const errors = ids
      .filter((id) => !this.tweets.has(id))
      .map((id) => ({
        value: id,
        detail: `Could not find tweet with ids: [${id}].`,
        title: "Not Found Error",
        resource_type: "tweet",
        parameter: "ids",
        resource_id: id,
        type: "https://api.twitter.com/2/problems/resource-not-found",
      }));
    return { body: { ...(data.length > 0 ? { data } : {}), ...(errors.length > 0 ? { errors } : {}) } };
  }

  private timeline(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, ["tweet.read", "users.read"]);
    if (!("userId" in rec)) return rec;
    const user = this.users.get(req.params.id ?? "");
    if (!user) return invalid(`The id ${req.params.id} is not a user.`);
    const max = Number(req.query.get("max_results") ?? 10);
    if (!Number.isInteger(max) || max < 5 || max > 100) return invalid("max_results must be 5 to 100.");
    // `tweet.fields` (v2.159) or `post.fields` (2026-07): the contract check let one description's name through.
    const fields = (req.query.get("tweet.fields") ?? req.query.get("post.fields") ?? "").split(",");
    const listed: XTweet[] = [];
    for (const t of this.postsOf(user.id).reverse()) {
      if (t.hiddenReads > 0) {
        t.hiddenReads -= 1;
        continue;
      }
      listed.push(t);
    }
    const page = listed.slice(0, max);
    if (page.length === 0) return { body: { meta: { result_count: 0 } } };
    return {
      body: {
        data: page.map((t) => this.tweetView(t, fields, onlyPosts(req))),
        meta: { result_count: page.length, newest_id: page[0]!.id, oldest_id: page.at(-1)!.id },
      },
    };
  }
}

/** Mounts an X fake on `server`. */
export function xFake(server: FakeNetworkServer, options: XFakeOptions): XFake {
  return new XFake(server, options);
}

/**
 * What the X connect saves for `user` after the code exchange (the input of `upsertConnectedAccount`): the
 * user's id and username, the tokens the fake issued with a two-hour expiry, and every scope the adapter asks.
 */
export function connectedXAccount(user: XUser, now = new Date()) {
  return {
    network: "x" as const,
    mode: "live" as const,
    account: {
      networkAccountId: user.id,
      handle: user.username,
      capabilities: X_CAPABILITIES,
      metadata: { username: user.username },
    },
    tokens: {
      accessToken: user.accessToken,
      refreshToken: user.refreshToken,
      expiresAt: new Date(now.getTime() + 7200_000),
      scopes: [...X_SCOPES],
    },
    now,
  };
}
