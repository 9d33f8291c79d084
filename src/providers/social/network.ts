// Stays whole: the adapter contract (types, error classes and two small helpers of the contract), read as one by whoever writes an adapter.
/**
 * The network adapter contract (service spec 1.8, 2.7): what every social network adapter (Instagram,
 * Facebook, TikTok, ... and the offline sandbox) implements, and what the delivery engine
 * (src/domain/social/engine.ts) drives. An adapter speaks the network's real HTTP API through the
 * `SocialHttp` of its `AdapterDeps` (./http.ts) only, so `SOCIAL_HTTP_OVERRIDE` can point it at a
 * provider-shaped fake in tests.
 *
 * Shapes:
 * - Times are `Date`; durations are seconds; sizes are bytes; image dimensions are pixels.
 * - Tokens (`TokenSet`) are secrets: the engine seals them at rest (src/crypto/seal.ts), never logs them,
 *   never returns them to a tool, never puts them in an error message. Adapters must not either.
 *
 * Errors an adapter throws (anything else is treated as `NetworkTransientError`):
 * - `NetworkAuthError`: the network refused the credentials (revoked, expired beyond refresh, missing scope)
 *   -> the account becomes `needs_reconnect`, the delivery `failed` with the safe reason.
 * - `NetworkRateLimitError`: HTTP 429 or a usage header at its limit -> wait `retryAfterSeconds`, then the
 *   same step again (nothing was created).
 * - `NetworkRejectedError`: the network refused the post itself (bad media, policy) -> delivery `failed`.
 * - `NetworkTransientError`: 5xx, timeout, connection reset. Before a create call: the step is retried with
 *   backoff. After a create call was sent (its response lost): the delivery becomes `outcome_unknown` and only
 *   `reconcile` may decide what happened. An adapter signals "the create was sent" by throwing with
 *   `afterCreate: true` (or the engine assumes it when the step's `save` was not yet called for that id).
 */
import type { Sealer } from "../../crypto/seal.ts";
import type { Readable } from "node:stream";
import type { SocialHttp } from "./http.ts";
import type { NetworkComments, NetworkRemover } from "./published-post.ts";
import type { AccountCounters, Network, PostCounters } from "./types.ts";

/** OAuth 2.0 tokens as the network issued them (RFC 6749 section 5.1). Sealed at rest, never logged. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string | undefined;
  /** When the access token stops working; undefined = the network gave no lifetime. */
  expiresAt?: Date | undefined;
  /** When the refresh token stops working (TikTok: 365 days), if the network says. */
  refreshExpiresAt?: Date | undefined;
  /** Granted scopes (space- or comma-separated lists split by the adapter). */
  scopes: string[];
}

/** What an account can publish (drives the settings page and validation against ./rules.ts). */
export interface Capabilities {
  text: boolean;
  image: boolean;
  carousel: boolean;
  video: boolean;
}

/**
 * One publishable identity on a network, as `NetworkOAuth.accounts` returns it after consent.
 * Facebook: one per Page (with the Page access token in `tokens`); Instagram: the professional account.
 */
export interface NetworkAccount {
  /** The network's own id of the account/page/creator (stable; the key for reconnecting). */
  networkAccountId: string;
  handle: string;
  displayName?: string | undefined;
  avatarUrl?: string | undefined;
  /** Account-specific tokens (Facebook Page token); when absent the user tokens from the exchange are used. */
  tokens?: TokenSet | undefined;
  capabilities: Capabilities;
  /** Non-secret facts the adapter wants back later (e.g. the IG user id behind a Page). Sealed at rest. */
  metadata?: Record<string, unknown> | undefined;
  /**
   * Per-account defaults the network decides at connect (e.g. the only Pinterest board), saved in the
   * account's `settings` unless the account already has a value for the key (a choice made on
   * /settings/social is never overwritten by a reconnect).
   */
  settings?: Record<string, string> | undefined;
}

/** The OAuth 2.0 authorization code flow of one network (RFC 6749 section 4.1, PKCE RFC 7636 S256). */
export interface NetworkOAuth {
  /** Whether the network supports PKCE; when true the engine sends `codeChallenge` (S256) and the verifier. */
  readonly pkce: boolean;
  /** The scopes the connect flow asks for; the callback refuses a grant missing any of them. */
  readonly requiredScopes: readonly string[];
  /**
   * How long before `expiresAt` the worker refreshes the access token, seconds (default 3600; Instagram's
   * 60-day long-lived token: a few days).
   */
  readonly refreshAheadSeconds?: number | undefined;
  /**
   * The user picks which of the `accounts` to connect after consent (Facebook Pages); otherwise every
   * account returned is connected.
   */
  readonly pickAccounts?: boolean | undefined;
  /**
   * The browser URL of the network's consent page. Must be built with `https://...` absolute URLs: the engine
   * passes it through `providers.socialHttp.overrideUrl` (./http.ts) before redirecting.
   */
  authorizeUrl(input: { state: string; redirectUri: string; codeChallenge?: string | undefined }): string;
  /** Exchanges the authorization code. @throws NetworkAuthError for an invalid/used code. */
  exchangeCode(input: {
    code: string;
    redirectUri: string;
    codeVerifier?: string | undefined;
  }): Promise<TokenSet>;
  /**
   * Refreshes the tokens (Instagram: long-lived token refresh; TikTok: refresh_token grant).
   * Returns the new set; a network that does not rotate the refresh token may omit it (the engine keeps the old).
   * @throws NetworkAuthError when the refresh is refused (the account must reconnect).
   */
  refresh(tokens: TokenSet): Promise<TokenSet>;
  /** The publishable accounts behind the tokens. Facebook: the Pages the user granted. */
  accounts(tokens: TokenSet): Promise<NetworkAccount[]>;
}

/** One media item of a post, as the adapter sees it. */
export interface JobMedia {
  assetId: string;
  kind: "image" | "video";
  mime: string;
  width: number | null;
  height: number | null;
  bytes: number;
  durationSeconds?: number | undefined;
  /**
   * Images: what a screen reader says in place of the image, sent in the network's own field within its limit
   * (./rules.ts `altText`); absent or null when there is none.
   */
  altText?: string | null | undefined;
  /** A signed public URL of the bytes valid for 1 hour (`/media/public/{asset}?exp=&sig=`), for pull uploads. */
  publicUrl(): string;
  /** Opens the bytes for push uploads (chunked uploads read ranges of it). */
  open(range?: { start: number; end: number }): Promise<Readable>;
}

/** Network ids saved as soon as they exist (container ids, publish_id, upload session, ...). */
export type NetworkIds = Record<string, unknown>;

/** What `step` and `reconcile` get. Tokens are opened (decrypted) here only. */
export interface DeliveryJob {
  delivery: {
    id: string;
    /** The saved state the step starts from. */
    state: DeliveryState;
    networkIds: NetworkIds;
    /** How many steps have been attempted (0 on the first). */
    attempt: number;
  };
  post: {
    /** Caption as the post holds it (never logged). */
    caption: string;
    title: string | null;
    /** Post type: text | image | carousel | video. */
    type: string;
    media: JobMedia[];
    /** Options chosen for this delivery (TikTok review: privacy level, toggles); {} otherwise. */
    options: Record<string, unknown>;
    /** The `product_url` of the post's product (the Pinterest pin's `link`), when it has one. */
    productUrl?: string | null | undefined;
  };
  account: {
    id: string;
    network: Network;
    networkAccountId: string;
    handle: string | null;
    tokens: TokenSet;
    /** Per-account defaults set on /settings/social (e.g. Facebook Page choice). */
    settings: Record<string, unknown>;
    metadata: Record<string, unknown>;
  };
  /** Aborts outbound requests when the worker shuts down. */
  signal?: AbortSignal | undefined;
}

/** Delivery states (service spec 2.7). */
export const DELIVERY_STATES = [
  "pending",
  "uploading",
  "processing",
  "published",
  "failed",
  "outcome_unknown",
] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Result of one step. `pollAfterSeconds`: when the engine should run the next step. */
export type StepResult =
  | { state: "uploading" | "processing"; pollAfterSeconds: number }
  | {
      state: "published";
      postUrl: string;
      networkPostId: string;
      /**
       * What `postUrl` shows: the post itself (`post`, the default) or only the creator's profile
       * (`profile`: the network gave no post id, e.g. a private TikTok post or one whose public id did not
       * come within the patience window; `networkPostId` is then the network's publish id, not a post id).
       */
      postUrlKind?: "post" | "profile" | undefined;
    }
  | { state: "failed"; reason: string };

/**
 * Persists network ids of this delivery immediately (merged into the saved ids), before the adapter does
 * anything else. Call it right after a create call returns an id.
 */
export type SaveIds = (patch: NetworkIds) => Promise<void>;

/**
 * The delivery's saved network ids as the adapter's own shape `I`, plus a saver that persists a patch
 * (`save`) and merges it into those ids, so one step sees what it saved earlier in the same step.
 */
export function trackedIds<I extends object>(
  job: DeliveryJob,
  save: SaveIds,
): { ids: I; saveIds: (patch: Partial<I>) => Promise<void> } {
  const ids = { ...(job.delivery.networkIds as I) };
  return {
    ids,
    async saveIds(patch) {
      Object.assign(ids, patch);
      await save(patch as NetworkIds);
    },
  };
}

/** Publishing limit of an account (Instagram `content_publishing_limit`). */
export interface PublishingQuota {
  used: number;
  limit: number;
  /** Length of the window, seconds (Instagram: 86 400). */
  windowSeconds: number;
}

export interface NetworkPublisher {
  /**
   * Advances the delivery by one step from its saved state and ids. Must be safe to call again after a crash
   * at any point: it reads `job.delivery.networkIds` and never repeats a create whose id is saved.
   * @throws NetworkAuthError | NetworkRateLimitError | NetworkRejectedError | NetworkTransientError
   */
  step(job: DeliveryJob, save: SaveIds): Promise<StepResult>;
  /**
   * For an `outcome_unknown` delivery: asks the network what happened to the create whose response was lost
   * (Instagram container `status_code` / recent media; TikTok `status/fetch`). `not_created` lets the engine
   * retry from the last saved step.
   */
  reconcile(job: DeliveryJob, save: SaveIds): Promise<StepResult | { state: "not_created" }>;
  /** Optional: the account's publishing quota, checked before publishing (refused with a reason when used up). */
  publishingLimit?(job: DeliveryJob): Promise<PublishingQuota | undefined>;
  /**
   * Optional: the network's per-account budget of the call that starts a post, over a sliding window
   * (TikTok's init, 6 in any 60 s). The engine starts no post while the account's starts on record fill it
   * (src/domain/social/start-window.ts), so the budget is kept rather than met with a refusal; a start
   * refused all the same (NetworkRateLimitError `startsOnly`) waits until the window's oldest start leaves it.
   */
  startWindow?: StartWindow;
}

/** The account as `NetworkMetrics` and `accountSettings` see it (tokens opened, like a delivery's). */
export type AdapterAccount = DeliveryJob["account"];

/** One published delivery whose counters the analytics sync reads. */
export interface MetricsPost {
  /** The id `step` returned with `published` (`networkPostId`): IG media id, FB post id, URN, pin id, ... */
  networkPostId: string;
  /** The delivery's saved network ids (container, publish_id, video id, ...). */
  networkIds: NetworkIds;
  /** Post type: text | image | carousel | video. */
  type: string;
  publishedAt: Date;
  /** `profile` when the delivery was recorded at the creator's profile: `networkPostId` is no post id. */
  postUrlKind?: "post" | "profile" | null | undefined;
}

/**
 * The network's own counters of an account and of its published posts (service spec 2.7 analytics rules,
 * 6.3), read by the daily sync (src/domain/analytics/sync.ts). Lifetime values as the network reports them
 * now. A metric the network does not give (for this account type, post type or API) is `null`, never 0:
 * the sync lists it as missing in the coverage. Sandbox connectors return sandbox counters (labelled
 * `source: "sandbox"` in every analytics result); live adapters never invent a number.
 * Errors: as the publisher's (`NetworkAuthError` -> the account needs reconnecting; `NetworkRateLimitError`
 * -> the sync waits `retryAfterSeconds` and tries again; anything else -> this account/post keeps its
 * previous saved values and the sync reports it as partial with the reason). A read that the network answers
 * only in part (one metric refused) is not an error: the refused counters come back null in `refused` with
 * their reason, and the others are saved.
 */
export interface NetworkMetrics {
  /** Account counters: followers, views, likes, comments, shares. */
  account(account: AdapterAccount, signal?: AbortSignal): Promise<CountersRead<AccountCounters>>;
  /** One published post's counters: views, reach, likes, comments, shares, saves. */
  post(account: AdapterAccount, post: MetricsPost, signal?: AbortSignal): Promise<CountersRead<PostCounters>>;
  /**
   * The most posts `readPostMetricsBatch` takes in one call (the network's own limit: YouTube `videos.list`
   * 50 ids, X `GET /2/tweets` 100 ids). Set exactly when `readPostMetricsBatch` is.
   */
  readonly postBatchSize?: number | undefined;
  /**
   * Optional, for networks whose API reads several posts in ONE call: the counters of `posts` (at most
   * `postBatchSize`), keyed by `networkPostId`; a post the network answered nothing for maps to the
   * `NetworkError` saying why (e.g. deleted). The whole call failing throws as `post` does.
   */
  readPostMetricsBatch?(
    account: AdapterAccount,
    posts: readonly MetricsPost[],
    signal?: AbortSignal,
  ): Promise<PostBatchRead>;
  /**
   * Optional, for networks that may give a post's public id after it was published (TikTok: moderation, a
   * post made public later): asks the network for the public id of a post recorded at the creator's profile
   * (`postUrlKind: "profile"`). @returns the post's id and URL once the network reports them, else
   * undefined. @throws as `post` does.
   */
  resolvePublicPost?(
    account: AdapterAccount,
    post: MetricsPost,
    signal?: AbortSignal,
  ): Promise<{ networkPostId: string; postUrl: string } | undefined>;
}

/** What `readPostMetricsBatch` answers: per `networkPostId`, the counters or why there are none. */
export type PostBatchRead = Map<string, CountersRead<PostCounters> | NetworkError>;

/**
 * A counter the network refused to report in one read although it could (a permission the account's grant
 * lacks, a metric refused for this post): left null, listed as missing, and its reason recorded as the
 * read's sync error, while the other counters are saved.
 */
export interface RefusedMetric {
  /** The counter ("views", "comments"). */
  metric: string;
  /** The network's refusal, safe to show (no token). */
  reason: string;
  /** The permission (scope) that would let the network report it, when known. */
  permission?: string | undefined;
}

/** The counters of one metrics read, with the counters the network refused (`RefusedMetric`), if any. */
export type CountersRead<C> = C & { refused?: RefusedMetric[] | undefined };

/** All six post counters null: a post the network reports nothing for (e.g. no public id yet). */
export const NO_POST_COUNTERS: PostCounters = {
  views: null,
  reach: null,
  likes: null,
  comments: null,
  shares: null,
  saves: null,
};

/**
 * Refuses a metrics read the account's grant cannot make: when the granted scopes are known (non-empty) and
 * lack any of `scopes` (an account connected before the analytics scopes were asked for), throws a
 * `NetworkRejectedError` asking to reconnect. Not a `NetworkAuthError`: the account still publishes, so it
 * must not become `needs_reconnect`. Unknown scopes (`[]`, e.g. `admin social connect`) are tried.
 * @throws NetworkRejectedError naming the missing scopes.
 */
export function requireMetricsScopes(account: AdapterAccount, scopes: readonly string[]): void {
  const granted = account.tokens.scopes;
  if (granted.length === 0) return;
  const missing = scopes.filter((s) => !granted.includes(s));
  if (missing.length > 0)
    throw new NetworkRejectedError(
      `the account was connected without the ${missing.join(", ")} permission; reconnect it on /settings/social to sync its metrics`,
    );
}

/**
 * One per-account publishing default shown on /settings/social (service spec 1.11: what a tool cannot
 * express), e.g. the Pinterest board or the YouTube privacy. Saved in the account's `settings` under `key`
 * and handed back to the publisher in `DeliveryJob.account.settings`.
 */
export interface AccountSettingField {
  key: string;
  /** Label shown on the page. */
  label: string;
  /** Allowed values as [value, label]; the page refuses any other value. At most 250. */
  options: Array<[string, string]>;
  /** The value used while the user has not chosen one (undefined: the publisher needs a choice). */
  defaultValue?: string | undefined;
}

/** Everything the engine needs of one network. */
export interface NetworkAdapter {
  readonly network: Network;
  /** "sandbox" for the offline connector (./sandbox/), "live" for a real network adapter. */
  readonly mode: "live" | "sandbox";
  readonly oauth: NetworkOAuth;
  readonly publisher: NetworkPublisher;
  /** The network's counters for the analytics sync; absent = the network's counters are not synced. */
  readonly metrics?: NetworkMetrics | undefined;
  /** The first comment under a published post (./published-post.ts); absent = the network has no comment API. */
  readonly comments?: NetworkComments<AdapterAccount> | undefined;
  /** Taking a published post down (./published-post.ts); absent = the copy stays live (no delete API). */
  readonly remover?: NetworkRemover<AdapterAccount> | undefined;
  /**
   * The per-account defaults of this network's accounts, read when /settings/social is shown (may call the
   * network, e.g. to list Pinterest boards). @throws as the publisher's errors; the page then shows the
   * saved values and the reason.
   */
  accountSettings?(account: AdapterAccount, signal?: AbortSignal): Promise<AccountSettingField[]>;
}

/**
 * The adapters per network: the live adapter when `{NETWORK}_CLIENT_ID` / `_SECRET` are configured and the
 * network has one (./adapters.ts), else the sandbox connector (./sandbox/sandbox.ts).
 */
export interface NetworkRegistry {
  /** The adapter new connections of `network` use. */
  adapter(network: Network): NetworkAdapter;
  /** The adapter of an existing account, by the mode it was connected with. */
  forAccount(network: Network, mode: "live" | "sandbox"): NetworkAdapter;
}

/** Per-network credentials from config (`{NETWORK}_CLIENT_ID` / `{NETWORK}_CLIENT_SECRET`). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** What an adapter factory gets besides its credentials. */
export interface AdapterDeps {
  /** PUBLIC_BASE_URL without trailing slash. */
  publicBaseUrl: string;
  /** Encrypts/decrypts values the adapter must hand out and take back (the sandbox's codes and tokens). */
  sealer: Pick<Sealer, "seal" | "open">;
  /** The service clock (tests move it). */
  now(): Date;
  /** Outbound HTTP of the live adapters, with the context's `SOCIAL_HTTP_OVERRIDE` (./http.ts). */
  http: SocialHttp;
  /** The `LinkedIn-Version` header (YYYYMM, config `LINKEDIN_VERSION`; default `DEFAULT_LINKEDIN_VERSION`). */
  linkedinVersion?: string | undefined;
  /** Ask LinkedIn for the organization page scopes too (config `LINKEDIN_ORGANIZATIONS`, default false). */
  linkedinOrganizations?: boolean | undefined;
}

/**
 * Builds a live adapter from its credentials; registered per network in ./adapters.ts and chosen by the
 * registry (src/providers/providers.ts) when `{NETWORK}_CLIENT_ID` / `_SECRET` are configured.
 */
export type AdapterFactory = (credentials: ClientCredentials, deps: AdapterDeps) => NetworkAdapter;

/** Base class of adapter errors: `message` is safe to show (no token, caption or secret in it). */
export class NetworkError extends Error {}

/** The network refused the credentials; the account must reconnect. */
export class NetworkAuthError extends NetworkError {
  override name = "NetworkAuthError";
}

/** HTTP 429 or a usage header at its limit (X-App-Usage, X-Business-Use-Case-Usage). */
export class NetworkRateLimitError extends NetworkError {
  override name = "NetworkRateLimitError";
  readonly retryAfterSeconds: number;
  readonly scope: "token" | "app";
  /**
   * The budget that ran out is the one of the call that starts a post, no other (TikTok's
   * `/v2/post/publish/video/init/` and `.../content/init/`: 6 requests a minute per user access token):
   * only the account's posts not started yet wait; the steps of posts under way (uploads, status polls) go
   * on.
   */
  readonly startsOnly: boolean;
  /**
   * @param retryAfterSeconds how long the network asks to wait.
   * @param scope whose budget ran out, as the network states it: `token` (this account's token: Meta's
   *   user/Page limits 17, 32; X's per-user `x-rate-limit-*`) or `app` (every account of our app: Meta's
   *   app limit 4 / `X-App-Usage` at 100; YouTube's project quota). The metrics sync stops only that.
   * @param options.startsOnly see `startsOnly` (default false: every call of that scope waits).
   */
  constructor(
    message: string,
    retryAfterSeconds: number,
    scope: "token" | "app" = "token",
    options: { startsOnly?: boolean } = {},
  ) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
    this.scope = scope;
    this.startsOnly = options.startsOnly === true;
  }
}

/** A per-account budget of starts: at most `calls` in any `seconds` (a sliding window). */
export interface StartWindow {
  calls: number;
  seconds: number;
}

/** The network refused the post itself; `reason` is the network's safe explanation. */
export class NetworkRejectedError extends NetworkError {
  override name = "NetworkRejectedError";
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/**
 * 5xx, timeout, connection lost. `afterCreate`: the request was a create call that may have taken effect
 * (the engine then marks the delivery `outcome_unknown` and reconciles instead of retrying).
 */
export class NetworkTransientError extends NetworkError {
  override name = "NetworkTransientError";
  readonly afterCreate: boolean;
  constructor(message: string, afterCreate = false) {
    super(message);
    this.afterCreate = afterCreate;
  }
}
