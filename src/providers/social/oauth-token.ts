/**
 * The OAuth 2.0 token endpoint call every network adapter with a standard token endpoint shares (X, YouTube,
 * LinkedIn, Pinterest, TikTok): the access token request of the authorization code grant (RFC 6749 section
 * 4.1.3) and of the refresh (section 6), and the reading of its answer (sections 5.1 and 5.2).
 *
 * Request: `POST {url}` with an `application/x-www-form-urlencoded` body. The client authenticates
 * (section 2.3.1) either by HTTP Basic (`Authorization: Basic base64(urlencode(client_id):urlencode(
 * client_secret))`) or with its id and secret in the body (`client_id` or the network's own name for it,
 * e.g. TikTok's `client_key`, and `client_secret`).
 *
 * Answer:
 * - success (2xx with `access_token`, section 5.1) -> TokenSet: `accessToken`, `refreshToken` (when sent),
 *   `expiresAt` = now + `expires_in` seconds (absent or 0: none), `refreshExpiresAt` = now +
 *   `refresh_token_expires_in` (LinkedIn, Pinterest, Google) or `refresh_expires_in` (TikTok) seconds when
 *   sent, `scopes` = `scope` split on spaces and/or commas (when the answer names none: `previousScopes`);
 * - no answer (lost connection, timeout) or HTTP 5xx -> NetworkTransientError;
 * - HTTP 429 -> the caller's `rateLimited` error, else NetworkTransientError;
 * - any other answer (section 5.2 `{error, error_description}`, Pinterest's `{code, message}`, or no JSON)
 *   -> NetworkAuthError naming the network's error with its message made safe (../network-text.ts
 *   `safeMessage`: no token, code or secret reaches the message).
 */
import type { SocialHttp } from "./http.ts";
import {
  type ClientCredentials,
  NetworkAuthError,
  type NetworkError,
  NetworkTransientError,
  type TokenSet,
} from "./network.ts";
import { expiresAt, parseJson, safeMessage, splitScopes } from "./network-text.ts";

/** One token endpoint request. */
export interface TokenRequest {
  /** The network's name in error messages ("X", "Google", "LinkedIn"). */
  network: string;
  /** The token endpoint, an absolute `https://` URL. */
  url: string;
  /** The grant's form parameters (`grant_type`, `code`, `redirect_uri`, `code_verifier`, `refresh_token`, ...). */
  params: Record<string, string>;
  /** The app's client id and secret. */
  credentials: ClientCredentials;
  /** Client authentication (RFC 6749 section 2.3.1): HTTP Basic, or the id and secret in the form body. */
  clientAuth: "basic" | "body";
  /** The form name of the client id with `clientAuth: "body"` (default `client_id`; TikTok: `client_key`). */
  clientIdParam?: string;
  /** Extra request headers (e.g. `accept`, `cache-control`). */
  headers?: Record<string, string>;
  /** Scopes returned when the answer names none (a refresh answer without `scope`). */
  previousScopes?: readonly string[];
  /** The error for an HTTP 429 answer (default NetworkTransientError). */
  rateLimited?: (res: Response) => NetworkError;
}

/** The token endpoint's answer (RFC 6749 sections 5.1 and 5.2, plus the networks' extensions). */
interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  /** Seconds. */
  expires_in?: number;
  /** Seconds (LinkedIn, Pinterest, Google). */
  refresh_token_expires_in?: number;
  /** Seconds (TikTok). */
  refresh_expires_in?: number;
  scope?: string;
  error?: string;
  error_description?: string;
  /** Pinterest's error body `{code, message}`. */
  code?: number | string;
  message?: string;
}

/**
 * Sends one token request through `http` and reads the answer; `now` is the service clock (the lifetimes
 * count from the answer).
 * @returns the TokenSet of the answer (see the module comment).
 * @throws NetworkTransientError | NetworkAuthError | the `rateLimited` error.
 */
export async function requestToken(
  http: SocialHttp,
  now: () => Date,
  request: TokenRequest,
): Promise<TokenSet> {
  const { network, credentials } = request;
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    ...request.headers,
  };
  const form = new URLSearchParams(request.params);
  if (request.clientAuth === "basic") {
    const pair = `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  } else {
    form.set(request.clientIdParam ?? "client_id", credentials.clientId);
    form.set("client_secret", credentials.clientSecret);
  }
  let res: Response;
  let raw: string;
  try {
    res = await http.fetch(request.url, { method: "POST", headers, body: form.toString() });
    raw = await res.text();
  } catch (err) {
    throw new NetworkTransientError(`${network} did not answer the token request (${(err as Error).name})`);
  }
  const body = parseJson(raw) as TokenAnswer | undefined;
  if (!res.ok || typeof body?.access_token !== "string" || !body.access_token) {
    if (res.status === 429 && request.rateLimited) throw request.rateLimited(res);
    if (res.status >= 500 || res.status === 429)
      throw new NetworkTransientError(`${network} failed the token request (HTTP ${res.status})`);
    const why = `${body?.error ?? body?.code ?? `HTTP ${res.status}`}: ${body?.error_description ?? body?.message ?? ""}`;
    throw new NetworkAuthError(`${network} refused the token request (${safeMessage(why)})`);
  }
  const at = now();
  const scopes = splitScopes(body.scope);
  const refreshExpiresAt = expiresAt(at, body.refresh_token_expires_in ?? body.refresh_expires_in);
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    expiresAt: expiresAt(at, body.expires_in),
    ...(refreshExpiresAt ? { refreshExpiresAt } : {}),
    scopes: scopes.length > 0 ? scopes : [...(request.previousScopes ?? [])],
  };
}
