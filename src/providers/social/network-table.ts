/**
 * The declarative table of one network (docs/network-adapters.md "One table per network"): the OAuth
 * settings of its connect flow and the
 * error codes of its API, as data. Each live adapter has one (`<network>/table.ts`); shared code reads it:
 * ./oauth-flow.ts builds the authorize URL, the code exchange and the refresh from `oauth`, and
 * ./api-errors.ts maps a failed API answer to the adapter errors of ./network.ts from `api.errors`. What a
 * table cannot say (the accounts behind a token, Instagram's and Facebook's own token exchanges, a network's
 * special answers such as X's duplicate post or YouTube's quota) stays in the network's own modules.
 *
 * Sources: the "OAuth endpoints" and per-network sections of docs/network-adapters.md (the networks' public
 * developer documentation, 2026); RFC 6749 (authorization code grant, client authentication, token answer),
 * RFC 7636 (PKCE S256).
 */
import type { UsageStop } from "./usage.ts";
import type { Capabilities } from "./network.ts";
import type { Network } from "./types.ts";

/** A network's error code (TikTok `access_token_invalid`, Graph 190, YouTube reason `quotaExceeded`, ...). */
export type ErrorCode = string | number;

/** The connect flow of a network (RFC 6749 section 4.1). */
export interface OAuthTable {
  /** The consent page the browser is sent to: an absolute `https://` URL. */
  authorizeUrl: string;
  /**
   * The RFC 6749 token endpoint (code exchange and `refresh_token` grant), absolute `https://`. Absent for a
   * network whose exchange and refresh are its own (Instagram, Facebook): the adapter supplies them.
   */
  tokenUrl?: string;
  /** The token endpoint's owner in messages when it is not the network itself ("Google" for YouTube). */
  tokenIssuer?: string;
  /** The client id's parameter name in the authorize URL and a body-authenticated token request. */
  clientIdParam: "client_id" | "client_key";
  /**
   * Client authentication at the token endpoint (RFC 6749 section 2.3.1): HTTP Basic, or id and secret in the
   * form body. `basic+id`: HTTP Basic and the client id in the body too (X).
   */
  clientAuth: "basic" | "body" | "basic+id";
  /** Scopes asked at consent, in this order. */
  scopes: readonly string[];
  /** Scopes a grant must hold or the callback refuses it (default: all of `scopes`). */
  requiredScopes?: readonly string[];
  /** How the authorize URL joins the scopes (RFC 6749 section 3.3: a space; some networks a comma). */
  scopeSeparator: " " | ",";
  /** PKCE S256 (RFC 7636): `required` refuses a flow without it, `supported` sends it when given. */
  pkce: "required" | "supported" | "none";
  /** Fixed authorize parameters beyond the standard ones (Google: `access_type`, `prompt`). */
  authorizeParams?: Readonly<Record<string, string>>;
  /** Extra form parameters of the code exchange (Pinterest: `continuous_refresh`). */
  codeParams?: Readonly<Record<string, string>>;
  /** Extra request headers at the token endpoint (`accept`, `cache-control`). */
  tokenHeaders?: Readonly<Record<string, string>>;
  /** How long before expiry the access token is refreshed, seconds (default 3600). */
  refreshAheadSeconds?: number;
  /** The user picks which accounts to connect after consent (Facebook Pages, LinkedIn pages). */
  pickAccounts?: boolean;
  /** The refusal when an account has no refresh token (default: "{name} gave no refresh token; ..."). */
  noRefreshToken?: string;
}

/**
 * What a network's API error codes mean. The HTTP status decides when the codes do not: 401 -> auth, 429 ->
 * rate limit, 5xx -> transient, anything else -> rejected; a code listed here decides first, in the order
 * auth, rate limit, transient.
 */
export interface ErrorTable {
  /** Codes that mean the account's credentials (or a scope) were refused: the account must reconnect. */
  auth: readonly ErrorCode[];
  /** Codes that mean a rate limit or usage cap with a reset: wait, then the same call again. */
  rateLimit: readonly ErrorCode[];
  /** Codes that mean the network failed for now (its internal errors). */
  transient: readonly ErrorCode[];
  /**
   * Of the rate limit codes, those that stop every account of the app rather than one token (Meta: 4,
   * "Application request limit reached"). A rate limit answer whose `X-App-Usage` header holds a value at
   * 100 (percent) is app-wide too.
   */
  appRateLimit?: readonly ErrorCode[];
  /** An error answer without any code of the network is transient (TikTok: not its envelope, a proxy). */
  uncodedIsTransient?: boolean;
  /**
   * Seconds to wait after a rate limit answer, from its headers at `now` (default: `Retry-After`, else 60).
   * Also used for an HTTP 429 of the token endpoint.
   */
  rateLimitWait?(headers: Headers, now: Date): number;
}

/** How a network's API is called and how it fails. */
export interface ApiTable {
  /** The network's name in API error messages ("TikTok"; the Meta Graph API shared by two: "the network"). */
  name: string;
  /** The base URL paths are relative to (`https://open.tiktokapis.com`, `https://api.pinterest.com/v5`). */
  base: string;
  /** The content type of JSON request bodies (default `application/json`). */
  jsonType?: string;
  /** Headers every call sends (besides the bearer token), e.g. `accept`. */
  headers?: Readonly<Record<string, string>>;
  errors: ErrorTable;
  /**
   * The budget a successful (2xx) answer's headers say is spent (X's `x-rate-limit-remaining: 0`, Meta's
   * usage headers at their limit; ./usage.ts), at `now`; undefined when none is. Reported by ./json-call.ts
   * `apiRequest` to the caller observing usage (the metrics sync).
   */
  usage?(headers: Headers, now: Date): UsageStop | undefined;
}

/** One network's table: read by ./oauth-flow.ts and ./api-errors.ts. */
export interface NetworkTable {
  network: Network;
  /** The network's name in messages ("TikTok", "LinkedIn"). */
  name: string;
  /** What its accounts can publish (drives the settings page and the rule checks of ./rules.ts). */
  capabilities: Capabilities;
  oauth: OAuthTable;
  api: ApiTable;
}

/** The integer codes `first` to `last` (both included), for tables of numbered codes (Graph 200-299). */
export function codeRange(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
