/**
 * A provider-shaped fake of Google OAuth 2.0 and the YouTube Data API v3 (test only), mounted on the shared
 * router (./server.ts) for accounts.google.com (consent), oauth2.googleapis.com (token) and
 * www.googleapis.com (Data API and the media upload endpoint). It does what Google does:
 * - OAuth: `client_id` / `client_secret`, the exact `redirect_uri`, PKCE S256 (the verifier must hash to the
 *   challenge), single-use codes, a refresh token only with `access_type=offline` and then only on a first
 *   consent or with `prompt=consent` (`withholdRefreshToken` drops it, as Google does on some reconnects),
 *   no new refresh token on refresh, 1-hour access tokens, `invalid_grant` for revoked tokens;
 * - the Data API: scopes per method (`youtube.upload` for uploads, `youtube.readonly` for reads), Google's
 *   error envelope `{error:{code, message, errors:[{message, domain, reason}], status}}`, `channels.list`
 *   (`mine` / `id`; snippet, statistics, contentDetails), `videos.list` (status, processingDetails,
 *   statistics; `uploaded` -> `processed` after `processingPolls` reads), `playlistItems.list` of the
 *   uploads playlist (newest first);
 * - the resumable upload for real: `POST ...?uploadType=resumable` checks the metadata (title <= 100
 *   characters and description <= 5000 bytes without `<` `>`, privacy status), the `X-Upload-Content-*`
 *   headers and the daily quota (`insertQuota` calls -> 403 `quotaExceeded`; `uploadLimit` per channel ->
 *   400 `uploadLimitExceeded`), answers the session URI in `Location`; `PUT` chunks must start at the
 *   bytes received so far, match `Content-Range`, and (but the last) be multiples of 256 KiB; the answer is
 *   `308` with `Range: bytes=0-N` (`persistNext` keeps fewer bytes than sent, as the protocol allows) or,
 *   when the file is whole, `201` with the video resource; `bytes *\/N` reports where the session stands
 *   (the video again once complete); expired sessions answer 404. Videos created are counted
 *   (`youtube.videos`), session starts too (`youtube.inserts`);
 * - comments and deletes (scope `youtube.force-ssl`; `videos.delete` also `youtube`): `commentThreads.insert`
 *   on a video the caller may see (else 404 `videoNotFound`), `commentThreads.list` of a video (newest
 *   first with `order=time`; `textOriginal` only for the comment's author), `videos.delete` of the channel's
 *   own video (another channel's: 403 `forbidden`; gone: 404 `videoNotFound`). Comments are kept in
 *   `comments` and counted (`youtube.comments`), deletes too (`youtube.deletes`).
 *
 * Sources (2026): https://developers.google.com/identity/protocols/oauth2/web-server,
 * https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol,
 * https://developers.google.com/youtube/v3/docs/videos/insert, .../docs/videos/list, .../docs/channels/list,
 * .../docs/playlistItems/list, .../docs/commentThreads/insert, .../docs/commentThreads/list,
 * .../docs/videos/delete, .../docs/errors, .../determine_quota_cost.
 */
import { Contract } from "./contract.ts";
import { GOOGLE_OAUTH_OPERATIONS, YOUTUBE_HAND_OPERATIONS } from "./hand-operations.ts";
import { createHash, randomBytes } from "node:crypto";
import { type FakeNetworkServer, type FakeRequest, type FakeResponse, sniff } from "./server.ts";

export const GOOGLE_ACCOUNTS_HOST = "accounts.google.com";
export const GOOGLE_OAUTH_HOST = "oauth2.googleapis.com";
export const GOOGLE_APIS_HOST = "www.googleapis.com";
export const YT_UPLOAD_PATH = "/upload/youtube/v3/videos";

const SCOPE = "https://www.googleapis.com/auth/";
export const SCOPE_UPLOAD = `${SCOPE}youtube.upload`;
export const SCOPE_READONLY = `${SCOPE}youtube.readonly`;
export const SCOPE_FORCE_SSL = `${SCOPE}youtube.force-ssl`;
const SCOPE_YOUTUBE = `${SCOPE}youtube`;
const KNOWN_SCOPES = [SCOPE_UPLOAD, SCOPE_READONLY, SCOPE_YOUTUBE, SCOPE_FORCE_SSL];
const READ_SCOPES = [SCOPE_READONLY, SCOPE_YOUTUBE, SCOPE_FORCE_SSL];
const UPLOAD_SCOPES = [SCOPE_UPLOAD, SCOPE_YOUTUBE, SCOPE_FORCE_SSL];
/** `commentThreads.insert` / `.list` take only force-ssl (their reference pages, "Authorization"). */
const COMMENT_SCOPES = [SCOPE_FORCE_SSL];
/** `videos.delete` takes youtube, force-ssl or youtubepartner (its reference page, "Authorization"). */
const DELETE_SCOPES = [SCOPE_YOUTUBE, SCOPE_FORCE_SSL, `${SCOPE}youtubepartner`];
/** Longest `textOriginal` of a comment, characters (commentThreads.insert: 400 commentTextTooLong). */
const COMMENT_MAX = 10_000;
const ACCESS_TOKEN_SECONDS = 3599;
/** Every chunk but the last must be a multiple of this many bytes. */
export const UPLOAD_GRANULE = 256 * 1024;

export interface YouTubeChannel {
  id: string;
  title: string;
  customUrl: string;
  uploadsPlaylistId: string;
  subscriberCount: number;
  viewCount: number;
  hiddenSubscriberCount: boolean;
  /** Video ids, newest first (the uploads playlist). */
  videos: string[];
  uploadsToday: number;
}

export interface GoogleUser {
  id: string;
  channel: YouTubeChannel | null;
  /** Tokens issued directly (tests that skip the connect flow), with both scopes. */
  accessToken: string;
  refreshToken: string;
  /** OAuth clients this user has consented to (a first consent always gets a refresh token). */
  consented: Set<string>;
}

type UploadStatus = "uploaded" | "processed" | "failed" | "rejected" | "deleted";

export interface FakeVideo {
  id: string;
  channelId: string;
  title: string;
  description: string;
  privacyStatus: string;
  madeForKids: boolean;
  publishedAt: string;
  uploadStatus: UploadStatus;
  failureReason?: string | undefined;
  rejectionReason?: string | undefined;
  /** The outcome once processing ends. */
  outcome: { uploadStatus: "processed" | "failed" | "rejected"; reason?: string | undefined };
  pollsLeft: number;
  bytes: number;
  /** What `videos.list part=statistics` answers; null = the field is left out (hidden likes, comments off). */
  statistics: { viewCount: number; likeCount: number | null; commentCount: number | null };
}

/** A top-level comment made through `commentThreads.insert` (its thread id is the comment's id). */
export interface FakeComment {
  id: string;
  videoId: string;
  /** The author's channel. */
  channelId: string;
  text: string;
  publishedAt: string;
}

export interface UploadSession {
  uploadId: string;
  userId: string;
  channelId: string;
  metadata: { snippet: { title: string; description: string }; status: Record<string, unknown> };
  parts: string[];
  total: number;
  contentType: string;
  chunks: Buffer[];
  received: number;
  videoId?: string | undefined;
  gone: boolean;
  /** Chunk PUTs with bytes (status queries excluded). */
  chunkPuts: number;
}

interface TokenRecord {
  userId: string;
  kind: "access" | "refresh";
  scopes: string[];
  revoked: boolean;
  expiresAt?: number;
}

interface CodeRecord {
  userId: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | undefined;
  offline: boolean;
  issueRefresh: boolean;
}

export interface YouTubeFakeOptions {
  clientId: string;
  clientSecret: string;
  /** `videos.list` reads that still answer `uploaded` after the upload (default 1). */
  processingPolls?: number;
  /** `videos.insert` calls allowed per quota day (default unlimited); then 403 quotaExceeded. */
  insertQuota?: number;
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
function youtubeId(length: number): string {
  return [...randomBytes(length)].map((b) => alphabet[b % 64]).join("");
}
const etag = () => randomBytes(20).toString("base64url");

/** Google's API error envelope. */
export function googleError(
  code: number,
  reason: string,
  message: string,
  domain = "global",
  status = "",
): FakeResponse {
  return {
    status: code,
    body: { error: { code, message, errors: [{ message, domain, reason }], ...(status ? { status } : {}) } },
  };
}

const QUOTA_MESSAGE =
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.';

export class YouTubeFake {
  readonly users = new Map<string, GoogleUser>();
  readonly videos = new Map<string, FakeVideo>();
  readonly sessions = new Map<string, UploadSession>();
  /** Comments made through the API, oldest first. */
  readonly comments: FakeComment[] = [];
  /** The fake's clock for comment times, milliseconds (tests share the service's). */
  now: () => number = () => Date.now();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, CodeRecord>();
  private loggedIn: string | undefined;
  denyNext = false;
  /** The next code exchange answers no refresh token (Google on some reconnects). */
  withholdRefreshToken = false;
  processingPolls: number;
  insertQuota: number;
  insertsToday = 0;
  /** `videos.insert` calls a channel may make before 400 uploadLimitExceeded (default unlimited). */
  uploadLimit = Number.POSITIVE_INFINITY;
  /** The next chunk PUT keeps only this many bytes (a multiple of 256 KiB), answered in the 308 Range. */
  persistNext: number | undefined;
  /** SHA-256 (hex) of each created video's bytes, by video id: what arrived, byte for byte. */
  readonly hashes = new Map<string, string>();
  /** How the next uploaded video ends processing (default processed; non-MP4 bytes always fail). */
  outcomeNext: FakeVideo["outcome"] | undefined;
  /** Called after each chunk is stored (tests inject faults from here). */
  onChunk: ((session: UploadSession) => void) | undefined;
  readonly server: FakeNetworkServer;
  readonly options: YouTubeFakeOptions;

  constructor(server: FakeNetworkServer, options: YouTubeFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 1;
    this.insertQuota = options.insertQuota ?? Number.POSITIVE_INFINITY;
    this.mount();
  }

  /** Videos whose upload completed (the resource was created). */
  get videosCreated(): number {
    return this.server.counter("youtube.videos");
  }

  /** Upload sessions started (`videos.insert` calls accepted). */
  get inserts(): number {
    return this.server.counter("youtube.inserts");
  }

  /** A new quota day: the `videos.insert` count starts again. */
  resetQuotaDay(): void {
    this.insertsToday = 0;
    for (const u of this.users.values()) if (u.channel) u.channel.uploadsToday = 0;
  }

  /**
   * Adds a Google user (logged in at the consent page) with a channel, and tokens issued directly with
   * `scopes` (default upload and readonly, the grant of an account connected before force-ssl was asked).
   */
  addUser(
    input: {
      title?: string;
      customUrl?: string;
      channel?: boolean;
      subscriberCount?: number;
      viewCount?: number;
      hiddenSubscriberCount?: boolean;
      scopes?: string[];
    } = {},
  ): GoogleUser {
    const tail = youtubeId(22);
    const channel: YouTubeChannel | null =
      input.channel === false
        ? null
        : {
            id: `UC${tail}`,
            title: input.title ?? "Channel",
            customUrl: input.customUrl ?? `@channel${tail.slice(0, 6).toLowerCase()}`,
            uploadsPlaylistId: `UU${tail}`,
            subscriberCount: input.subscriberCount ?? 0,
            viewCount: input.viewCount ?? 0,
            hiddenSubscriberCount: input.hiddenSubscriberCount ?? false,
            videos: [],
            uploadsToday: 0,
          };
    const user: GoogleUser = {
      id: String(100_000_000_000_000_000_000n + BigInt(`0x${randomBytes(6).toString("hex")}`)),
      channel,
      accessToken: "",
      refreshToken: "",
      consented: new Set(),
    };
    const scopes = input.scopes ?? [SCOPE_UPLOAD, SCOPE_READONLY];
    user.accessToken = this.issue(user.id, "access", scopes);
    user.refreshToken = this.issue(user.id, "refresh", scopes);
    this.users.set(user.id, user);
    this.loggedIn = user.id;
    return user;
  }

  /** Adds a processed public video of `channelId` with `statistics` (as if published long ago); its id. */
  addVideo(channelId: string, statistics: FakeVideo["statistics"]): string {
    const id = youtubeId(11);
    this.videos.set(id, {
      id,
      channelId,
      title: "Video",
      description: "",
      privacyStatus: "public",
      madeForKids: false,
      publishedAt: new Date().toISOString(),
      uploadStatus: "processed",
      outcome: { uploadStatus: "processed" },
      pollsLeft: 0,
      bytes: 1,
      statistics,
    });
    for (const u of this.users.values()) if (u.channel?.id === channelId) u.channel.videos.push(id);
    return id;
  }

  /** The user removes the app's access (myaccount.google.com): every token is refused. */
  revokeUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.revoked = true;
  }

  /** Closes an upload session as if it expired: it answers 404 from now on. */
  expireSession(uploadId: string): void {
    const s = this.sessions.get(uploadId);
    if (s) s.gone = true;
  }

  /** Whether `token` is a live access token. */
  tokenValid(token: string): boolean {
    const t = this.tokens.get(token);
    return !!t && t.kind === "access" && !t.revoked && (t.expiresAt ?? 0) > Date.now();
  }

  private issue(userId: string, kind: "access" | "refresh", scopes: string[]): string {
    const token =
      kind === "access"
        ? `ya29.${randomBytes(48).toString("base64url")}`
        : `1//0${randomBytes(40).toString("base64url")}`;
    this.tokens.set(token, {
      userId,
      kind,
      scopes,
      revoked: false,
      ...(kind === "access" ? { expiresAt: Date.now() + ACCESS_TOKEN_SECONDS * 1000 } : {}),
    });
    return token;
  }

  /** The caller's token, checked like the Data API does: 401 invalid, 403 missing scope. */
  private auth(req: FakeRequest, anyOf: string[]): TokenRecord | FakeResponse {
    const token = req.token();
    const rec = token ? this.tokens.get(token) : undefined;
    if (rec?.kind !== "access" || rec.revoked || (rec.expiresAt ?? 0) <= Date.now()) {
      const r = googleError(
        401,
        "authError",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
        "global",
        "UNAUTHENTICATED",
      );
      return { ...r, headers: { "www-authenticate": 'Bearer realm="https://accounts.google.com/"' } };
    }
    if (!rec.scopes.some((s) => anyOf.includes(s)))
      return googleError(
        403,
        "insufficientPermissions",
        "Request had insufficient authentication scopes.",
        "global",
        "PERMISSION_DENIED",
      );
    return rec;
  }

  private mount(): void {
    const s = this.server;
    // YouTube Data API v3's Discovery document converted to OpenAPI (test/contracts/youtube.json).
    s.useContract(GOOGLE_APIS_HOST, new Contract("youtube", ["youtube"], YOUTUBE_HAND_OPERATIONS));
    s.useContract(GOOGLE_OAUTH_HOST, new Contract("youtube", [], GOOGLE_OAUTH_OPERATIONS));
    s.route("GET", GOOGLE_ACCOUNTS_HOST, "/o/oauth2/v2/auth", (req) => this.authorize(req));
    s.route("POST", GOOGLE_OAUTH_HOST, "/token", (req) => this.token(req));
    s.route("GET", GOOGLE_APIS_HOST, "/youtube/v3/channels", (req) => this.channels(req));
    s.route("GET", GOOGLE_APIS_HOST, "/youtube/v3/videos", (req) => this.listVideos(req));
    s.route("GET", GOOGLE_APIS_HOST, "/youtube/v3/playlistItems", (req) => this.playlistItems(req));
    s.route("DELETE", GOOGLE_APIS_HOST, "/youtube/v3/videos", (req) => this.deleteVideo(req));
    s.route("POST", GOOGLE_APIS_HOST, "/youtube/v3/commentThreads", (req) => this.insertThread(req));
    s.route("GET", GOOGLE_APIS_HOST, "/youtube/v3/commentThreads", (req) => this.listThreads(req));
    s.route("POST", GOOGLE_APIS_HOST, YT_UPLOAD_PATH, (req) => this.startUpload(req));
    s.route("PUT", GOOGLE_APIS_HOST, YT_UPLOAD_PATH, (req) => this.putUpload(req));
  }

  // --- OAuth -------------------------------------------------------------------------------------------

  private authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.options.clientId)
      return { status: 401, raw: "Error 401: invalid_client. The OAuth client was not found." };
    if (!redirectUri || q.get("response_type") !== "code")
      return { status: 400, raw: "Error 400: invalid_request. Required parameter is missing: response_type" };
    const scopes = (q.get("scope") ?? "").split(" ").filter(Boolean);
    if (scopes.length === 0 || scopes.some((x) => !KNOWN_SCOPES.includes(x)))
      return { status: 400, raw: "Error 400: invalid_scope. Some requested scopes were invalid." };
    const method = q.get("code_challenge_method");
    const challenge = q.get("code_challenge") ?? undefined;
    if (challenge && method !== "S256" && method !== "plain")
      return { status: 400, raw: "Error 400: invalid_request. Invalid code_challenge_method." };
    const target = new URL(redirectUri);
    const user = this.loggedIn ? this.users.get(this.loggedIn) : undefined;
    if (this.denyNext || !user) {
      this.denyNext = false;
      target.searchParams.set("error", "access_denied");
    } else {
      const code = `4/0A${randomBytes(30).toString("base64url")}`;
      const offline = q.get("access_type") === "offline";
      const firstConsent = !user.consented.has(this.options.clientId);
      const prompted = (q.get("prompt") ?? "").split(" ").includes("consent");
      this.codes.set(code, {
        userId: user.id,
        clientId: this.options.clientId,
        redirectUri,
        scopes,
        challenge: challenge && method === "S256" ? challenge : undefined,
        offline,
        issueRefresh: offline && (firstConsent || prompted) && !this.withholdRefreshToken,
      });
      this.withholdRefreshToken = false;
      user.consented.add(this.options.clientId);
      target.searchParams.set("code", code);
      target.searchParams.set("scope", scopes.join(" "));
    }
    const state = q.get("state");
    if (state) target.searchParams.set("state", state);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeResponse {
    const f = req.form();
    const bad = (status: number, error: string, description: string): FakeResponse => ({
      status,
      body: { error, error_description: description },
    });
    if (f.get("client_id") !== this.options.clientId || f.get("client_secret") !== this.options.clientSecret)
      return bad(401, "invalid_client", "Unauthorized");
    const grant = f.get("grant_type");
    if (grant === "authorization_code") {
      const code = this.codes.get(f.get("code") ?? "");
      if (!code) return bad(400, "invalid_grant", "Malformed auth code.");
      this.codes.delete(f.get("code")!);
      if (code.redirectUri !== f.get("redirect_uri")) return bad(400, "redirect_uri_mismatch", "Bad Request");
      if (code.challenge) {
        const verifier = f.get("code_verifier") ?? "";
        if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge)
          return bad(400, "invalid_grant", "Invalid code verifier.");
      }
      const access = this.issue(code.userId, "access", code.scopes);
      const refresh = code.issueRefresh ? this.issue(code.userId, "refresh", code.scopes) : undefined;
      return {
        body: {
          access_token: access,
          expires_in: ACCESS_TOKEN_SECONDS,
          ...(refresh ? { refresh_token: refresh } : {}),
          scope: code.scopes.join(" "),
          token_type: "Bearer",
        },
      };
    }
    if (grant === "refresh_token") {
      const rec = this.tokens.get(f.get("refresh_token") ?? "");
      if (rec?.kind !== "refresh" || rec.revoked)
        return bad(400, "invalid_grant", "Token has been expired or revoked.");
      return {
        body: {
          access_token: this.issue(rec.userId, "access", rec.scopes),
          expires_in: ACCESS_TOKEN_SECONDS,
          scope: rec.scopes.join(" "),
          token_type: "Bearer",
        },
      };
    }
    return bad(400, "unsupported_grant_type", "Invalid grant_type: " + (grant ?? ""));
  }

  // --- Data API reads --------------------------------------------------------------------------------

  private parts(req: FakeRequest): string[] | FakeResponse {
    const part = req.query.get("part");
    if (!part) return googleError(400, "required", "Required parameter: part", "global", "INVALID_ARGUMENT");
    return part.split(",").map((p) => p.trim());
  }

  private channels(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, READ_SCOPES);
    if (!("userId" in rec)) return rec;
    const parts = this.parts(req);
    if (!Array.isArray(parts)) return parts;
    const all = [...this.users.values()].map((u) => u.channel).filter((c): c is YouTubeChannel => !!c);
    let found: YouTubeChannel[];
    if (req.query.get("mine") === "true") {
      const mine = this.users.get(rec.userId)?.channel;
      found = mine ? [mine] : [];
    } else if (req.query.get("id")) {
      const ids = req.query.get("id")!.split(",");
      found = all.filter((c) => ids.includes(c.id));
    } else {
      return googleError(
        400,
        "missingRequiredParameter",
        "No filter selected. Expected one of: mine, id, ...",
      );
    }
    const items = found.map((c) => ({
      kind: "youtube#channel",
      etag: etag(),
      id: c.id,
      ...(parts.includes("snippet")
        ? {
            snippet: {
              title: c.title,
              description: "",
              customUrl: c.customUrl,
              publishedAt: "2020-01-01T00:00:00Z",
              thumbnails: {
                default: { url: `https://yt3.ggpht.com/${c.id}=s88`, width: 88, height: 88 },
                medium: { url: `https://yt3.ggpht.com/${c.id}=s240`, width: 240, height: 240 },
              },
              localized: { title: c.title, description: "" },
            },
          }
        : {}),
      ...(parts.includes("statistics")
        ? {
            statistics: {
              viewCount: String(c.viewCount),
              ...(c.hiddenSubscriberCount ? {} : { subscriberCount: String(c.subscriberCount) }),
              hiddenSubscriberCount: c.hiddenSubscriberCount,
              videoCount: String(c.videos.length),
            },
          }
        : {}),
      ...(parts.includes("contentDetails")
        ? { contentDetails: { relatedPlaylists: { likes: "", uploads: c.uploadsPlaylistId } } }
        : {}),
    }));
    return {
      body: {
        kind: "youtube#channelListResponse",
        etag: etag(),
        pageInfo: { totalResults: items.length, resultsPerPage: 5 },
        ...(items.length > 0 ? { items } : {}),
      },
    };
  }

  /** The video resource with the requested parts, as its owner sees it. */
  private resource(v: FakeVideo, parts: string[]): Record<string, unknown> {
    const processing: Record<UploadStatus, string> = {
      uploaded: "processing",
      processed: "succeeded",
      failed: "failed",
      rejected: "succeeded",
      deleted: "terminated",
    };
    const channel = [...this.users.values()].find((u) => u.channel?.id === v.channelId)?.channel;
    return {
      kind: "youtube#video",
      etag: etag(),
      id: v.id,
      ...(parts.includes("snippet")
        ? {
            snippet: {
              publishedAt: v.publishedAt,
              channelId: v.channelId,
              title: v.title,
              description: v.description,
              channelTitle: channel?.title ?? "",
              categoryId: "22",
              liveBroadcastContent: "none",
              localized: { title: v.title, description: v.description },
            },
          }
        : {}),
      ...(parts.includes("status")
        ? {
            status: {
              uploadStatus: v.uploadStatus,
              ...(v.failureReason ? { failureReason: v.failureReason } : {}),
              ...(v.rejectionReason ? { rejectionReason: v.rejectionReason } : {}),
              privacyStatus: v.privacyStatus,
              license: "youtube",
              embeddable: true,
              publicStatsViewable: true,
              madeForKids: v.madeForKids,
              selfDeclaredMadeForKids: v.madeForKids,
            },
          }
        : {}),
      ...(parts.includes("processingDetails")
        ? {
            processingDetails: {
              processingStatus: processing[v.uploadStatus],
              ...(v.uploadStatus === "failed" ? { processingFailureReason: "transcodeFailed" } : {}),
            },
          }
        : {}),
      ...(parts.includes("statistics")
        ? {
            statistics: {
              viewCount: String(v.statistics.viewCount),
              ...(v.statistics.likeCount === null ? {} : { likeCount: String(v.statistics.likeCount) }),
              favoriteCount: "0",
              ...(v.statistics.commentCount === null
                ? {}
                : { commentCount: String(v.statistics.commentCount) }),
            },
          }
        : {}),
    };
  }

  private ownerOf(rec: TokenRecord): YouTubeChannel | null {
    return this.users.get(rec.userId)?.channel ?? null;
  }

  private listVideos(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, READ_SCOPES);
    if (!("userId" in rec)) return rec;
    const parts = this.parts(req);
    if (!Array.isArray(parts)) return parts;
    const ids = (req.query.get("id") ?? "").split(",").filter(Boolean);
    if (ids.length === 0) return googleError(400, "missingRequiredParameter", "No filter selected.");
    // videos.list's `id` takes at most 50 ids (reference: "a comma-separated list"; the 50 cap is the
    // documented maxResults; the API answers more with a 400 in its error envelope).
    if (ids.length > 50)
      return googleError(
        400,
        "invalidParameter",
        "The request specifies more than 50 video IDs.",
        "youtube.parameter",
      );
    this.server.count("youtube.videos.list");
    const mine = this.ownerOf(rec);
    const items: Record<string, unknown>[] = [];
    for (const id of ids) {
      const v = this.videos.get(id);
      if (!v || v.uploadStatus === "deleted") continue;
      const owner = mine?.id === v.channelId;
      if (!owner && v.privacyStatus === "private") continue;
      if (
        owner &&
        v.uploadStatus === "uploaded" &&
        (parts.includes("status") || parts.includes("processingDetails"))
      ) {
        if (v.pollsLeft > 0) v.pollsLeft -= 1;
        else {
          v.uploadStatus = v.outcome.uploadStatus;
          if (v.outcome.uploadStatus === "failed") v.failureReason = v.outcome.reason;
          if (v.outcome.uploadStatus === "rejected") v.rejectionReason = v.outcome.reason;
        }
      }
      items.push(this.resource(v, owner ? parts : parts.filter((p) => p !== "processingDetails")));
    }
    return {
      body: {
        kind: "youtube#videoListResponse",
        etag: etag(),
        pageInfo: { totalResults: items.length, resultsPerPage: items.length },
        items,
      },
    };
  }

  private playlistItems(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, READ_SCOPES);
    if (!("userId" in rec)) return rec;
    const parts = this.parts(req);
    if (!Array.isArray(parts)) return parts;
    const playlistId = req.query.get("playlistId");
    const channel = [...this.users.values()].find(
      (u) => u.channel?.uploadsPlaylistId === playlistId,
    )?.channel;
    if (!playlistId || !channel)
      return googleError(
        404,
        "playlistNotFound",
        "The playlist identified with the request's playlistId parameter cannot be found.",
        "youtube.playlistItem",
      );
    const owner = this.ownerOf(rec)?.id === channel.id;
    const max = Math.min(50, Math.max(0, Number(req.query.get("maxResults") ?? 5)));
    const videos = channel.videos
      .map((id) => this.videos.get(id)!)
      .filter((v) => v.uploadStatus !== "deleted" && (owner || v.privacyStatus !== "private"))
      .slice(0, max);
    const items = videos.map((v, position) => ({
      kind: "youtube#playlistItem",
      etag: etag(),
      id: randomBytes(24).toString("base64url"),
      ...(parts.includes("snippet")
        ? {
            snippet: {
              publishedAt: v.publishedAt,
              channelId: channel.id,
              title: v.title,
              description: v.description,
              channelTitle: channel.title,
              playlistId,
              position,
              resourceId: { kind: "youtube#video", videoId: v.id },
              videoOwnerChannelTitle: channel.title,
              videoOwnerChannelId: channel.id,
            },
          }
        : {}),
      ...(parts.includes("contentDetails")
        ? {
            contentDetails: {
              videoId: v.id,
              ...(v.privacyStatus === "public" ? { videoPublishedAt: v.publishedAt } : {}),
            },
          }
        : {}),
    }));
    return {
      body: {
        kind: "youtube#playlistItemListResponse",
        etag: etag(),
        pageInfo: { totalResults: channel.videos.length, resultsPerPage: max },
        items,
      },
    };
  }

  // --- Comments and deletes ------------------------------------------------------------------------

  /** A video `rec`'s user may see (its own, or another channel's that is not private), else undefined. */
  private visibleVideo(rec: TokenRecord, id: string): FakeVideo | undefined {
    const v = this.videos.get(id);
    if (!v || v.uploadStatus === "deleted") return undefined;
    return v.channelId === this.ownerOf(rec)?.id || v.privacyStatus !== "private" ? v : undefined;
  }

  /** A comment thread resource; `textOriginal` only for the comment's author. */
  private thread(c: FakeComment, viewer: string | undefined): Record<string, unknown> {
    const author = [...this.users.values()].find((u) => u.channel?.id === c.channelId)?.channel;
    const owner = this.videos.get(c.videoId)?.channelId ?? "";
    return {
      kind: "youtube#commentThread",
      etag: etag(),
      id: c.id,
      snippet: {
        channelId: owner,
        videoId: c.videoId,
        topLevelComment: {
          kind: "youtube#comment",
          etag: etag(),
          id: c.id,
          snippet: {
            channelId: owner,
            videoId: c.videoId,
            textDisplay: c.text,
            ...(viewer === c.channelId ? { textOriginal: c.text } : {}),
            authorDisplayName: author?.customUrl ?? "",
            authorProfileImageUrl: `https://yt3.ggpht.com/${c.channelId}=s48`,
            authorChannelUrl: `http://www.youtube.com/${author?.customUrl ?? `channel/${c.channelId}`}`,
            authorChannelId: { value: c.channelId },
            canRate: true,
            viewerRating: "none",
            likeCount: 0,
            publishedAt: c.publishedAt,
            updatedAt: c.publishedAt,
          },
        },
        canReply: true,
        totalReplyCount: 0,
        isPublic: true,
      },
    };
  }

  /** `commentThreads.insert?part=snippet`: a top-level comment by the token's channel. */
  private insertThread(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, COMMENT_SCOPES);
    if (!("userId" in rec)) return rec;
    const channel = this.ownerOf(rec);
    if (!channel)
      return googleError(
        403,
        "ineligibleAccount",
        "The user has no YouTube channel.",
        "youtube.commentThread",
      );
    const body = req.json() as
      | { snippet?: { videoId?: unknown; topLevelComment?: { snippet?: { textOriginal?: unknown } } } }
      | undefined;
    const videoId = body?.snippet?.videoId;
    const text = body?.snippet?.topLevelComment?.snippet?.textOriginal;
    const video = typeof videoId === "string" ? this.visibleVideo(rec, videoId) : undefined;
    if (!video)
      return googleError(
        404,
        "videoNotFound",
        "The video identified by the videoId parameter could not be found.",
        "youtube.commentThread",
      );
    if (typeof text !== "string" || text.trim() === "")
      return googleError(
        400,
        "commentTextRequired",
        "The comment resource that is being inserted must specify a value for the snippet.topLevelComment.snippet.textOriginal property. Comments cannot be empty.",
        "youtube.commentThread",
      );
    if ([...text].length > COMMENT_MAX)
      return googleError(
        400,
        "commentTextTooLong",
        "The comment resource that is being inserted or updated contains too many characters in the snippet.topLevelComment.snippet.textOriginal property.",
        "youtube.commentThread",
      );
    const comment: FakeComment = {
      id: `Ugz${randomBytes(18).toString("base64url")}`,
      videoId: video.id,
      channelId: channel.id,
      text,
      publishedAt: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
    this.comments.push(comment);
    if (video.statistics.commentCount !== null) video.statistics.commentCount += 1;
    this.server.count("youtube.comments");
    return { body: this.thread(comment, channel.id) };
  }

  /** `commentThreads.list?part=snippet&videoId=...`: the video's threads (`order=time`: newest first). */
  private listThreads(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, COMMENT_SCOPES);
    if (!("userId" in rec)) return rec;
    const videoId = req.query.get("videoId");
    if (!videoId)
      return googleError(
        400,
        "missingRequiredParameter",
        "No filter selected. Expected one of: videoId, ...",
      );
    if (!this.visibleVideo(rec, videoId))
      return googleError(
        404,
        "videoNotFound",
        "The video identified by the videoId parameter could not be found.",
        "youtube.commentThread",
      );
    const max = Number(req.query.get("maxResults") ?? 20);
    const all = this.comments.filter((c) => c.videoId === videoId);
    if (req.query.get("order") !== "relevance") all.reverse();
    const viewer = this.ownerOf(rec)?.id;
    const items = all.slice(0, max).map((c) => this.thread(c, viewer));
    return {
      body: {
        kind: "youtube#commentThreadListResponse",
        etag: etag(),
        pageInfo: { totalResults: items.length, resultsPerPage: max },
        items,
      },
    };
  }

  /** `videos.delete?id=...` -> 204: the channel's own video only. */
  private deleteVideo(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, DELETE_SCOPES);
    if (!("userId" in rec)) return rec;
    const v = this.videos.get(req.query.get("id") ?? "");
    if (!v || v.uploadStatus === "deleted")
      return googleError(
        404,
        "videoNotFound",
        "The video that you are trying to delete cannot be found. Check the value of the id parameter in the request to ensure that it is correct.",
        "youtube.video",
      );
    if (v.channelId !== this.ownerOf(rec)?.id)
      return googleError(
        403,
        "forbidden",
        "The video that you are trying to delete cannot be deleted. The request might not be properly authorized.",
        "youtube.video",
      );
    v.uploadStatus = "deleted";
    this.server.count("youtube.deletes");
    return { status: 204 };
  }

  // --- Resumable upload -----------------------------------------------------------------------------

  private startUpload(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, UPLOAD_SCOPES);
    if (!("userId" in rec)) return rec;
    const channel = this.ownerOf(rec);
    if (!channel)
      return googleError(401, "youtubeSignupRequired", "The user has no YouTube channel.", "youtube.header");
    if (req.query.get("uploadType") !== "resumable")
      return googleError(400, "invalidArgument", "This fake only speaks uploadType=resumable.");
    const parts = (req.query.get("part") ?? "").split(",").filter(Boolean);
    if (!parts.includes("snippet") || !parts.includes("status"))
      return googleError(
        400,
        "invalidPart",
        "The part parameter must name snippet and status.",
        "youtube.part",
      );
    const total = Number(req.headers["x-upload-content-length"]);
    const type = String(req.headers["x-upload-content-type"] ?? "");
    if (!Number.isInteger(total) || total <= 0)
      return googleError(400, "badRequest", "X-Upload-Content-Length must be a positive integer.");
    if (!type.startsWith("video/") && type !== "application/octet-stream")
      return googleError(
        400,
        "badRequest",
        `Media type '${type}' is not supported. Valid media types: [video/*, application/octet-stream]`,
      );
    if (!String(req.headers["content-type"] ?? "").startsWith("application/json"))
      return googleError(400, "badRequest", "The metadata must be sent as application/json.");
    const body = req.json() as
      | { snippet?: { title?: unknown; description?: unknown }; status?: Record<string, unknown> }
      | undefined;
    const title = body?.snippet?.title;
    const description = body?.snippet?.description ?? "";
    if (typeof title !== "string" || !title.trim() || [...title].length > 100 || /[<>]/.test(title))
      return googleError(
        400,
        "invalidTitle",
        "The request metadata specifies an invalid or empty video title.",
        "youtube.video",
      );
    if (typeof description !== "string" || Buffer.byteLength(description) > 5000 || /[<>]/.test(description))
      return googleError(
        400,
        "invalidDescription",
        "The request metadata specifies an invalid video description.",
        "youtube.video",
      );
    const status = body?.status ?? {};
    const privacy = status.privacyStatus ?? "public";
    if (!["private", "unlisted", "public"].includes(String(privacy)))
      return googleError(400, "invalidVideoMetadata", "The request metadata is invalid.", "youtube.video");
    if (status.selfDeclaredMadeForKids !== undefined && typeof status.selfDeclaredMadeForKids !== "boolean")
      return googleError(
        400,
        "invalidVideoMetadata",
        "selfDeclaredMadeForKids must be a boolean.",
        "youtube.video",
      );
    if (this.insertsToday >= this.insertQuota)
      return googleError(403, "quotaExceeded", QUOTA_MESSAGE, "youtube.quota", "PERMISSION_DENIED");
    if (channel.uploadsToday >= this.uploadLimit)
      return googleError(
        400,
        "uploadLimitExceeded",
        "The user has exceeded the number of videos they may upload.",
        "youtube.video",
      );
    this.insertsToday += 1;
    channel.uploadsToday += 1;
    this.server.count("youtube.inserts");
    const uploadId = `AUL${randomBytes(40).toString("base64url")}`;
    this.sessions.set(uploadId, {
      uploadId,
      userId: rec.userId,
      channelId: channel.id,
      metadata: {
        snippet: { title, description },
        status: { ...status, privacyStatus: privacy },
      },
      parts,
      total,
      contentType: type,
      chunks: [],
      received: 0,
      gone: false,
      chunkPuts: 0,
    });
    const location = `https://${GOOGLE_APIS_HOST}${YT_UPLOAD_PATH}?uploadType=resumable&part=${parts.join(",")}&upload_id=${uploadId}`;
    return { status: 200, headers: { location, "x-guploader-uploadid": uploadId } };
  }

  private putUpload(req: FakeRequest): FakeResponse {
    const session = this.sessions.get(req.query.get("upload_id") ?? "");
    if (!session || session.gone)
      return googleError(404, "notFound", "The upload session does not exist or has expired.");
    const rec = this.auth(req, UPLOAD_SCOPES);
    if (!("userId" in rec)) return rec;
    if (rec.userId !== session.userId) return googleError(403, "forbidden", "Forbidden");
    const range = String(req.headers["content-range"] ?? "");
    const incomplete = (): FakeResponse => ({
      status: 308,
      headers: session.received > 0 ? { range: `bytes=0-${session.received - 1}` } : {},
    });
    const query = /^bytes \*\/(\d+)$/.exec(range);
    if (query) {
      if (Number(query[1]) !== session.total || req.body.length > 0)
        return googleError(400, "badRequest", "Failed to parse Content-Range header.");
      if (session.videoId)
        return { status: 200, body: this.resource(this.videos.get(session.videoId)!, session.parts) };
      return incomplete();
    }
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
    if (!m) return googleError(400, "badRequest", "Failed to parse Content-Range header.");
    const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (session.videoId)
      return { status: 200, body: this.resource(this.videos.get(session.videoId)!, session.parts) };
    if (total !== session.total || last < first || last >= total || req.body.length !== last - first + 1)
      return googleError(
        400,
        "badRequest",
        "Content-Range does not match the request body or the upload size.",
      );
    if (first !== session.received)
      return googleError(
        400,
        "badRequest",
        `Invalid request. The upload must continue at byte ${session.received}, not ${first}.`,
      );
    if (last + 1 < total && req.body.length % UPLOAD_GRANULE !== 0)
      return googleError(
        400,
        "badRequest",
        `Invalid request. The number of bytes uploaded is required to be a multiple of 262144, except for the final request. The received request contained ${req.body.length} bytes.`,
      );
    let keep = req.body.length;
    if (this.persistNext !== undefined) {
      keep = Math.min(keep, this.persistNext);
      this.persistNext = undefined;
    }
    session.chunks.push(req.body.subarray(0, keep));
    session.received += keep;
    session.chunkPuts += 1;
    this.onChunk?.(session);
    if (session.received < session.total) return incomplete();
    const video = this.createVideo(session, Buffer.concat(session.chunks));
    session.chunks = [];
    return { status: 201, body: this.resource(video, session.parts) };
  }

  private createVideo(session: UploadSession, bytes: Buffer): FakeVideo {
    const channel = [...this.users.values()].find((u) => u.channel?.id === session.channelId)!.channel!;
    const outcome: FakeVideo["outcome"] =
      sniff(bytes) !== "mp4"
        ? { uploadStatus: "failed", reason: "invalidFile" }
        : (this.outcomeNext ?? { uploadStatus: "processed" });
    this.outcomeNext = undefined;
    const status = session.metadata.status;
    const video: FakeVideo = {
      id: youtubeId(11),
      channelId: channel.id,
      title: session.metadata.snippet.title,
      description: session.metadata.snippet.description,
      privacyStatus: String(status.privacyStatus),
      madeForKids: status.selfDeclaredMadeForKids === true,
      publishedAt: new Date().toISOString(),
      uploadStatus: "uploaded",
      outcome,
      pollsLeft: this.processingPolls,
      bytes: bytes.length,
      statistics: { viewCount: 0, likeCount: 0, commentCount: 0 },
    };
    this.videos.set(video.id, video);
    this.hashes.set(video.id, createHash("sha256").update(bytes).digest("hex"));
    channel.videos.unshift(video.id);
    session.videoId = video.id;
    this.server.count("youtube.videos");
    return video;
  }
}

/** Mounts a YouTube (Google) fake on `server`. */
export function youtubeFake(server: FakeNetworkServer, options: YouTubeFakeOptions): YouTubeFake {
  return new YouTubeFake(server, options);
}
