/**
 * A provider-shaped fake of the Pinterest API v5 (test only), mounted on the shared router (./server.ts) for
 * www.pinterest.com (the consent page), api.pinterest.com (OAuth token, user account, boards, Pins, media,
 * Pin analytics) and the S3 upload host pinterest-media-upload.s3-accelerate.amazonaws.com. It does the work
 * the real API does:
 * - OAuth: the app's credentials by HTTP Basic at the token endpoint, 30-day access tokens, continuous
 *   (rotating) 60-day refresh tokens, scopes comma-separated;
 * - boards listed in pages (`page_size` up to 250, `bookmark`), Pins listed per board newest first;
 * - `POST /v5/pins`: the board must be the user's (404 code 40), title ≤ 100, description ≤ 800, link ≤ 2048;
 *   `image_url` and `multiple_image_urls` are pulled over HTTP and must be JPEG or PNG, a carousel 2 to 5
 *   images of the same dimensions; `video_id` needs a `succeeded` media of the user and a cover
 *   (`cover_image_url`, pulled, or `cover_image_key_frame_time`). Pins are counted (`pinterest.pins`);
 * - video: `POST /v5/media` registers an upload with a one-time S3 POST policy; the upload host parses the
 *   real `multipart/form-data` POST (busboy), requires every policy field before the file and a
 *   Content-Length (411 for a chunked body), stores the file (counted, `pinterest.uploads`) and answers 204;
 *   `GET /v5/media/{id}` says registered -> processing (`processingPolls`) -> succeeded, or failed when the
 *   file is not an MP4;
 * - `DELETE /v5/pins/{id}` (pins/delete): the user's own Pin is deleted (204, counted `pinterest.deletes`);
 *   another user's Pin is refused with 403 code 7 "Not authorized to access board or Pin.", a Pin Pinterest
 *   does not have (never made, or deleted) with 404 code 50 "Pin not found." (the error examples the
 *   description gives for Pins);
 * - `GET /v5/pins/{id}/analytics`: the dates must be within 90 days, VIDEO_* metrics only for video Pins;
 *   answers `{all: {daily_metrics, summary_metrics, lifetime_metrics}}` from the numbers a test set
 *   (`setAnalytics`), summed over the requested days.
 * Errors use Pinterest's body `{code, message}`: 401 code 2 for an unknown or revoked token, 403 code 3 for a
 * missing scope. A user can be revoked (`revokeUser`); consent can be denied (`denyNext`).
 *
 * Sources (2026): https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/,
 * https://developers.pinterest.com/docs/api/v5/ (oauth-token, user_account-get, boards-list, boards-list_pins,
 * pins-create, pins-delete, pins-analytics, media-create, media-get), https://github.com/pinterest/api-description,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html.
 */
import { Contract } from "./contract.ts";
import { randomBytes } from "node:crypto";
import busboy from "busboy";
import { imageSize } from "image-size";
import {
  decimalId,
  type FakeNetworkServer,
  type FakeRequest,
  type FakeResponse,
  pullMedia,
  sniff,
} from "./server.ts";

export const PIN_AUTHORIZE_HOST = "www.pinterest.com";
export const PIN_API_HOST = "api.pinterest.com";
export const PIN_UPLOAD_HOST = "pinterest-media-upload.s3-accelerate.amazonaws.com";

const SCOPES = ["boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read"];
const ACCESS_SECONDS = 30 * 86_400;
const REFRESH_SECONDS = 60 * 86_400;
const STANDARD_METRICS = new Set([
  "IMPRESSION",
  "OUTBOUND_CLICK",
  "PIN_CLICK",
  "SAVE",
  "SAVE_RATE",
  "TOTAL_COMMENTS",
  "TOTAL_REACTIONS",
  "USER_FOLLOW",
  "PROFILE_VISIT",
]);
const VIDEO_METRICS = new Set([
  "VIDEO_MRC_VIEW",
  "VIDEO_10S_VIEW",
  "QUARTILE_95_PERCENT_VIEW",
  "VIDEO_V50_WATCH_TIME",
  "VIDEO_START",
  "VIDEO_AVG_WATCH_TIME",
]);
const LIFETIME_METRICS = new Set(["TOTAL_COMMENTS", "TOTAL_REACTIONS"]);

export interface PinterestBoardRecord {
  id: string;
  name: string;
  privacy: "PUBLIC" | "PROTECTED" | "SECRET";
  ownerId: string;
}

export interface PinterestUser {
  id: string;
  username: string;
  accountType: "PINNER" | "BUSINESS";
  businessName: string | null;
  followerCount: number;
  monthlyViews: number;
  accessToken: string;
  refreshToken: string;
  boards: PinterestBoardRecord[];
}

export interface PinterestPin {
  id: string;
  ownerId: string;
  boardId: string;
  title: string | null;
  description: string | null;
  link: string | null;
  /** `alt_text` (at most 500 characters: the contract refuses a longer one). */
  altText?: string | null;
  mediaType: "image" | "multiple_images" | "video";
  imageUrls: string[];
  mediaId?: string;
  cover?: { url?: string; keyFrameTime?: number };
  createdAt: Date;
}

interface MediaRecord {
  id: string;
  ownerId: string;
  status: "registered" | "processing" | "succeeded" | "failed";
  parameters: Record<string, string>;
  pollsLeft: number;
  bytes?: Buffer;
}

interface TokenRecord {
  userId: string;
  scopes: string[];
  kind: "access" | "refresh";
  revoked: boolean;
}

/** Fixed analytics of one Pin: daily values by `YYYY-MM-DD` and lifetime totals. */
export interface PinAnalyticsData {
  daily: Record<string, Record<string, number>>;
  lifetime?: Record<string, number>;
}

export interface PinterestFakeOptions {
  clientId: string;
  clientSecret: string;
  /** Status reads a media answers `processing` after its upload arrived (default 1). */
  processingPolls?: number;
}

const pinError = (status: number, code: number, message: string): FakeResponse => ({
  status,
  body: { code, message },
});
const s3Error = (status: number, code: string, message: string): FakeResponse => ({
  status,
  headers: { "content-type": "application/xml" },
  raw: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomBytes(8).toString("hex").toUpperCase()}</RequestId></Error>`,
});

export class PinterestFake {
  readonly users = new Map<string, PinterestUser>();
  readonly pins = new Map<string, PinterestPin>();
  readonly media = new Map<string, MediaRecord>();
  readonly analytics = new Map<string, PinAnalyticsData>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, { userId: string; redirectUri: string; scopes: string[] }>();
  private loggedIn: string | undefined;
  denyNext = false;
  processingPolls: number;
  /** Most items one page holds whatever `page_size` asks (Pinterest may answer shorter pages). */
  pageLimit = 250;
  readonly server: FakeNetworkServer;
  readonly options: PinterestFakeOptions;

  constructor(server: FakeNetworkServer, options: PinterestFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 1;
    this.mount();
  }

  /** Pins created. */
  get created(): number {
    return this.server.counter("pinterest.pins");
  }

  /** Video files received by the upload host. */
  get uploads(): number {
    return this.server.counter("pinterest.uploads");
  }

  /** Adds a user (logged in at the consent page) with `boards` and tokens issued directly. */
  addUser(
    input: {
      username?: string;
      boards?: string[];
      accountType?: "PINNER" | "BUSINESS";
      followerCount?: number;
      monthlyViews?: number;
    } = {},
  ): PinterestUser {
    const id = decimalId(18);
    const u: PinterestUser = {
      id,
      username: input.username ?? `pinner${id.slice(-5)}`,
      accountType: input.accountType ?? "BUSINESS",
      businessName: input.accountType === "PINNER" ? null : `${input.username ?? "Shop"} Co`,
      followerCount: input.followerCount ?? 0,
      monthlyViews: input.monthlyViews ?? 0,
      accessToken: `pina_${randomBytes(30).toString("base64url")}`,
      refreshToken: `pinr_${randomBytes(30).toString("base64url")}`,
      boards: [],
    };
    for (const name of input.boards ?? ["Ideas"]) this.addBoard(u, name);
    this.users.set(id, u);
    this.tokens.set(u.accessToken, { userId: id, scopes: SCOPES, kind: "access", revoked: false });
    this.tokens.set(u.refreshToken, { userId: id, scopes: SCOPES, kind: "refresh", revoked: false });
    this.loggedIn = id;
    return u;
  }

  /** Adds a board to `user`. */
  addBoard(user: PinterestUser, name: string, privacy: PinterestBoardRecord["privacy"] = "PUBLIC") {
    const b: PinterestBoardRecord = { id: decimalId(18), name, privacy, ownerId: user.id };
    user.boards.push(b);
    return b;
  }

  /** The user deauthorizes the app: every token of theirs answers 401 code 2. */
  revokeUser(userId: string): void {
    for (const t of this.tokens.values()) if (t.userId === userId) t.revoked = true;
  }

  /** Sets the analytics the Pin's analytics endpoint answers from. */
  setAnalytics(pinId: string, data: PinAnalyticsData): void {
    this.analytics.set(pinId, data);
  }

  /** The user's Pins, newest first. */
  pinsOf(userId: string): PinterestPin[] {
    return [...this.pins.values()]
      .filter((p) => p.ownerId === userId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  private auth(req: FakeRequest, ...scopes: string[]): TokenRecord | FakeResponse {
    const token = req.token();
    const rec = token ? this.tokens.get(token) : undefined;
    if (!rec || rec.revoked || rec.kind !== "access") return pinError(401, 2, "Authentication failed.");
    if (scopes.some((s) => !rec.scopes.includes(s)))
      return pinError(
        403,
        3,
        "Your token does not have sufficient permissions to perform this operation. Please ensure your token is authorized with the correct set of scopes.",
      );
    return rec;
  }

  private mount(): void {
    const s = this.server;
    // Pinterest API v5's OpenAPI description (test/contracts/pinterest.json); the S3 upload host is not in it.
    // The description leaves `media_source` optional; the reference page of pins/create requires it.
    s.useContract(
      PIN_API_HOST,
      new Contract("pinterest", ["pinterest"], [], {
        required: {
          "pins/create": {
            fields: ["board_id", "media_source"],
            source: "https://developers.pinterest.com/docs/api/v5/pins-create",
          },
        },
      }),
    );
    s.route("GET", PIN_AUTHORIZE_HOST, "/oauth", (req) => this.authorize(req));
    s.route("POST", PIN_API_HOST, "/v5/oauth/token", (req) => this.token(req));
    s.route("GET", PIN_API_HOST, "/v5/user_account", (req) => this.userAccount(req));
    s.route("GET", PIN_API_HOST, "/v5/boards", (req) => this.boards(req));
    s.route("GET", PIN_API_HOST, "/v5/boards/:board/pins", (req) => this.boardPins(req));
    s.route("POST", PIN_API_HOST, "/v5/pins", (req) => this.createPin(req));
    s.route("GET", PIN_API_HOST, "/v5/pins/:pin/analytics", (req) => this.pinAnalytics(req));
    s.route("DELETE", PIN_API_HOST, "/v5/pins/:pin", (req) => this.deletePin(req));
    s.route("POST", PIN_API_HOST, "/v5/media", (req) => this.registerMedia(req));
    s.route("GET", PIN_API_HOST, "/v5/media/:media", (req) => this.mediaStatus(req));
    s.route("POST", PIN_UPLOAD_HOST, "/", (req) => this.upload(req));
  }

  private authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.options.clientId || !redirectUri || q.get("response_type") !== "code")
      return { status: 400, raw: "client_id, redirect_uri or response_type is invalid" };
    const target = new URL(redirectUri);
    if (this.denyNext || !this.loggedIn) {
      this.denyNext = false;
      target.searchParams.set("error", "access_denied");
    } else {
      const code = randomBytes(20).toString("hex");
      const scopes = (q.get("scope") ?? "").split(",").filter((x) => SCOPES.includes(x));
      this.codes.set(code, { userId: this.loggedIn, redirectUri, scopes });
      target.searchParams.set("code", code);
    }
    const state = q.get("state");
    if (state) target.searchParams.set("state", state);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeResponse {
    const basic = /^Basic (.+)$/i.exec(String(req.headers.authorization ?? ""))?.[1];
    const [id, secret] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":") : [];
    if (id !== this.options.clientId || secret !== this.options.clientSecret)
      return pinError(401, 2, "Authentication failed.");
    const f = req.form();
    let userId: string;
    let scopes: string[];
    let responseType: string;
    if (f.get("grant_type") === "authorization_code") {
      const code = this.codes.get(f.get("code") ?? "");
      if (!code) return pinError(400, 1, "Invalid authorization code.");
      if (code.redirectUri !== f.get("redirect_uri")) return pinError(400, 1, "redirect_uri does not match.");
      this.codes.delete(f.get("code")!);
      userId = code.userId;
      scopes = code.scopes;
      responseType = "authorization_code";
    } else if (f.get("grant_type") === "refresh_token") {
      const rec = this.tokens.get(f.get("refresh_token") ?? "");
      if (rec?.kind !== "refresh" || rec.revoked) return pinError(400, 1, "Invalid refresh token.");
      rec.revoked = true; // continuous refresh: each refresh token is used once
      userId = rec.userId;
      scopes = rec.scopes;
      responseType = "refresh_token";
    } else {
      return pinError(400, 1, "Invalid grant_type.");
    }
    const access = `pina_${randomBytes(30).toString("base64url")}`;
    const refresh = `pinr_${randomBytes(30).toString("base64url")}`;
    this.tokens.set(access, { userId, scopes, kind: "access", revoked: false });
    this.tokens.set(refresh, { userId, scopes, kind: "refresh", revoked: false });
    return {
      body: {
        access_token: access,
        refresh_token: refresh,
        response_type: responseType,
        token_type: "bearer",
        expires_in: ACCESS_SECONDS,
        refresh_token_expires_in: REFRESH_SECONDS,
        refresh_token_expires_at: Math.floor(Date.now() / 1000) + REFRESH_SECONDS,
        scope: scopes.join(","),
      },
    };
  }

  private userAccount(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "user_accounts:read");
    if (!("userId" in rec)) return rec;
    const u = this.users.get(rec.userId)!;
    return {
      body: {
        account_type: u.accountType,
        id: u.id,
        profile_image: `https://i.pinimg.com/600x600_R/${u.id}.jpg`,
        website_url: "",
        username: u.username,
        about: "",
        business_name: u.businessName,
        board_count: u.boards.length,
        pin_count: this.pinsOf(u.id).length,
        follower_count: u.followerCount,
        following_count: 3,
        monthly_views: u.monthlyViews,
      },
    };
  }

  /** `page_size` and `bookmark` paging of `items`. */
  private page<T>(req: FakeRequest, items: T[]): FakeResponse {
    const size = Number(req.query.get("page_size") ?? 25);
    if (!Number.isInteger(size) || size < 1 || size > 250)
      return pinError(400, 1, "Parameter 'page_size' must be between 1 and 250.");
    const start = Number(Buffer.from(req.query.get("bookmark") ?? "", "base64url").toString() || 0);
    const end = start + Math.min(size, this.pageLimit);
    const next = end < items.length ? Buffer.from(String(end)).toString("base64url") : null;
    return { body: { items: items.slice(start, end), bookmark: next } };
  }

  private boards(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "boards:read");
    if (!("userId" in rec)) return rec;
    const u = this.users.get(rec.userId)!;
    return this.page(
      req,
      u.boards.map((b) => ({
        id: b.id,
        name: b.name,
        privacy: b.privacy,
        description: "",
        owner: { username: u.username },
        pin_count: [...this.pins.values()].filter((p) => p.boardId === b.id).length,
      })),
    );
  }

  private pinJson(p: PinterestPin) {
    const owner = this.users.get(p.ownerId)!;
    return {
      id: p.id,
      created_at: p.createdAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
      link: p.link,
      title: p.title,
      description: p.description,
      alt_text: null,
      board_id: p.boardId,
      board_section_id: null,
      board_owner: { username: owner.username },
      is_owner: true,
      media: { media_type: p.mediaType },
      creative_type: p.mediaType === "video" ? "VIDEO" : p.mediaType === "image" ? "REGULAR" : "CAROUSEL",
    };
  }

  private boardPins(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "boards:read", "pins:read");
    if (!("userId" in rec)) return rec;
    const board = this.users.get(rec.userId)!.boards.find((b) => b.id === req.params.board);
    if (!board) return pinError(404, 40, "Board not found.");
    return this.page(
      req,
      this.pinsOf(rec.userId)
        .filter((p) => p.boardId === board.id)
        .map((p) => this.pinJson(p)),
    );
  }

  /** Pulls an image URL and returns its dimensions, or a refusal. */
  private async image(url: unknown): Promise<{ size: { width: number; height: number } } | FakeResponse> {
    if (typeof url !== "string" || !url)
      return pinError(400, 1, "Invalid request: an image url is required.");
    try {
      const { bytes } = await pullMedia(url);
      const kind = sniff(bytes);
      if (kind !== "jpeg" && kind !== "png")
        return pinError(400, 1, "Sorry! We couldn't use this image: it is not a JPEG or PNG.");
      const { width, height } = imageSize(bytes);
      return { size: { width, height } };
    } catch {
      return pinError(
        400,
        1,
        "Whoops! It looks like you entered an invalid URL. Try creating a Pin again with a valid URL.",
      );
    }
  }

  private async createPin(req: FakeRequest): Promise<FakeResponse> {
    const rec = this.auth(req, "pins:write", "boards:read");
    if (!("userId" in rec)) return rec;
    const body = req.json() as Record<string, any> | undefined;
    if (!body) return pinError(400, 1, "Invalid request: the body must be JSON.");
    const board = this.users.get(rec.userId)!.boards.find((b) => b.id === body.board_id);
    if (!board) return pinError(404, 40, "Board not found.");
    const text = (v: unknown, max: number, name: string) =>
      v !== undefined && v !== null && (typeof v !== "string" || [...v].length > max)
        ? pinError(400, 1, `Invalid request: '${name}' must be a string of at most ${max} characters.`)
        : undefined;
    const bad =
      text(body.title, 100, "title") ??
      text(body.description, 800, "description") ??
      text(body.link, 2048, "link") ??
      text(body.alt_text, 500, "alt_text");
    if (bad) return bad;
    if (typeof body.link === "string" && !/^https?:\/\//.test(body.link))
      return pinError(
        400,
        1,
        "Whoops! It looks like you entered an invalid URL. Try creating a Pin again with a valid URL.",
      );
    const src = (body.media_source ?? {}) as Record<string, any>;
    const pin: PinterestPin = {
      id: decimalId(18),
      ownerId: rec.userId,
      boardId: board.id,
      title: body.title ?? null,
      description: body.description ?? null,
      link: body.link ?? null,
      altText: body.alt_text ?? null,
      mediaType: "image",
      imageUrls: [],
      createdAt: new Date(),
    };
    if (src.source_type === "image_url") {
      const img = await this.image(src.url);
      if (!("size" in img)) return img;
      pin.imageUrls = [src.url];
    } else if (src.source_type === "multiple_image_urls") {
      const items = Array.isArray(src.items) ? (src.items as Array<{ url?: unknown }>) : [];
      if (items.length < 2 || items.length > 5)
        return pinError(400, 1, "Invalid request: a carousel needs 2 to 5 images.");
      const sizes: Array<{ width: number; height: number }> = [];
      for (const item of items) {
        const img = await this.image(item.url);
        if (!("size" in img)) return img;
        sizes.push(img.size);
      }
      if (sizes.some((d) => d.width !== sizes[0]!.width || d.height !== sizes[0]!.height))
        return pinError(400, 1, "Invalid request: all images of a carousel must have the same dimensions.");
      pin.mediaType = "multiple_images";
      pin.imageUrls = items.map((i) => String(i.url));
    } else if (src.source_type === "video_id") {
      const media = this.media.get(String(src.media_id));
      if (media?.ownerId !== rec.userId) return pinError(404, 1, "Media not found.");
      if (media.status !== "succeeded")
        return pinError(400, 1, `Invalid request: the media is ${media.status}, not succeeded.`);
      if (typeof src.cover_image_url === "string") {
        const img = await this.image(src.cover_image_url);
        if (!("size" in img)) return img;
        pin.cover = { url: src.cover_image_url };
      } else if (Number.isInteger(src.cover_image_key_frame_time) && src.cover_image_key_frame_time >= 0) {
        pin.cover = { keyFrameTime: src.cover_image_key_frame_time };
      } else if (typeof src.cover_image_data !== "string") {
        return pinError(400, 1, "Invalid request: a video Pin needs a cover image.");
      }
      pin.mediaType = "video";
      pin.mediaId = media.id;
    } else {
      return pinError(400, 1, "Invalid request: media_source.source_type is not supported.");
    }
    this.pins.set(pin.id, pin);
    this.server.count("pinterest.pins");
    return { status: 201, body: this.pinJson(pin) };
  }

  private registerMedia(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "pins:write");
    if (!("userId" in rec)) return rec;
    if ((req.json() as { media_type?: string } | undefined)?.media_type !== "video")
      return pinError(400, 1, "Invalid request: media_type must be video.");
    const id = decimalId(19);
    const now = new Date();
    const parameters: Record<string, string> = {
      "x-amz-date": now.toISOString().replace(/[-:]|\.\d{3}/g, ""),
      "x-amz-signature": randomBytes(32).toString("hex"),
      "x-amz-security-token": randomBytes(48).toString("base64"),
      "x-amz-algorithm": "AWS4-HMAC-SHA256",
      key: `uploads/${randomBytes(2).toString("hex")}/${randomBytes(2).toString("hex")}/${id}:video:${decimalId(18)}`,
      policy: Buffer.from(JSON.stringify({ expiration: new Date(now.getTime() + 3_600_000) })).toString(
        "base64",
      ),
      "x-amz-credential": `ASIA${randomBytes(8).toString("hex").toUpperCase()}/${now.toISOString().slice(0, 10).replace(/-/g, "")}/us-east-1/s3/aws4_request`,
      "Content-Type": "multipart/form-data",
    };
    this.media.set(id, { id, ownerId: rec.userId, status: "registered", parameters, pollsLeft: 0 });
    return {
      status: 201,
      body: {
        media_id: id,
        media_type: "video",
        upload_url: `https://${PIN_UPLOAD_HOST}/`,
        upload_parameters: parameters,
      },
    };
  }

  private mediaStatus(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "pins:read");
    if (!("userId" in rec)) return rec;
    const m = this.media.get(req.params.media!);
    if (m?.ownerId !== rec.userId) return pinError(404, 1, "Media not found.");
    if (m.status === "processing") {
      if (m.pollsLeft > 0) m.pollsLeft -= 1;
      else m.status = sniff(m.bytes!) === "mp4" ? "succeeded" : "failed";
    }
    return { body: { media_id: m.id, media_type: "video", status: m.status } };
  }

  /** The S3 POST: policy fields first, then `file`, with a Content-Length. */
  private async upload(req: FakeRequest): Promise<FakeResponse> {
    if (String(req.headers["transfer-encoding"] ?? "").includes("chunked") || !req.headers["content-length"])
      return s3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
    if (!String(req.headers["content-type"] ?? "").startsWith("multipart/form-data"))
      return s3Error(
        412,
        "PreconditionFailed",
        "Bucket POST must be of the enclosure-type multipart/form-data",
      );
    const fields = new Map<string, string>();
    let file: Buffer | undefined;
    let fieldAfterFile = false;
    try {
      await new Promise<void>((resolve, reject) => {
        const bb = busboy({ headers: req.headers, limits: { fileSize: 3 * 1024 ** 3 } });
        bb.on("field", (name, value) => {
          if (file !== undefined) fieldAfterFile = true;
          fields.set(name, value);
        });
        bb.on("file", (name, stream) => {
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            if (name === "file") file = Buffer.concat(chunks);
          });
        });
        bb.on("close", resolve);
        bb.on("error", reject);
        bb.end(req.body);
      });
    } catch {
      return s3Error(
        400,
        "MalformedPOSTRequest",
        "The body of your POST request is not well-formed multipart/form-data.",
      );
    }
    const media = [...this.media.values()].find((m) => m.parameters.key === fields.get("key"));
    if (media?.status !== "registered")
      return s3Error(403, "AccessDenied", "Invalid according to Policy: Policy Condition failed");
    for (const [k, v] of Object.entries(media.parameters))
      if (fields.get(k) !== v)
        return s3Error(403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ${k}`);
    if (!file || fieldAfterFile)
      return s3Error(
        400,
        "InvalidArgument",
        "POST requires exactly one file upload per request, after the fields.",
      );
    media.bytes = file;
    media.status = "processing";
    media.pollsLeft = this.processingPolls;
    this.server.count("pinterest.uploads");
    return { status: 204 };
  }

  private deletePin(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "boards:read", "pins:read", "pins:write");
    if (!("userId" in rec)) return rec;
    const pin = this.pins.get(req.params.pin!);
    if (!pin) return pinError(404, 50, "Pin not found.");
    if (pin.ownerId !== rec.userId) return pinError(403, 7, "Not authorized to access board or Pin.");
    this.pins.delete(pin.id);
    this.server.count("pinterest.deletes");
    return { status: 204 };
  }

  private pinAnalytics(req: FakeRequest): FakeResponse {
    const rec = this.auth(req, "pins:read");
    if (!("userId" in rec)) return rec;
    const pin = this.pins.get(req.params.pin!);
    if (!pin) return pinError(404, 50, "Pin not found.");
    if (pin.ownerId !== rec.userId) return pinError(403, 7, "Not authorized to access board or Pin.");
    const q = req.query;
    const start = q.get("start_date") ?? "";
    const end = q.get("end_date") ?? "";
    const today = new Date().toISOString().slice(0, 10);
    const earliest = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10);
    const dateOk = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d);
    if (!dateOk(start) || !dateOk(end) || start < earliest || end < start || end > today)
      return pinError(400, 1, "Invalid pins analytics parameters.");
    const metrics = (q.get("metric_types") ?? "").split(",").filter(Boolean);
    const allowed = (m: string) =>
      STANDARD_METRICS.has(m) || (pin.mediaType === "video" && VIDEO_METRICS.has(m));
    if (metrics.length === 0 || !metrics.every(allowed))
      return pinError(400, 1, "Invalid pins analytics parameters.");
    const data = this.analytics.get(pin.id) ?? { daily: {} };
    const periodic = metrics.filter((m) => !LIFETIME_METRICS.has(m));
    const daily_metrics = [];
    const summary_metrics: Record<string, number> = Object.fromEntries(periodic.map((m) => [m, 0]));
    for (
      let d = new Date(`${start}T00:00:00Z`);
      d.toISOString().slice(0, 10) <= end;
      d = new Date(d.getTime() + 86_400_000)
    ) {
      const date = d.toISOString().slice(0, 10);
      const values = Object.fromEntries(periodic.map((m) => [m, data.daily[date]?.[m] ?? 0]));
      for (const m of periodic) summary_metrics[m]! += values[m]!;
      daily_metrics.push({ date, data_status: "READY", metrics: values });
    }
    const lifetime_metrics = Object.fromEntries(
      metrics
        .filter((m) => LIFETIME_METRICS.has(m) && data.lifetime?.[m] !== undefined)
        .map((m) => [m, data.lifetime![m]]),
    );
    return { body: { all: { daily_metrics, summary_metrics, lifetime_metrics } } };
  }
}

/** Mounts a Pinterest fake on `server`. */
export function pinterestFake(server: FakeNetworkServer, options: PinterestFakeOptions): PinterestFake {
  return new PinterestFake(server, options);
}
