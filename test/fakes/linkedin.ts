/**
 * A provider-shaped fake of LinkedIn OAuth 2.0 and the versioned REST API (Community Management / Posts API)
 * (test only), mounted on the shared router (./server.ts) for www.linkedin.com (consent page, token endpoint,
 * `/dms-uploads/...` upload URLs) and api.linkedin.com. Like LinkedIn, every `/rest/` call must carry
 * `LinkedIn-Version: YYYYMM` (an active one: `sunsetVersions` answer 426) and `X-Restli-Protocol-Version:
 * 2.0.0` (400 without them), a bearer token (401 INVALID_ACCESS_TOKEN / REVOKED_ACCESS_TOKEN) and the scope
 * and role the call needs (403 ACCESS_DENIED): posting as a member needs `w_member_social`, as a page
 * `w_organization_social` plus an approved ADMINISTRATOR role; listing a member's posts needs the restricted
 * `r_member_social`, a page's `r_organization_social`; page lists, follower counts and statistics need
 * `rw_organization_admin`. The app is one without the Community Management API by default (`LI_APP_SCOPES`):
 * a consent asking for a page scope is refused whole (`unauthorized_scope_error` back to the redirect URI),
 * as LinkedIn does; `LI_ORGANIZATION_APP_SCOPES` (or `grantedScopes`) grants the product.
 *
 * It does the work: images (initializeUpload, bytes PUT with the bearer token, JPEG/PNG/GIF available),
 * videos (initializeUpload in parts of `partBytes`, each part PUT answering an `ETag`, finalizeUpload checking
 * the upload token and the ETags in part order, MP4 -> PROCESSING for `processingPolls` reads -> AVAILABLE,
 * anything else PROCESSING_FAILED), documents (./linkedin-documents.ts: initializeUpload, the PDF PUT, PROCESSING
 * -> AVAILABLE), posts (201 with `x-restli-id`; `urn:li:ugcPost:` for video posts,
 * `urn:li:share:` otherwise; media (an image, a video or a document) must be AVAILABLE and owned by the author; multiImage 2 to 20; commentary
 * at most 3000 characters with every reserved "little text" character escaped: stricter than LinkedIn, which
 * may cut such text short, and no mention/hashtag templates), the author's post list (newest first), the
 * organization ACLs, organization lookups, follower counts and share statistics with numbers the test sets.
 * Created posts are counted (`linkedin.posts`). Comments on a post and its deletion are in
 * ./linkedin-published.ts. Error bodies: `{status, serviceErrorCode, code, message}`;
 * the token endpoint answers `{error, error_description}`.
 *
 * Sources (2026, under https://learn.microsoft.com/en-us/linkedin/): shared/authentication/
 * authorization-code-flow, shared/authentication/programmatic-refresh-tokens, consumer/integrations/self-serve/
 * sign-in-with-linkedin-v2, marketing/versioning, shared/api-guide/concepts/error-handling,
 * marketing/community-management/shares/posts-api, .../shares/images-api, .../shares/videos-api,
 * .../shares/multiimage-post-api, .../shares/little-text-format, .../organizations/organization-access-control-
 * by-role, .../organizations/organization-lookup-api, .../organizations/follower-statistics,
 * .../organizations/share-statistics.
 */
import { createHash, randomBytes } from "node:crypto";
import { type LinkedInDocument, mountDocuments } from "./linkedin-documents.ts";
import { type LinkedInCommentRecord, mountPublished } from "./linkedin-published.ts";
import { type FakeNetworkServer, type FakeRequest, type FakeResponse, sniff } from "./server.ts";

export const LI_WWW_HOST = "www.linkedin.com";
export const LI_API_HOST = "api.linkedin.com";

/**
 * The scopes a new app has: the products "Sign In with LinkedIn using OpenID Connect" and "Share on LinkedIn",
 * without the Community Management API (which LinkedIn grants separately and wants as the app's only product).
 */
export const LI_APP_SCOPES = ["openid", "profile", "w_member_social"];

/** The scopes of an app that was also granted the Community Management API: the organization page scopes. */
export const LI_ORGANIZATION_APP_SCOPES = [
  ...LI_APP_SCOPES,
  "w_organization_social",
  "r_organization_social",
  "rw_organization_admin",
];

/** LinkedIn's video part size: 4 MB. */
export const LI_PART_BYTES = 4 * 1024 * 1024;

export interface ShareStatistics {
  impressionCount: number;
  uniqueImpressionsCount: number;
  likeCount: number;
  commentCount: number;
  shareCount: number;
  clickCount: number;
  engagement: number;
}

export interface LinkedInOrganization {
  id: number;
  urn: string;
  localizedName: string;
  vanityName: string;
  /** `firstDegreeSize` of networkSizes. */
  followers: number;
  /** Lifetime totals of the page (share statistics without a post filter). */
  totals: ShareStatistics;
}

export interface LinkedInMember {
  sub: string;
  urn: string;
  name: string;
  picture: string;
  /** Tokens issued directly (tests that skip the consent page), with `scopes`. */
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  /** Pages the member administers (approved ADMINISTRATOR). */
  organizations: LinkedInOrganization[];
}

export interface LinkedInPost {
  urn: string;
  author: string;
  /** As sent (little text). */
  commentary: string;
  /** What the post shows: the commentary with its escapes removed. */
  text: string;
  visibility: string;
  lifecycleState: string;
  distribution: unknown;
  content?: { media?: { id: string; title?: string }; multiImage?: { images: Array<{ id: string }> } };
  createdAt: number;
  lastModifiedAt: number;
}

interface Image {
  urn: string;
  owner: string;
  key: string;
  status: "WAITING_UPLOAD" | "AVAILABLE" | "PROCESSING_FAILED";
}

interface Video {
  urn: string;
  owner: string;
  key: string;
  size: number;
  uploadToken: string;
  parts: Array<{ first: number; last: number; bytes?: Buffer; etag?: string }>;
  status: "WAITING_UPLOAD" | "PROCESSING" | "AVAILABLE" | "PROCESSING_FAILED";
  pollsLeft: number;
}

interface TokenRecord {
  sub: string;
  scopes: string[];
  revoked: boolean;
  kind: "access" | "refresh";
}

export interface LinkedInFakeOptions {
  clientId: string;
  clientSecret: string;
  /**
   * Scopes granted to the app (default `LI_APP_SCOPES`, an app without the Community Management API): a
   * consent asking for any other is refused whole with `unauthorized_scope_error`, as LinkedIn does.
   */
  appScopes?: string[];
  /** Whether token answers carry a refresh token (LinkedIn enables it per app; default true). */
  refreshTokens?: boolean;
  /** Video part size, bytes (default `LI_PART_BYTES`). */
  partBytes?: number;
  /** Status reads a finalized video answers PROCESSING before AVAILABLE (default 1). */
  processingPolls?: number;
}

const RESERVED = "|{}@[]()<>#\\*_~";
const RESTLI = "2.0.0";

const zeroStats = (): ShareStatistics => ({
  impressionCount: 0,
  uniqueImpressionsCount: 0,
  likeCount: 0,
  commentCount: 0,
  shareCount: 0,
  clickCount: 0,
  engagement: 0,
});

/** A LinkedIn REST error answer. */
export function liError(
  status: number,
  message: string,
  code?: string,
  serviceErrorCode?: number,
): FakeResponse {
  return {
    status,
    body: { status, message, ...(code ? { code } : {}), ...(serviceErrorCode ? { serviceErrorCode } : {}) },
  };
}

const denied = (what: string) =>
  liError(403, `Not enough permissions to access: ${what}`, "ACCESS_DENIED", 100);

function numericId(digits: number): string {
  let s = String(1 + Math.floor(Math.random() * 9));
  while (s.length < digits) s += String(Math.floor(Math.random() * 10));
  return s;
}

/** The first reserved character not escaped with a backslash, or undefined. */
function unescapedReserved(commentary: string): string | undefined {
  for (let i = 0; i < commentary.length; i++) {
    const c = commentary[i]!;
    if (c === "\\") {
      const next = commentary[i + 1];
      if (next === undefined || !RESERVED.includes(next)) return "\\";
      i += 1;
    } else if (RESERVED.includes(c)) return c;
  }
  return undefined;
}

export class LinkedInFake {
  readonly members = new Map<string, LinkedInMember>();
  readonly organizations = new Map<number, LinkedInOrganization>();
  readonly images = new Map<string, Image>();
  readonly videos = new Map<string, Video>();
  /** Documents of the Documents API (./linkedin-documents.ts). */
  readonly documents = new Map<string, LinkedInDocument>();
  readonly posts = new Map<string, LinkedInPost>();
  /** Post URNs deleted (./linkedin-published.ts: comments and deletes). */
  readonly deletedPosts = new Set<string>();
  /** Comments per post URN, oldest first (./linkedin-published.ts). */
  readonly comments = new Map<string, LinkedInCommentRecord[]>();
  /** Lifetime statistics per post URN (zeros until set). */
  readonly postStatistics = new Map<string, ShareStatistics>();
  /** `LinkedIn-Version` values LinkedIn no longer serves (answered 426 NONEXISTENT_VERSION). */
  readonly sunsetVersions = new Set<string>(["202301"]);
  /** Every `LinkedIn-Version` the `/rest/` calls carried. */
  readonly versionsSeen = new Set<string>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, { sub: string; redirectUri: string; scopes: string[] }>();
  private loggedIn: string | undefined;
  denyNext = false;
  processingPolls: number;
  readonly server: FakeNetworkServer;
  readonly options: LinkedInFakeOptions;

  constructor(server: FakeNetworkServer, options: LinkedInFakeOptions) {
    this.server = server;
    this.options = options;
    this.processingPolls = options.processingPolls ?? 1;
    this.grantedScopes = options.appScopes ?? LI_APP_SCOPES;
    this.mount();
  }

  /** Scopes granted to the app now (see `LinkedInFakeOptions.appScopes`); a test may grant the product later. */
  grantedScopes: string[];

  /** Posts created so far. */
  get postsCreated(): number {
    return this.server.counter("linkedin.posts");
  }

  /**
   * Adds a member (logged in at the consent page) administering `pages`, with tokens issued directly for
   * `scopes` (default: every scope of the app).
   */
  addMember(
    input: { name: string; pages?: Array<{ name: string; vanityName?: string }>; scopes?: string[] } = {
      name: "Member",
    },
  ): LinkedInMember {
    const sub = randomBytes(6).toString("base64url");
    const organizations = (input.pages ?? []).map((p) => {
      const id = Number(numericId(8));
      const org: LinkedInOrganization = {
        id,
        urn: `urn:li:organization:${id}`,
        localizedName: p.name,
        vanityName: p.vanityName ?? p.name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
        followers: 0,
        totals: zeroStats(),
      };
      this.organizations.set(id, org);
      return org;
    });
    const scopes = input.scopes ?? this.appScopes();
    const m: LinkedInMember = {
      sub,
      urn: `urn:li:person:${sub}`,
      name: input.name,
      picture: `https://media.licdn.com/dms/image/${sub}/profile-displayphoto-shrink_100_100/0`,
      accessToken: this.issue(sub, scopes, "access"),
      refreshToken: this.issue(sub, scopes, "refresh"),
      scopes,
      organizations,
    };
    this.members.set(sub, m);
    this.loggedIn = sub;
    return m;
  }

  /** The member revokes the app: every token answers 401 REVOKED_ACCESS_TOKEN. */
  revokeMember(sub: string): void {
    for (const t of this.tokens.values()) if (t.sub === sub) t.revoked = true;
  }

  /** The author deletes `urn` on LinkedIn by hand: its comments and its deletes answer as for a deleted post. */
  deletePost(urn: string): void {
    this.posts.delete(urn);
    this.deletedPosts.add(urn);
  }

  /** The page text of a post as LinkedIn shows it. */
  postText(urn: string): string | undefined {
    return this.posts.get(urn)?.text;
  }

  private appScopes(): string[] {
    return this.grantedScopes;
  }

  private issue(sub: string, scopes: string[], kind: "access" | "refresh"): string {
    const token = `AQ${kind === "access" ? "V" : "X"}${randomBytes(30).toString("base64url")}`;
    this.tokens.set(token, { sub, scopes, revoked: false, kind });
    return token;
  }

  private mount(): void {
    const s = this.server;
    s.route("GET", LI_WWW_HOST, "/oauth/v2/authorization", (req) => this.authorize(req));
    s.route("POST", LI_WWW_HOST, "/oauth/v2/accessToken", (req) => this.accessToken(req));
    s.route("PUT", LI_WWW_HOST, "/dms-uploads/:key/feedshare-uploadedImage/0", (req) => this.putImage(req));
    s.route("PUT", LI_WWW_HOST, "/dms-uploads/sp/:key/uploadedVideo/:part", (req) => this.putPart(req));
    s.route("GET", LI_API_HOST, "/v2/userinfo", (req) => this.userInfo(req));
    s.route("GET", LI_API_HOST, "/rest/organizationAcls", (req) => this.rest(req, (m) => this.acls(req, m)));
    s.route("GET", LI_API_HOST, "/rest/organizations/:id", (req) =>
      this.rest(req, (m) => this.organization(req, m)),
    );
    s.route("POST", LI_API_HOST, "/rest/images", (req) => this.rest(req, (m) => this.initImage(req, m)));
    s.route("POST", LI_API_HOST, "/rest/videos", (req) => this.rest(req, (m) => this.videoAction(req, m)));
    s.route("GET", LI_API_HOST, "/rest/videos/:urn", (req) => this.rest(req, (m) => this.readVideo(req, m)));
    mountDocuments(this, LI_API_HOST, LI_WWW_HOST);
    s.route("POST", LI_API_HOST, "/rest/posts", (req) => this.rest(req, (m) => this.createPost(req, m)));
    s.route("GET", LI_API_HOST, "/rest/posts", (req) => this.rest(req, (m) => this.listPosts(req, m)));
    mountPublished(this, LI_API_HOST);
    s.route("GET", LI_API_HOST, "/rest/networkSizes/:urn", (req) =>
      this.rest(req, (m) => this.networkSize(req, m)),
    );
    s.route("GET", LI_API_HOST, "/rest/organizationalEntityShareStatistics", (req) =>
      this.rest(req, (m) => this.statistics(req, m)),
    );
  }

  // --- OAuth -------------------------------------------------------------------------------------------

  private authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== this.options.clientId || !redirectUri || q.get("response_type") !== "code") {
      return { status: 400, raw: "The passed in client_id is invalid" };
    }
    const target = new URL(redirectUri);
    const asked = (q.get("scope") ?? "").split(/[ ,]+/).filter(Boolean);
    const unknown = asked.find((x) => !this.appScopes().includes(x));
    if (unknown) {
      target.searchParams.set("error", "unauthorized_scope_error");
      target.searchParams.set(
        "error_description",
        `Scope "${unknown}" is not authorized for your application`,
      );
    } else if (this.denyNext || !this.loggedIn) {
      this.denyNext = false;
      target.searchParams.set("error", "user_cancelled_authorize");
      target.searchParams.set("error_description", "The user cancelled the authorization");
    } else {
      const code = randomBytes(30).toString("base64url");
      this.codes.set(code, { sub: this.loggedIn, redirectUri, scopes: asked });
      target.searchParams.set("code", code);
    }
    const state = q.get("state");
    if (state) target.searchParams.set("state", state);
    return { status: 302, headers: { location: target.toString() } };
  }

  private accessToken(req: FakeRequest): FakeResponse {
    if (!String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      return {
        status: 400,
        body: { error: "invalid_request", error_description: "Content-Type must be form" },
      };
    }
    const f = req.form();
    if (
      f.get("client_id") !== this.options.clientId ||
      f.get("client_secret") !== this.options.clientSecret
    ) {
      return {
        status: 401,
        body: { error: "invalid_client", error_description: "Client authentication failed" },
      };
    }
    let sub: string;
    let scopes: string[];
    let refresh: string | undefined;
    if (f.get("grant_type") === "authorization_code") {
      const code = this.codes.get(f.get("code") ?? "");
      if (!code || code.redirectUri !== f.get("redirect_uri")) {
        return {
          status: 400,
          body: {
            error: "invalid_request",
            error_description:
              "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.",
          },
        };
      }
      this.codes.delete(f.get("code")!);
      sub = code.sub;
      scopes = code.scopes;
    } else if (f.get("grant_type") === "refresh_token") {
      const rec = this.tokens.get(f.get("refresh_token") ?? "");
      if (rec?.kind !== "refresh" || rec.revoked) {
        return {
          status: 400,
          body: {
            error: "invalid_request",
            error_description:
              "The provided authorization grant or refresh token is invalid, expired or revoked.",
          },
        };
      }
      sub = rec.sub;
      scopes = rec.scopes;
      refresh = f.get("refresh_token")!;
    } else {
      return {
        status: 400,
        body: { error: "unsupported_grant_type", error_description: "grant_type is invalid" },
      };
    }
    const withRefresh = this.options.refreshTokens ?? true;
    return {
      body: {
        access_token: this.issue(sub, scopes, "access"),
        expires_in: 5_183_999,
        ...(withRefresh
          ? {
              refresh_token: refresh ?? this.issue(sub, scopes, "refresh"),
              refresh_token_expires_in: 31_535_999,
            }
          : {}),
        scope: scopes.join(","),
      },
    };
  }

  private userInfo(req: FakeRequest): FakeResponse {
    const rec = this.token(req);
    if (!("sub" in rec)) return rec;
    if (!rec.scopes.includes("openid") || !rec.scopes.includes("profile")) return denied("/userinfo");
    const m = this.members.get(rec.sub)!;
    const [given, ...family] = m.name.split(" ");
    return {
      body: {
        sub: m.sub,
        name: m.name,
        given_name: given,
        family_name: family.join(" "),
        picture: m.picture,
        locale: "en-US",
      },
    };
  }

  // --- REST plumbing -----------------------------------------------------------------------------------

  /** The access token's record, or LinkedIn's 401 answer (shared with ./linkedin-documents.ts). */
  token(req: FakeRequest): TokenRecord | FakeResponse {
    const token = req.token();
    const rec = token ? this.tokens.get(token) : undefined;
    if (rec?.kind !== "access") return liError(401, "Invalid access token", "INVALID_ACCESS_TOKEN", 65600);
    if (rec.revoked) {
      return liError(
        401,
        "The token used in the request has been revoked by the user",
        "REVOKED_ACCESS_TOKEN",
        65601,
      );
    }
    return rec;
  }

  /** Versioned REST: both headers, then a valid token. */
  rest(
    req: FakeRequest,
    handler: (m: { member: LinkedInMember; scopes: string[] }) => FakeResponse | Promise<FakeResponse>,
  ): FakeResponse | Promise<FakeResponse> {
    const version = String(req.headers["linkedin-version"] ?? "");
    if (version) this.versionsSeen.add(version);
    if (!version) {
      return liError(
        400,
        "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
        "VERSION_MISSING",
      );
    }
    if (!/^20\d{2}(0[1-9]|1[0-2])(\.\d{2})?$/.test(version)) {
      return liError(
        400,
        `Invalid version ${version}, a version must be in YYYYMM format.`,
        "INVALID_VERSION",
      );
    }
    if (this.sunsetVersions.has(version)) {
      return liError(426, `Requested version ${version} is not active`, "NONEXISTENT_VERSION");
    }
    if (req.headers["x-restli-protocol-version"] !== RESTLI) {
      return liError(400, "X-Restli-Protocol-Version 2.0.0 is required by this API.", "ILLEGAL_ARGUMENT");
    }
    const rec = this.token(req);
    if (!("sub" in rec)) return rec;
    return handler({ member: this.members.get(rec.sub)!, scopes: rec.scopes });
  }

  private administers(member: LinkedInMember, urn: string): boolean {
    return member.organizations.some((o) => o.urn === urn);
  }

  /** Whether the token may write (`w`) or read (`r`) the posts of `author`. */
  /** Whether the member may write (`w`) or read (`r`) as `author` (shared with ./linkedin-documents.ts). */
  mayAct(m: { member: LinkedInMember; scopes: string[] }, author: string, mode: "w" | "r"): boolean {
    return this.may(m, author, mode);
  }

  /** A LinkedIn REST error answer (shared with ./linkedin-documents.ts). */
  error(status: number, message: string, code?: string, serviceErrorCode?: number): FakeResponse {
    return liError(status, message, code, serviceErrorCode);
  }

  private may(m: { member: LinkedInMember; scopes: string[] }, author: string, mode: "w" | "r"): boolean {
    if (author === m.member.urn) return m.scopes.includes(`${mode}_member_social`);
    return this.administers(m.member, author) && m.scopes.includes(`${mode}_organization_social`);
  }

  // --- organizations -----------------------------------------------------------------------------------

  private acls(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    if (!m.scopes.includes("rw_organization_admin")) return denied("organizationAcls.FINDER-roleAssignee");
    if (req.query.get("q") !== "roleAssignee")
      return liError(400, "q must be roleAssignee", "ILLEGAL_ARGUMENT");
    const role = req.query.get("role");
    const state = req.query.get("state");
    const all = m.member.organizations
      .filter(() => (!role || role === "ADMINISTRATOR") && (!state || state === "APPROVED"))
      .map((o) => ({
        roleAssignee: m.member.urn,
        state: "APPROVED",
        role: "ADMINISTRATOR",
        organization: o.urn,
      }));
    const start = Number(req.query.get("start") ?? 0);
    const count = Number(req.query.get("count") ?? 10);
    return {
      body: {
        paging: { start, count, links: [], total: all.length },
        elements: all.slice(start, start + count),
      },
    };
  }

  private organization(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    const org = this.organizations.get(Number(req.params.id));
    if (!org) return liError(404, `Organization ${req.params.id} is not found`, "NOT_FOUND");
    if (!this.administers(m.member, org.urn) || !m.scopes.includes("rw_organization_admin"))
      return denied("organizations.GET");
    return {
      body: {
        id: org.id,
        $URN: org.urn,
        localizedName: org.localizedName,
        vanityName: org.vanityName,
        name: { localized: { en_US: org.localizedName }, preferredLocale: { country: "US", language: "en" } },
      },
    };
  }

  // --- media -------------------------------------------------------------------------------------------

  private initImage(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    if (req.query.get("action") !== "initializeUpload")
      return liError(400, "Unsupported action", "ILLEGAL_ARGUMENT");
    const owner = (req.json() as { initializeUploadRequest?: { owner?: string } })?.initializeUploadRequest
      ?.owner;
    if (!owner)
      return liError(
        422,
        "/initializeUploadRequest/owner :: field is required but not found",
        "FIELD_MISSING",
      );
    if (!this.may(m, owner, "w")) return denied("images.ACTION-initializeUpload");
    const key = `D${randomBytes(9).toString("base64url")}`;
    const image: Image = { urn: `urn:li:image:${key}`, owner, key, status: "WAITING_UPLOAD" };
    this.images.set(image.urn, image);
    return {
      body: {
        value: {
          uploadUrlExpiresAt: Date.now() + 86_400_000,
          uploadUrl: `${this.server.urlFor(LI_WWW_HOST, `/dms-uploads/${key}/feedshare-uploadedImage/0`)}?ca=vector_feedshare&cn=uploads&m=${randomBytes(8).toString("base64url")}&sync=0&v=beta`,
          image: image.urn,
        },
      },
    };
  }

  private putImage(req: FakeRequest): FakeResponse {
    const image = [...this.images.values()].find((i) => i.key === req.params.key);
    if (!image) return { status: 404 };
    const rec = this.token(req);
    if (!("sub" in rec)) return rec;
    if (image.status !== "WAITING_UPLOAD")
      return { status: 400, body: { message: "Image already uploaded" } };
    const kind = sniff(req.body);
    const gif = req.body.subarray(0, 4).toString("latin1") === "GIF8";
    image.status = kind === "jpeg" || kind === "png" || gif ? "AVAILABLE" : "PROCESSING_FAILED";
    return { status: 201 };
  }

  private videoAction(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    const action = req.query.get("action");
    if (action === "initializeUpload") return this.initVideo(req, m);
    if (action === "finalizeUpload") return this.finalizeVideo(req, m);
    return liError(400, "Unsupported action", "ILLEGAL_ARGUMENT");
  }

  private initVideo(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    const r =
      (req.json() as { initializeUploadRequest?: Record<string, unknown> })?.initializeUploadRequest ?? {};
    const owner = String(r.owner ?? "");
    const size = Number(r.fileSizeBytes);
    if (!owner || !Number.isInteger(size) || size <= 0) {
      return liError(422, "/initializeUploadRequest/fileSizeBytes :: field is required", "FIELD_MISSING");
    }
    if (!this.may(m, owner, "w")) return denied("videos.ACTION-initializeUpload");
    if (size > 500 * 1024 * 1024) return liError(422, "Video file size exceeds 500 MB", "INVALID_VALUE");
    const partBytes = this.options.partBytes ?? LI_PART_BYTES;
    const key = `D${randomBytes(9).toString("base64url")}`;
    const parts: Video["parts"] = [];
    for (let first = 0; first < size; first += partBytes)
      parts.push({ first, last: Math.min(size, first + partBytes) - 1 });
    const video: Video = {
      urn: `urn:li:video:${key}`,
      owner,
      key,
      size,
      uploadToken: parts.length > 1 ? randomBytes(24).toString("base64url") : "",
      parts,
      status: "WAITING_UPLOAD",
      pollsLeft: this.processingPolls,
    };
    this.videos.set(video.urn, video);
    return {
      body: {
        value: {
          uploadUrlsExpireAt: Date.now() + 86_400_000,
          video: video.urn,
          uploadInstructions: parts.map((p, i) => ({
            uploadUrl: `${this.server.urlFor(LI_WWW_HOST, `/dms-uploads/sp/${key}/uploadedVideo/${i}`)}?ca=vector_feedshare&cn=uploads&sync=0&v=beta`,
            firstByte: p.first,
            lastByte: p.last,
          })),
          uploadToken: video.uploadToken,
        },
      },
    };
  }

  private putPart(req: FakeRequest): FakeResponse {
    const video = [...this.videos.values()].find((v) => v.key === req.params.key);
    const part = video?.parts[Number(req.params.part)];
    if (!video || !part) return { status: 404 };
    if (video.status !== "WAITING_UPLOAD")
      return { status: 400, body: { message: "Upload already finalized" } };
    if (req.body.length !== part.last - part.first + 1) {
      return { status: 400, body: { message: `Expected ${part.last - part.first + 1} bytes for this part` } };
    }
    part.bytes = req.body;
    part.etag = `/ambry-video/signedId/${createHash("sha256").update(req.body).digest("base64url")}`;
    return { status: 200, headers: { etag: part.etag } };
  }

  private finalizeVideo(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    const r =
      (req.json() as { finalizeUploadRequest?: Record<string, unknown> })?.finalizeUploadRequest ?? {};
    const video = this.videos.get(String(r.video ?? ""));
    if (!video) return liError(404, "Video not found", "NOT_FOUND");
    if (!this.may(m, video.owner, "w")) return denied("videos.ACTION-finalizeUpload");
    if (video.status !== "WAITING_UPLOAD")
      return liError(400, "The upload was already finalized", "ILLEGAL_ARGUMENT");
    if ((r.uploadToken ?? "") !== video.uploadToken)
      return liError(400, "Invalid uploadToken", "ILLEGAL_ARGUMENT");
    const ids = Array.isArray(r.uploadedPartIds) ? (r.uploadedPartIds as unknown[]) : [];
    if (ids.length !== video.parts.length || video.parts.some((p, i) => !p.etag || p.etag !== ids[i])) {
      return liError(400, "uploadedPartIds do not match the uploaded parts", "ILLEGAL_ARGUMENT");
    }
    const bytes = Buffer.concat(video.parts.map((p) => p.bytes!));
    video.status = sniff(bytes) === "mp4" ? "PROCESSING" : "PROCESSING_FAILED";
    return { status: 200 };
  }

  private readVideo(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    const video = this.videos.get(req.params.urn!);
    if (!video) return liError(404, "Video not found", "NOT_FOUND");
    if (!this.may(m, video.owner, "w") && !this.may(m, video.owner, "r")) return denied("videos.GET");
    if (video.status === "PROCESSING") {
      if (video.pollsLeft > 0) video.pollsLeft -= 1;
      else video.status = "AVAILABLE";
    }
    return {
      body: {
        id: video.urn,
        owner: video.owner,
        status: video.status,
        ...(video.status === "PROCESSING_FAILED" ? { processingFailureReason: "Invalid video file" } : {}),
      },
    };
  }

  // --- posts -------------------------------------------------------------------------------------------

  private createPost(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    const b = req.json() as Record<string, any> | undefined;
    if (!b) return liError(400, "Request body is not JSON", "ILLEGAL_ARGUMENT");
    const author = String(b.author ?? "");
    if (!/^urn:li:(person|organization):/.test(author))
      return liError(422, "/author :: invalid URN", "INVALID_VALUE");
    if (!this.may(m, author, "w")) return denied("partnerApiPostsExternal.CREATE");
    if (typeof b.commentary !== "string")
      return liError(422, "/commentary :: field is required", "FIELD_MISSING");
    const bad = unescapedReserved(b.commentary);
    if (bad)
      return liError(422, `/commentary :: reserved character "${bad}" must be escaped`, "INVALID_VALUE");
    const text = b.commentary.replace(/\\(.)/g, "$1");
    if ([...text].length > 3000)
      return liError(422, "/commentary :: text is longer than 3000", "INVALID_VALUE");
    if (!["PUBLIC", "CONNECTIONS", "LOGGED_IN", "CONTAINER"].includes(b.visibility))
      return liError(422, "/visibility :: invalid value", "INVALID_VALUE");
    if (!["MAIN_FEED", "NONE"].includes(b.distribution?.feedDistribution))
      return liError(422, "/distribution/feedDistribution :: invalid value", "INVALID_VALUE");
    if (!["PUBLISHED", "DRAFT"].includes(b.lifecycleState))
      return liError(422, "/lifecycleState :: invalid value", "INVALID_VALUE");
    const content = b.content as LinkedInPost["content"] | undefined;
    // Posts API: altText of a media item or a multiImage image is at most 4086 characters.
    const alts: Array<[string, unknown]> = [
      ["/content/media/altText", (content?.media as { altText?: unknown } | undefined)?.altText],
      ...(content?.multiImage?.images ?? []).map(
        (im, i) =>
          [`/content/multiImage/images/${i}/altText`, (im as { altText?: unknown }).altText] as [
            string,
            unknown,
          ],
      ),
    ];
    for (const [path, alt] of alts)
      if (alt !== undefined && (typeof alt !== "string" || [...alt].length > 4086))
        return liError(422, `${path} :: length of the string is greater than 4086`, "INVALID_VALUE");
    let video = false;
    if (content?.media) {
      const id = content.media.id;
      const media = this.images.get(id) ?? this.videos.get(id) ?? this.documents.get(id);
      if (!media || media.owner !== author || media.status !== "AVAILABLE")
        return liError(422, `/content/media/id :: ${id} is not available for ${author}`, "INVALID_VALUE");
      video = id.startsWith("urn:li:video:");
    } else if (content?.multiImage) {
      const images = content.multiImage.images ?? [];
      if (images.length < 2 || images.length > 20)
        return liError(422, "/content/multiImage/images :: between 2 and 20 images", "INVALID_VALUE");
      for (const { id } of images) {
        const image = this.images.get(id);
        if (!image || image.owner !== author || image.status !== "AVAILABLE")
          return liError(
            422,
            `/content/multiImage/images :: ${id} is not available for ${author}`,
            "INVALID_VALUE",
          );
      }
    }
    const urn = `urn:li:${video ? "ugcPost" : "share"}:${numericId(19)}`;
    const now = Date.now();
    this.posts.set(urn, {
      urn,
      author,
      commentary: b.commentary,
      text,
      visibility: b.visibility,
      lifecycleState: b.lifecycleState,
      distribution: b.distribution,
      ...(content ? { content } : {}),
      createdAt: now,
      lastModifiedAt: now,
    });
    this.server.count("linkedin.posts");
    return { status: 201, headers: { "x-restli-id": urn, "x-linkedin-id": urn } };
  }

  private listPosts(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    if (req.query.get("q") !== "author") return liError(400, "q must be author", "ILLEGAL_ARGUMENT");
    const author = req.query.get("author") ?? "";
    if (!this.may(m, author, "r")) return denied("partnerApiPostsExternal.FINDER-author");
    const count = Math.min(100, Number(req.query.get("count") ?? 10));
    const key = req.query.get("sortBy") === "CREATED" ? "createdAt" : "lastModifiedAt";
    const elements = [...this.posts.values()]
      .filter((p) => p.author === author)
      .sort((a, b) => b[key] - a[key])
      .slice(0, count)
      .map((p) => ({
        id: p.urn,
        author: p.author,
        commentary: p.commentary,
        visibility: p.visibility,
        lifecycleState: p.lifecycleState,
        distribution: p.distribution,
        isReshareDisabledByAuthor: false,
        createdAt: p.createdAt,
        publishedAt: p.createdAt,
        lastModifiedAt: p.lastModifiedAt,
        ...(p.content ? { content: p.content } : {}),
      }));
    return { body: { paging: { start: 0, count, links: [] }, elements } };
  }

  // --- metrics -----------------------------------------------------------------------------------------

  private networkSize(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    if (req.query.get("edgeType") !== "COMPANY_FOLLOWED_BY_MEMBER")
      return liError(400, "edgeType must be COMPANY_FOLLOWED_BY_MEMBER", "ILLEGAL_ARGUMENT");
    const org = [...this.organizations.values()].find((o) => o.urn === req.params.urn);
    if (!org) return liError(404, "Not found", "NOT_FOUND");
    if (!this.administers(m.member, org.urn) || !m.scopes.includes("rw_organization_admin"))
      return denied("networkSizes.GET");
    return { body: { firstDegreeSize: org.followers } };
  }

  private statistics(req: FakeRequest, m: { member: LinkedInMember; scopes: string[] }): FakeResponse {
    if (req.query.get("q") !== "organizationalEntity")
      return liError(400, "q must be organizationalEntity", "ILLEGAL_ARGUMENT");
    const urn = req.query.get("organizationalEntity") ?? "";
    const org = [...this.organizations.values()].find((o) => o.urn === urn);
    if (!org) return liError(400, "organizationalEntity must be an organization URN", "ILLEGAL_ARGUMENT");
    if (!this.administers(m.member, urn) || !m.scopes.includes("rw_organization_admin"))
      return denied("organizationalEntityShareStatistics.FINDER-organizationalEntity");
    const list = (name: string): string[] | undefined => {
      const v = req.query.get(name);
      if (v === null) return undefined;
      const match = /^List\((.*)\)$/.exec(v);
      return match ? match[1]!.split(",").filter(Boolean) : [];
    };
    const shares = list("shares");
    const ugcPosts = list("ugcPosts");
    if (shares?.length === 0 || ugcPosts?.length === 0)
      return liError(400, "Malformed List() parameter", "ILLEGAL_ARGUMENT");
    if (!shares && !ugcPosts) {
      return {
        body: {
          paging: { start: 0, count: 10, links: [] },
          elements: [{ organizationalEntity: urn, totalShareStatistics: org.totals }],
        },
      };
    }
    const element = (field: "share" | "ugcPost") => (postUrn: string) => ({
      organizationalEntity: urn,
      [field]: postUrn,
      totalShareStatistics: this.postStatistics.get(postUrn) ?? zeroStats(),
    });
    const elements = [
      ...(shares ?? []).filter((p) => this.posts.get(p)?.author === urn).map(element("share")),
      ...(ugcPosts ?? []).filter((p) => this.posts.get(p)?.author === urn).map(element("ugcPost")),
    ];
    return { body: { paging: { start: 0, count: 10, links: [] }, elements } };
  }
}

/** Mounts a LinkedIn fake on `server`. */
export function linkedinFake(server: FakeNetworkServer, options: LinkedInFakeOptions): LinkedInFake {
  return new LinkedInFake(server, options);
}
