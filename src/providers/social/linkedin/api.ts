/**
 * LinkedIn API calls shared by the LinkedIn OAuth, publisher and metrics: one JSON request function over a
 * `SocialHttp` (../http.ts) for `https://api.linkedin.com`, and the mapping of LinkedIn's error answers by
 * its table (./table.ts) through ../api-errors.ts.
 *
 * Versioned REST (`/rest/...`, networks.md 2.5; https://learn.microsoft.com/en-us/linkedin/marketing/versioning):
 * every call sends `LinkedIn-Version: YYYYMM` (config `LINKEDIN_VERSION`) and `X-Restli-Protocol-Version:
 * 2.0.0`; URNs in paths and query values are percent-encoded, Rest.li lists are written `List(a,b)`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/protocol-version). The OpenID
 * `/v2/userinfo` endpoint is not versioned and gets no `LinkedIn-Version`.
 *
 * Error body `{status, serviceErrorCode, code, message}`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling); besides the table:
 * - 403 (ACCESS_DENIED: a scope or role is missing) -> LinkedInAccessDeniedError (a NetworkAuthError);
 * - 426 (the `LinkedIn-Version` is not active) -> NetworkRejectedError naming LINKEDIN_VERSION;
 * - any other refusal -> LinkedInRejectedError carrying the HTTP status (404: the entity does not exist).
 */
import { apiError } from "../api-errors.ts";
import type { SocialHttp } from "../http.ts";
import { type ApiCall, apiRequest } from "../json-call.ts";
import {
  NetworkAuthError,
  type NetworkError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../network.ts";
import { safeMessage } from "../network-text.ts";
import { LINKEDIN } from "./table.ts";

export { LINKEDIN_API, secondsUntilUtcMidnight } from "./table.ts";

/** What every LinkedIn call needs: the adapter's HTTP, the `LinkedIn-Version` (YYYYMM) and the clock. */
export interface LinkedInClient {
  http: SocialHttp;
  version: string;
  now(): Date;
}

/** LinkedIn refused a call for a missing scope or role (HTTP 403 ACCESS_DENIED). */
export class LinkedInAccessDeniedError extends NetworkAuthError {}

/** LinkedIn refused a call (a 4xx other than 401, 403, 426, 429), with the HTTP status (404: no such entity). */
export class LinkedInRejectedError extends NetworkRejectedError {
  readonly status: number;
  constructor(status: number, reason: string) {
    super(reason);
    this.status = status;
  }
}

/** One call: `path` and query under https://api.linkedin.com, already encoded (`encodeUrn`, `restliList`). */
export interface LinkedInCall extends ApiCall {
  accessToken: string;
  /** `X-RestLi-Method` (e.g. `FINDER` for `q=` queries), when the endpoint documents it. */
  restliMethod?: string | undefined;
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
  const headers: Record<string, string> = { ...call.headers };
  if (call.path.startsWith("/rest/")) headers["linkedin-version"] = client.version;
  if (call.restliMethod) headers["x-restli-method"] = call.restliMethod;
  const sent = await apiRequest(LINKEDIN.api, client.http, { ...call, headers });
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
  const code = body?.code ?? (body?.serviceErrorCode ? String(body.serviceErrorCode) : undefined);
  const text = safeMessage(body?.message || `HTTP ${res.status}`);
  if (res.status === 403)
    return new LinkedInAccessDeniedError(`LinkedIn refused the permission (${code ?? res.status}): ${text}`);
  if (res.status === 426)
    return new NetworkRejectedError(
      `LinkedIn no longer serves API version ${context.version} (set LINKEDIN_VERSION to an active YYYYMM): ${text}`,
    );
  return apiError(
    LINKEDIN.api,
    { status: res.status, headers: res.headers, code, text },
    { ...context, rejected: (reason) => new LinkedInRejectedError(res.status, reason) },
  );
}

/**
 * PUTs upload bytes (an image, a document, a video part) to an upload URL LinkedIn returned, used as it is (absolute; not
 * rewritten again by the override), with the bearer token when given.
 * @param what the upload's name in messages ("image 2", "document of 6 pages", "video part 1 of 3").
 * @returns the 2xx answer (its body read; a video part's `ETag` is in its headers).
 * @throws NetworkTransientError (no answer, 5xx, 429) | NetworkAuthError (401) | NetworkRejectedError.
 */
export async function putUploadBytes(
  client: LinkedInClient,
  upload: {
    url: string;
    bytes: Buffer;
    contentType: string;
    accessToken?: string | undefined;
    signal?: AbortSignal | undefined;
    timeoutSeconds: number;
  },
  what: string,
): Promise<Response> {
  const kind = what.startsWith("image") ? "image" : what.startsWith("document") ? "document" : "video";
  let res: Response;
  try {
    res = await client.http.fetch(upload.url, {
      method: "PUT",
      headers: {
        ...(upload.accessToken ? { authorization: `Bearer ${upload.accessToken}` } : {}),
        "content-type": upload.contentType,
      },
      body: new Uint8Array(upload.bytes),
      signal: upload.signal,
      timeoutSeconds: upload.timeoutSeconds,
    });
    await res.arrayBuffer();
  } catch (err) {
    throw new NetworkTransientError(`the LinkedIn ${kind} upload did not answer (${(err as Error).name})`);
  }
  if (res.status >= 500 || res.status === 429)
    throw new NetworkTransientError(`the LinkedIn ${kind} upload failed (HTTP ${res.status})`);
  if (res.status === 401)
    throw new NetworkAuthError("LinkedIn refused the account's credentials for the upload");
  if (!res.ok) throw new NetworkRejectedError(`LinkedIn refused ${what} (HTTP ${res.status}).`);
  return res;
}
