/**
 * A provider-shaped fake of TikTok Login Kit (OAuth v2) and the Content Posting API, Direct Post (test only),
 * mounted on the shared router (./server.ts) for www.tiktok.com, open.tiktokapis.com and the upload host
 * open-upload.tiktokapis.com. It enforces the documented rules: `client_key`, creator_info options
 * (privacy level must be one of `privacy_level_options`), FILE_UPLOAD chunk sizes (5 to 64 MB, the last chunk up
 * to 128 MB, `total_chunk_count = floor(video_size / chunk_size)`, whole upload under 5 MB, at most 1000 chunks)
 * with sequential `Content-Range` PUTs, PULL_FROM_URL (photos, or a video) only from the app's verified URL
 * prefixes (`verifiedUrlPrefixes`, none by default; else `url_ownership_unverified`), photos that must be
 * JPEG or WEBP, and the status flow
 * PROCESSING_UPLOAD / PROCESSING_DOWNLOAD -> PUBLISH_COMPLETE | FAILED with `publicaly_available_post_id`
 * arriving later (written as raw 64-bit JSON numbers, as TikTok does). Publishes are counted
 * (`tiktok.publishes`). Errors use the envelope `{error:{code,message,log_id}}` (`code: "ok"` on success).
 * For the analytics sync it serves the `user.info.stats` fields of `/v2/user/info/` and `/v2/video/query/`
 * with the numbers the test sets (`stats`, `videos`).
 *
 * Sources (2026): https://developers.tiktok.com/doc/login-kit-web, .../doc/oauth-user-access-token-management,
 * .../doc/content-posting-api-reference-query-creator-info, .../doc/content-posting-api-reference-direct-post,
 * .../doc/content-posting-api-media-transfer-guide, .../doc/content-posting-api-reference-photo-post,
 * .../doc/content-posting-api-reference-get-video-status, .../doc/tiktok-api-v2-get-user-info,
 * .../doc/tiktok-api-v2-video-query.
 */
import { videoStreamProblems } from "./video-check.ts";
import { randomBytes } from "node:crypto";
import { type FakeNetworkServer, type FakeRequest, type FakeResponse, pullMedia, sniff } from "./server.ts";

export const TT_AUTHORIZE_HOST = "www.tiktok.com";
export const TT_API_HOST = "open.tiktokapis.com";
export const TT_UPLOAD_HOST = "open-upload.tiktokapis.com";

export const MB = 1024 * 1024;

export interface TikTokCreator {
  openId: string;
  username: string;
  nickname: string;
  accessToken: string;
  refreshToken: string;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
  /** When set, creator_info (and init) answer this error code (e.g. `spam_risk_too_many_posts`). */
  cannotPost?: string | undefined;
}

type PublishStatus = "PROCESSING_UPLOAD" | "PROCESSING_DOWNLOAD" | "PUBLISH_COMPLETE" | "FAILED";

export interface TikTokPublish {
  publishId: string;
  openId: string;
  kind: "video" | "photo";
  postInfo: Record<string, unknown>;
  status: PublishStatus;
  failReason?: string;
  videoSize: number;
  chunkSize: number;
  totalChunks: number;
  received: Buffer[];
  nextByte: number;
  uploadId: string;
  pollsLeft: number;
  postIdPollsLeft: number;
  postId?: string;
  ready?: Promise<void>;
}

interface TokenRecord {
  openId: string;
  scopes: string[];
  revoked: boolean;
  kind: "access" | "refresh";
}

export interface TikTokFakeOptions {
  clientKey: string;
  clientSecret: string;
  /** status/fetch polls answered PROCESSING_* after the upload/download finished (default 1). */
  processingPolls?: number;
  /** status/fetch polls after PUBLISH_COMPLETE before `publicaly_available_post_id` is filled (default 1). */
  postIdPolls?: number;
  /**
   * URL prefixes (or domains, as `https://host/`) the app has verified with TikTok; PULL_FROM_URL of any other
   * URL is refused with `url_ownership_unverified` (default none: a new app).
   */
  verifiedUrlPrefixes?: string[];
}

const SCOPES = [
  "user.info.basic",
  "user.info.profile",
  "user.info.stats",
  "video.list",
  "video.publish",
  "video.upload",
];

/** The creator counters of `user.info.stats` (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info). */
export interface TikTokCreatorStats {
  follower_count: number;
  following_count: number;
  likes_count: number;
  video_count: number;
}

/** A public post of a creator with its counters, as `/v2/video/query/` answers them. */
export interface TikTokVideo {
  id: string;
  openId: string;
  view_count: number;
  like_count: number;
  comment_count: number;
  share_count: number;
}

/** Video fields `/v2/video/query/` answers in this fake. */
const VIDEO_FIELDS = ["id", "view_count", "like_count", "comment_count", "share_count"];

function logId(): string {
  return `2026${randomBytes(12).toString("hex").toUpperCase()}`;
}

/** The Content Posting API envelope. */
function answer(data: unknown, status = 200, code = "ok", message = ""): FakeResponse {
  return { status, body: { data: data ?? {}, error: { code, message, log_id: logId() } } };
}

const ttError = (status: number, code: string, message: string): FakeResponse =>
  answer({}, status, code, message);

export class TikTokFake {
  readonly creators = new Map<string, TikTokCreator>();
  readonly publishes = new Map<string, TikTokPublish>();
  /** Creator counters by open_id (zeros when not set). */
  readonly stats = new Map<string, TikTokCreatorStats>();
  /** Public posts by id: every post that got a public id, and those added with `addVideo`. */
  readonly videos = new Map<string, TikTokVideo>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, { openId: string; redirectUri: string; scopes: string[] }>();
  private loggedIn: string | undefined;
  denyNext = false;
  processingPolls: number;
  postIdPolls: number;
  /** The verified URL prefixes now (see `TikTokFakeOptions.verifiedUrlPrefixes`); a test may verify later. */
  verifiedUrlPrefixes: string[];
  readonly server: FakeNetworkServer;
  readonly options: TikTokFakeOptions;

  constructor(server: FakeNetworkServer, options: TikTokFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 1;
    this.postIdPolls = options.postIdPolls ?? 1;
    this.verifiedUrlPrefixes = options.verifiedUrlPrefixes ?? [];
    this.mount();
  }

  /** Posts that reached PUBLISH_COMPLETE. */
  get published(): number {
    return this.server.counter("tiktok.publishes");
  }

  /** Adds a creator (logged in at the authorize page) with tokens issued directly. */
  addCreator(
    input: Partial<Omit<TikTokCreator, "openId" | "accessToken" | "refreshToken">> = {},
  ): TikTokCreator {
    const c: TikTokCreator = {
      openId: `-000${randomBytes(12).toString("hex")}`,
      username: input.username ?? "creator",
      nickname: input.nickname ?? "Creator",
      accessToken: `act.${randomBytes(24).toString("hex")}`,
      refreshToken: `rft.${randomBytes(24).toString("hex")}`,
      privacyLevelOptions: input.privacyLevelOptions ?? [
        "PUBLIC_TO_EVERYONE",
        "MUTUAL_FOLLOW_FRIENDS",
        "SELF_ONLY",
      ],
      commentDisabled: input.commentDisabled ?? false,
      duetDisabled: input.duetDisabled ?? false,
      stitchDisabled: input.stitchDisabled ?? false,
      maxVideoPostDurationSec: input.maxVideoPostDurationSec ?? 600,
      cannotPost: input.cannotPost,
    };
    this.creators.set(c.openId, c);
    this.tokens.set(c.accessToken, { openId: c.openId, scopes: SCOPES, revoked: false, kind: "access" });
    this.tokens.set(c.refreshToken, { openId: c.openId, scopes: SCOPES, revoked: false, kind: "refresh" });
    this.loggedIn = c.openId;
    return c;
  }

  /**
   * Adds a public post of `openId` made outside the service (a post the analytics tests read) with its
   * counters; returns its id (a 19-digit public post id).
   */
  addVideo(openId: string, counts: Partial<Omit<TikTokVideo, "id" | "openId">> = {}): string {
    const id = publicPostId();
    this.videos.set(id, { ...zeroCounts(), ...counts, id, openId });
    return id;
  }

  /**
   * The access token `token` expires (TikTok's access tokens last 24 hours:
   * https://developers.tiktok.com/doc/oauth-user-access-token-management): it answers
   * `access_token_invalid` from now on, while the creator's refresh token still works.
   */
  expireAccessToken(token: string): void {
    const t = this.tokens.get(token);
    if (t?.kind === "access") t.revoked = true;
  }

  /** The creator deauthorizes the app: every token answers `access_token_invalid`. */
  revokeCreator(openId: string): void {
    for (const t of this.tokens.values()) if (t.openId === openId) t.revoked = true;
  }

  private auth(req: FakeRequest, scope: string): TokenRecord | FakeResponse {
    const token = req.token();
    const rec = token ? this.tokens.get(token) : undefined;
    if (!rec || rec.revoked || rec.kind !== "access") {
      return ttError(401, "access_token_invalid", "The access token is invalid or not found in the request.");
    }
    if (!rec.scopes.includes(scope)) {
      return ttError(
        401,
        "scope_not_authorized",
        `The user did not authorize the scope required (${scope}).`,
      );
    }
    return rec;
  }

  private mount(): void {
    const s = this.server;
    s.route("GET", TT_AUTHORIZE_HOST, "/v2/auth/authorize", (req) => this.authorize(req));
    s.route("POST", TT_API_HOST, "/v2/oauth/token", (req) => this.token(req));
    s.route("GET", TT_API_HOST, "/v2/user/info", (req) => this.userInfo(req));
    s.route("POST", TT_API_HOST, "/v2/post/publish/creator_info/query", (req) => this.creatorInfo(req));
    s.route("POST", TT_API_HOST, "/v2/post/publish/video/init", (req) => this.videoInit(req));
    s.route("POST", TT_API_HOST, "/v2/post/publish/content/init", (req) => this.contentInit(req));
    s.route("POST", TT_API_HOST, "/v2/post/publish/status/fetch", (req) => this.status(req));
    s.route("POST", TT_API_HOST, "/v2/video/query", (req) => this.videoQuery(req));
    s.route("PUT", TT_UPLOAD_HOST, "/video", (req) => this.upload(req));
  }

  private authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_key") !== this.options.clientKey || !redirectUri) {
      return { status: 400, raw: "client_key: invalid or redirect_uri missing" };
    }
    const target = new URL(redirectUri);
    if (this.denyNext || !this.loggedIn) {
      this.denyNext = false;
      target.searchParams.set("error", "access_denied");
      target.searchParams.set("error_description", "The user denied the authorization.");
    } else {
      const code = randomBytes(20).toString("base64url");
      const scopes = (q.get("scope") ?? "").split(",").filter((x) => SCOPES.includes(x));
      this.codes.set(code, { openId: this.loggedIn, redirectUri, scopes });
      target.searchParams.set("code", code);
      target.searchParams.set("scopes", scopes.join(","));
    }
    const state = q.get("state");
    if (state) target.searchParams.set("state", state);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeResponse {
    const f = req.form();
    const bad = (error: string, description: string) => ({
      status: 400,
      body: { error, error_description: description, log_id: logId() },
    });
    if (
      f.get("client_key") !== this.options.clientKey ||
      f.get("client_secret") !== this.options.clientSecret
    ) {
      return bad("invalid_client", "Client key or secret is incorrect.");
    }
    let openId: string;
    let scopes: string[];
    if (f.get("grant_type") === "authorization_code") {
      const code = this.codes.get(f.get("code") ?? "");
      if (!code) return bad("invalid_grant", "Authorization code is expired.");
      if (code.redirectUri !== f.get("redirect_uri")) return bad("invalid_grant", "Redirect URI mismatch.");
      this.codes.delete(f.get("code")!);
      openId = code.openId;
      scopes = code.scopes;
    } else if (f.get("grant_type") === "refresh_token") {
      const rec = this.tokens.get(f.get("refresh_token") ?? "");
      if (rec?.kind !== "refresh" || rec.revoked)
        return bad("invalid_grant", "Refresh token is invalid or expired.");
      openId = rec.openId;
      scopes = rec.scopes;
    } else {
      return bad("unsupported_grant_type", "The grant type is not supported.");
    }
    const access = `act.${randomBytes(24).toString("hex")}`;
    const refresh = `rft.${randomBytes(24).toString("hex")}`;
    this.tokens.set(access, { openId, scopes, revoked: false, kind: "access" });
    this.tokens.set(refresh, { openId, scopes, revoked: false, kind: "refresh" });
    return {
      body: {
        access_token: access,
        expires_in: 86_400,
        open_id: openId,
        refresh_expires_in: 31_536_000,
        refresh_token: refresh,
        scope: scopes.join(","),
        token_type: "Bearer",
      },
    };
  }

  private userInfo(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "user.info.basic");
    if (!("openId" in rec)) return rec;
    const c = this.creators.get(rec.openId)!;
    const stats = this.stats.get(c.openId) ?? {
      follower_count: 0,
      following_count: 0,
      likes_count: 0,
      video_count: 0,
    };
    const all: Record<string, unknown> = {
      open_id: c.openId,
      union_id: `u${c.openId}`,
      avatar_url: `https://p16-sign.tiktokcdn-us.com/${c.openId}.jpeg`,
      display_name: c.nickname,
      username: c.username,
      ...stats,
    };
    const fields = (req.query.get("fields") ?? "").split(",").filter(Boolean);
    const needs: Array<[string, string[]]> = [
      ["user.info.profile", ["username"]],
      ["user.info.stats", Object.keys(stats)],
    ];
    for (const [scope, names] of needs) {
      if (fields.some((f) => names.includes(f)) && !rec.scopes.includes(scope)) {
        return ttError(
          401,
          "scope_not_authorized",
          `The user did not authorize the scope required (${scope}).`,
        );
      }
    }
    const user = Object.fromEntries(fields.filter((k) => k in all).map((k) => [k, all[k]]));
    return answer({ user });
  }

  /**
   * `POST /v2/video/query/?fields=...` with `{filters: {video_ids: [...]}}` (at most 20, scope `video.list`):
   * the creator's own videos among the ids, with the requested fields.
   * @see https://developers.tiktok.com/doc/tiktok-api-v2-video-query
   */
  private videoQuery(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "video.list");
    if (!("openId" in rec)) return rec;
    const fields = (req.query.get("fields") ?? "").split(",").filter(Boolean);
    if (fields.length === 0 || fields.some((f) => !VIDEO_FIELDS.includes(f)))
      return ttError(400, "invalid_params", "fields must be video object fields.");
    const ids = (req.json() as { filters?: { video_ids?: unknown } } | undefined)?.filters?.video_ids;
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 20 || ids.some((i) => typeof i !== "string"))
      return ttError(400, "invalid_params", "filters.video_ids must hold 1 to 20 video ids.");
    this.server.count("tiktok.video.query");
    const videos = ids
      .map((id) => this.videos.get(id as string))
      .filter((v): v is TikTokVideo => v?.openId === rec.openId)
      .map((v) => Object.fromEntries(fields.map((f) => [f, v[f as keyof TikTokVideo]])));
    return answer({ videos, cursor: 0, has_more: false });
  }

  private creatorInfo(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "video.publish");
    if (!("openId" in rec)) return rec;
    const c = this.creators.get(rec.openId)!;
    if (c.cannotPost) return ttError(403, c.cannotPost, "The creator cannot make more posts at this moment.");
    return answer({
      creator_avatar_url: `https://p16-sign.tiktokcdn-us.com/${c.openId}.jpeg`,
      creator_username: c.username,
      creator_nickname: c.nickname,
      privacy_level_options: c.privacyLevelOptions,
      comment_disabled: c.commentDisabled,
      duet_disabled: c.duetDisabled,
      stitch_disabled: c.stitchDisabled,
      max_video_post_duration_sec: c.maxVideoPostDurationSec,
    });
  }

  /** Checks post_info against the creator (privacy option, branded content not private). */
  private checkPostInfo(c: TikTokCreator, info: Record<string, unknown>): FakeResponse | undefined {
    if (c.cannotPost) return ttError(403, c.cannotPost, "The creator cannot make more posts at this moment.");
    const privacy = info.privacy_level;
    if (typeof privacy !== "string" || !c.privacyLevelOptions.includes(privacy)) {
      return ttError(
        400,
        "privacy_level_option_mismatch",
        "privacy_level is not one of the creator's privacy_level_options.",
      );
    }
    if (info.brand_content_toggle === true && privacy === "SELF_ONLY") {
      return ttError(400, "invalid_param", "Branded content cannot be posted with privacy_level SELF_ONLY.");
    }
    return undefined;
  }

  private newPublish(
    c: TikTokCreator,
    kind: "video" | "photo",
    info: Record<string, unknown>,
    extra: Partial<TikTokPublish>,
  ): TikTokPublish {
    const p: TikTokPublish = {
      publishId: `${kind === "video" ? "v_pub_file" : "p_pub_url"}~v2-1.${BigInt(`0x${randomBytes(7).toString("hex")}`)}`,
      openId: c.openId,
      kind,
      postInfo: info,
      status: kind === "video" ? "PROCESSING_UPLOAD" : "PROCESSING_DOWNLOAD",
      videoSize: 0,
      chunkSize: 0,
      totalChunks: 0,
      received: [],
      nextByte: 0,
      uploadId: randomBytes(8).toString("hex"),
      pollsLeft: this.processingPolls,
      postIdPollsLeft: this.postIdPolls,
      ...extra,
    };
    this.publishes.set(p.publishId, p);
    return p;
  }

  private videoInit(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "video.publish");
    if (!("openId" in rec)) return rec;
    const c = this.creators.get(rec.openId)!;
    const body = req.json() as { post_info?: Record<string, unknown>; source_info?: Record<string, unknown> };
    const info = body?.post_info ?? {};
    const src = body?.source_info ?? {};
    const refused = this.checkPostInfo(c, info);
    if (refused) return refused;
    if (typeof info.title === "string" && [...info.title].length > 2200) {
      return ttError(400, "invalid_param", "title is longer than 2200 characters.");
    }
    if (src.source !== "FILE_UPLOAD") {
      const url = typeof src.video_url === "string" ? src.video_url : "";
      if (src.source !== "PULL_FROM_URL" || !url)
        return ttError(400, "invalid_param", "source must be FILE_UPLOAD or PULL_FROM_URL with a video_url.");
      if (!this.verified(url)) return unverifiedUrl();
      return ttError(400, "invalid_param", "This fake takes videos by FILE_UPLOAD only.");
    }
    const size = Number(src.video_size);
    const chunk = Number(src.chunk_size);
    const count = Number(src.total_chunk_count);
    const rule = chunkRuleViolation(size, chunk, count);
    if (rule) return ttError(400, "invalid_param", rule);
    const p = this.newPublish(c, "video", info, { videoSize: size, chunkSize: chunk, totalChunks: count });
    const uploadUrl = `${this.server.urlFor(TT_UPLOAD_HOST, "/video/")}?upload_id=${p.uploadId}&upload_token=${randomBytes(12).toString("hex")}`;
    return answer({ publish_id: p.publishId, upload_url: uploadUrl });
  }

  private upload(req: FakeRequest): FakeResponse {
    const p = [...this.publishes.values()].find((x) => x.uploadId === req.query.get("upload_id"));
    if (p?.status !== "PROCESSING_UPLOAD")
      return { status: 404, body: { error: "upload session not found" } };
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers["content-range"] ?? ""));
    if (!range) return { status: 400, body: { error: "Content-Range is missing or malformed" } };
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    const index = p.received.length;
    const expectedLast = index === p.totalChunks - 1 ? p.videoSize - 1 : first + p.chunkSize - 1;
    if (
      total !== p.videoSize ||
      first !== p.nextByte ||
      last !== expectedLast ||
      req.body.length !== last - first + 1
    ) {
      return { status: 416, body: { error: "Content-Range does not match the next chunk of this upload" } };
    }
    p.received.push(req.body);
    p.nextByte = last + 1;
    if (p.received.length < p.totalChunks) return { status: 206 };
    const bytes = Buffer.concat(p.received);
    p.received = [];
    if (sniff(bytes) !== "mp4") {
      p.status = "FAILED";
      p.failReason = "file_format_check_failed";
    } else {
      // The media transfer guide's video restrictions: a frame rate outside 23-60 fps fails
      // `frame_rate_check_failed`, a side under 360 px `picture_size_check_failed`, another codec
      // `file_format_check_failed` (Content Posting API, Get Post Status: fail_reason).
      p.ready = videoStreamProblems("tiktok", bytes).then((problems) => {
        const first = problems[0]?.rule;
        if (!first) return;
        p.status = "FAILED";
        p.failReason =
          first === "video_frame_rate"
            ? "frame_rate_check_failed"
            : first === "video_resolution"
              ? "picture_size_check_failed"
              : "file_format_check_failed";
      });
    }
    return { status: 201 };
  }

  private async contentInit(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req, "video.publish");
    if (!("openId" in rec)) return rec;
    const c = this.creators.get(rec.openId)!;
    const body = req.json() as {
      post_info?: Record<string, unknown>;
      source_info?: { source?: string; photo_images?: unknown; photo_cover_index?: unknown };
      post_mode?: string;
      media_type?: string;
    };
    if (body?.media_type !== "PHOTO") return ttError(400, "invalid_param", "media_type must be PHOTO.");
    if (body.post_mode !== "DIRECT_POST" && body.post_mode !== "MEDIA_UPLOAD") {
      return ttError(400, "invalid_param", "post_mode must be DIRECT_POST or MEDIA_UPLOAD.");
    }
    const info = body.post_info ?? {};
    const refused = this.checkPostInfo(c, info);
    if (refused) return refused;
    if (typeof info.title === "string" && [...info.title].length > 90) {
      return ttError(400, "invalid_param", "title is longer than 90 characters.");
    }
    if (typeof info.description === "string" && [...info.description].length > 4000) {
      return ttError(400, "invalid_param", "description is longer than 4000 characters.");
    }
    const src = body.source_info ?? {};
    const images = Array.isArray(src.photo_images) ? (src.photo_images as string[]) : [];
    if (src.source !== "PULL_FROM_URL")
      return ttError(400, "invalid_param", "Photo posts need source PULL_FROM_URL.");
    if (images.length < 1 || images.length > 35)
      return ttError(400, "invalid_param", "photo_images must hold 1 to 35 URLs.");
    if (images.some((u) => typeof u !== "string" || !this.verified(u))) return unverifiedUrl();
    const cover = Number(src.photo_cover_index ?? 0);
    if (!Number.isInteger(cover) || cover < 0 || cover >= images.length) {
      return ttError(400, "invalid_param", "photo_cover_index is out of range.");
    }
    const p = this.newPublish(c, "photo", info, {});
    p.ready = Promise.all(images.map((u) => pullMedia(u).then(({ bytes }) => sniff(bytes)))).then(
      (types) => {
        if (types.some((t) => t !== "jpeg" && t !== "webp")) {
          p.status = "FAILED";
          p.failReason = "file_format_check_failed";
        }
      },
      () => {
        p.status = "FAILED";
        p.failReason = "photo_pull_failed";
      },
    );
    return answer({ publish_id: p.publishId });
  }

  /** Whether `url` starts with one of the app's verified URL prefixes. */
  private verified(url: string): boolean {
    return this.verifiedUrlPrefixes.some((prefix) => url.startsWith(prefix));
  }

  private async status(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req, "video.publish");
    if (!("openId" in rec)) return rec;
    const id = (req.json() as { publish_id?: string } | undefined)?.publish_id;
    const p = id ? this.publishes.get(id) : undefined;
    if (!p || p.openId !== rec.openId)
      return ttError(400, "invalid_publish_id", "publish_id does not exist.");
    await p.ready;
    const uploaded = p.kind === "video" && p.nextByte >= p.videoSize;
    const downloaded = p.kind === "photo";
    let justCompleted = false;
    if (p.status !== "FAILED" && p.status !== "PUBLISH_COMPLETE" && (uploaded || downloaded)) {
      if (p.pollsLeft > 0) p.pollsLeft -= 1;
      else {
        p.status = "PUBLISH_COMPLETE";
        justCompleted = true;
        this.server.count("tiktok.publishes");
      }
    }
    if (
      p.status === "PUBLISH_COMPLETE" &&
      !p.postId &&
      p.postInfo.privacy_level !== "SELF_ONLY" &&
      (!justCompleted || p.postIdPollsLeft === 0)
    ) {
      if (p.postIdPollsLeft > 0) p.postIdPollsLeft -= 1;
      else {
        p.postId = publicPostId();
        this.videos.set(p.postId, { ...zeroCounts(), id: p.postId, openId: p.openId });
      }
    }
    // publicaly_available_post_id holds raw int64 numbers (beyond 2^53), as the real API writes them.
    const ids = p.postId ? `[${p.postId}]` : "[]";
    const fail = p.failReason ? `,"fail_reason":${JSON.stringify(p.failReason)}` : "";
    const bytes = p.kind === "video" ? `,"uploaded_bytes":${p.nextByte}` : `,"downloaded_bytes":0`;
    return {
      raw: `{"data":{"status":${JSON.stringify(p.status)}${fail},"publicaly_available_post_id":${ids}${bytes}},"error":{"code":"ok","message":"","log_id":"${logId()}"}}`,
    };
  }
}

/** A new public post id: 19 digits, beyond 2^53 (TikTok writes them as raw JSON numbers in status/fetch). */
function publicPostId(): string {
  return `7${BigInt(`0x${randomBytes(7).toString("hex")}`)
    .toString()
    .padStart(18, "0")
    .slice(0, 18)}`;
}

const zeroCounts = () => ({ view_count: 0, like_count: 0, comment_count: 0, share_count: 0 });

/**
 * Why a FILE_UPLOAD chunk plan breaks TikTok's media transfer rules, or undefined when it follows them.
 * @see https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide
 */
export function chunkRuleViolation(size: number, chunk: number, count: number): string | undefined {
  if (!Number.isInteger(size) || size <= 0) return "video_size must be a positive integer.";
  if (!Number.isInteger(chunk) || !Number.isInteger(count) || chunk <= 0 || count <= 0) {
    return "chunk_size and total_chunk_count must be positive integers.";
  }
  if (size < 5 * MB) {
    return chunk === size && count === 1
      ? undefined
      : "A video under 5 MB must be uploaded as one chunk of video_size.";
  }
  if (chunk < 5 * MB || chunk > 64 * MB) return "chunk_size must be between 5 MB and 64 MB.";
  if (count !== Math.floor(size / chunk)) return "total_chunk_count must be floor(video_size / chunk_size).";
  if (count > 1000) return "At most 1000 chunks.";
  if (size - (count - 1) * chunk > 128 * MB) return "The final chunk may not exceed 128 MB.";
  return undefined;
}

/** Mounts a TikTok fake on `server`. */
export function tiktokFake(server: FakeNetworkServer, options: TikTokFakeOptions): TikTokFake {
  return new TikTokFake(server, options);
}

/**
 * TikTok's refusal of a PULL_FROM_URL (video or photo) from a domain or URL prefix the app has not verified
 * (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide "PULL_FROM_URL", error
 * `url_ownership_unverified`, HTTP 403).
 */
function unverifiedUrl(): FakeResponse {
  return ttError(
    403,
    "url_ownership_unverified",
    "To use PULL_FROM_URL, the domain or URL prefix of the media must be verified for your app.",
  );
}
