/**
 * LinkedIn API calls shared by the LinkedIn OAuth, publisher and metrics: one JSON request function over a
 * `SocialHttp` (../http.ts) for `https://api.linkedin.com`, and the mapping of LinkedIn's error answers to the
 * adapter errors of ../network.ts.
 *
 * Versioned REST (`/rest/...`, networks.md 2.5; https://learn.microsoft.com/en-us/linkedin/marketing/versioning):
 * every call sends `LinkedIn-Version: YYYYMM` (config `LINKEDIN_VERSION`) and `X-Restli-Protocol-Version:
 * 2.0.0`; URNs in paths and query values are percent-encoded, Rest.li lists are written `List(a,b)`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/protocol-version). The OpenID
 * `/v2/userinfo` endpoint is not versioned and gets no `LinkedIn-Version`.
 *
 * Error body `{status, serviceErrorCode, code, message}`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling); mapping:
 * - 401 (INVALID_ACCESS_TOKEN, REVOKED_ACCESS_TOKEN, EXPIRED_ACCESS_TOKEN) -> NetworkAuthError;
 * - 403 (ACCESS_DENIED: a scope or role is missing) -> LinkedInAccessDeniedError (a NetworkAuthError);
 * - 429 (daily application / member throttles) -> NetworkRateLimitError after `Retry-After` when sent,
 *   else until the UTC day resets (LinkedIn's throttles are counted per UTC day);
 * - 5xx, timeouts, lost connections -> NetworkTransientError (`afterCreate` for create calls);
 * - 426 (the `LinkedIn-Version` is not active) and anything else (400, 404, 422: refused content)
 *   -> NetworkRejectedError with LinkedIn's message.
 */
import { sendJson } from "../json-call.ts";
import { safeMessage } from "../network-text.ts";
import { retryAfterSeconds, type SocialHttp } from "../http.ts";
import {
  NetworkAuthError,
  type NetworkError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../network.ts";

export const LINKEDIN_API = "https://api.linkedin.com";
/** Rest.li protocol version sent with every call (`X-Restli-Protocol-Version`). */
export const RESTLI_PROTOCOL_VERSION = "2.0.0";

/** What every LinkedIn call needs: the adapter's HTTP, the `LinkedIn-Version` (YYYYMM) and the clock. */
export interface LinkedInClient {
  http: SocialHttp;
  version: string;
  now(): Date;
}

/** LinkedIn refused a call for a missing scope or role (HTTP 403 ACCESS_DENIED). */
export class LinkedInAccessDeniedError extends NetworkAuthError {}

export interface LinkedInCall {
  method: "GET" | "POST";
  /** Path and query under https://api.linkedin.com, already encoded (`encodeUrn`, `restliList`). */
  path: string;
  /** JSON body (POST). */
  json?: unknown;
  accessToken: string;
  /** `X-RestLi-Method` (e.g. `FINDER` for `q=` queries), when the endpoint documents it. */
  restliMethod?: string | undefined;
  /** True for calls that create a post (a lost answer means the outcome is unknown). */
  create?: boolean;
  signal?: AbortSignal | undefined;
}

export interface LinkedInAnswer<T> {
  status: number;
  /** The parsed JSON body (`{}` when empty, e.g. 201 Created of `POST /rest/posts`). */
  body: T;
  headers: Headers;
}

interface ErrorBody {
  status?: number;
  serviceErrorCode?: number;
  code?: string;
  message?: string;
}

/** A URN as a path segment or query value (`urn:li:person:abc` -> `urn%3Ali%3Aperson%3Aabc`). */
export function encodeUrn(urn: string): string {
  return encodeURIComponent(urn);
}

/** A Rest.li 2.0 list of URNs as a query value: `List(urn%3A...,urn%3A...)`. */
export function restliList(urns: readonly string[]): string {
  return `List(${urns.map(encodeUrn).join(",")})`;
}

/** Seconds from `now` until the next 00:00 UTC (at least 1): when LinkedIn's daily throttles reset. */
export function secondsUntilUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** The headers of every API call besides the bearer token: the Rest.li protocol, and for `/rest/` the version. */
function linkedinHeaders(client: LinkedInClient, path: string): Record<string, string> {
  const headers: Record<string, string> = { "x-restli-protocol-version": RESTLI_PROTOCOL_VERSION };
  if (path.startsWith("/rest/")) headers["linkedin-version"] = client.version;
  return headers;
}

/**
 * Sends one call to https://api.linkedin.com through the client's HTTP.
 * @returns the status, JSON body and headers of a 2xx answer (`x-restli-id` of a created entity is a header).
 * @throws NetworkAuthError | LinkedInAccessDeniedError | NetworkRateLimitError | NetworkRejectedError |
 *   NetworkTransientError (see the module comment).
 */
export async function linkedinRequest<T = Record<string, unknown>>(
  client: LinkedInClient,
  call: LinkedInCall,
): Promise<LinkedInAnswer<T>> {
  const headers = linkedinHeaders(client, call.path);
  if (call.restliMethod) headers["x-restli-method"] = call.restliMethod;
  const sent = await sendJson(client.http, {
    network: "LinkedIn",
    method: call.method,
    url: `${LINKEDIN_API}${call.path}`,
    accessToken: call.accessToken,
    headers,
    json: call.json,
    create: call.create,
    signal: call.signal,
  });
  const { res } = sent;
  const body = sent.raw ? sent.body : {};
  if (res.ok) {
    if (body === undefined)
      throw new NetworkTransientError("LinkedIn answered no JSON", call.create === true);
    return { status: res.status, body: body as T, headers: res.headers };
  }
  throw linkedinError(res, body as ErrorBody | undefined, {
    afterCreate: call.create === true,
    now: client.now(),
    version: client.version,
  });
}

/** Maps a failed LinkedIn answer (`res` with its parsed error body) to the adapter error. */
export function linkedinError(
  res: Response,
  body: ErrorBody | undefined,
  context: { afterCreate: boolean; now: Date; version: string },
): NetworkError {
  const code = body?.code ?? (body?.serviceErrorCode ? String(body.serviceErrorCode) : String(res.status));
  const message = safeMessage(body?.message || `HTTP ${res.status}`);
  if (res.status === 401) {
    return new NetworkAuthError(`LinkedIn refused the account's credentials (${code}): ${message}`);
  }
  if (res.status === 403) {
    return new LinkedInAccessDeniedError(`LinkedIn refused the permission (${code}): ${message}`);
  }
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers, context.now) ?? secondsUntilUtcMidnight(context.now);
    return new NetworkRateLimitError(`rate limited by LinkedIn: ${message}`, wait);
  }
  if (res.status >= 500) {
    return new NetworkTransientError(
      `LinkedIn failed temporarily (${code}): ${message}`,
      context.afterCreate,
    );
  }
  if (res.status === 426) {
    return new NetworkRejectedError(
      `LinkedIn no longer serves API version ${context.version} (set LINKEDIN_VERSION to an active YYYYMM): ${message}`,
    );
  }
  return new NetworkRejectedError(`LinkedIn refused the request (${code}): ${message}`);
}
