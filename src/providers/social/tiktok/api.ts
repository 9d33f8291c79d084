/**
 * TikTok Open API calls shared by the TikTok OAuth, creator info and publisher: one JSON request function over
 * a `SocialHttp` (../http.ts) and the mapping of TikTok's envelope `{data, error:{code,message,log_id}}`
 * (`code: "ok"` on success) to the adapter errors of ../network.ts.
 *
 * Mapping (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post "Error codes",
 * .../doc/tiktok-api-v2-error-handling):
 * - `access_token_invalid`, `scope_not_authorized`, `scope_permission_missed`, HTTP 401 -> NetworkAuthError;
 * - `rate_limit_exceeded`, HTTP 429 -> NetworkRateLimitError (Retry-After, else 60 s);
 * - `internal_error`, HTTP 5xx, timeouts, lost connections -> NetworkTransientError;
 * - anything else (`spam_risk_too_many_posts`, `privacy_level_option_mismatch`, `invalid_param`,
 *   `url_ownership_unverified`, `reached_active_user_cap`, ...) -> NetworkRejectedError naming the code.
 */
import { retryAfterSeconds, type SocialHttp } from "../http.ts";
import {
  NetworkAuthError,
  type NetworkError,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
} from "../network.ts";
import { sendJson } from "../json-call.ts";
import { safeMessage } from "../network-text.ts";

export const TIKTOK_API = "https://open.tiktokapis.com";

const DEFAULT_RATE_LIMIT_SECONDS = 60;
const AUTH_CODES = new Set(["access_token_invalid", "scope_not_authorized", "scope_permission_missed"]);

/** A TikTok API error with the network's code (for callers that branch on it, e.g. "cannot post now"). */
export class TikTokRejectedError extends NetworkRejectedError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`TikTok refused the request (${code}): ${message}`);
  }
}

export interface TikTokCall {
  method: "GET" | "POST";
  /** Path on open.tiktokapis.com, e.g. `/v2/post/publish/status/fetch/`. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  accessToken: string;
  create?: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * Sends one TikTok API call through `http`; returns `data` and the raw text (for 64-bit ids beyond 2^53).
 * @throws NetworkAuthError | NetworkRateLimitError | TikTokRejectedError | NetworkTransientError
 */
export async function tiktokRequest<T = Record<string, unknown>>(
  http: SocialHttp,
  call: TikTokCall,
): Promise<{ data: T; raw: string }> {
  const sent = await sendJson(http, {
    network: "TikTok",
    method: call.method,
    url: `${TIKTOK_API}${call.path}`,
    query: call.query,
    accessToken: call.accessToken,
    json: call.json,
    jsonType: "application/json; charset=UTF-8",
    create: call.create,
    signal: call.signal,
  });
  const { res, raw } = sent;
  const body = sent.body as { data?: T; error?: { code?: string; message?: string } } | undefined;
  const code = body?.error?.code;
  if (res.ok && body && (code === "ok" || code === undefined)) return { data: (body.data ?? {}) as T, raw };
  throw tiktokError(res, code, body?.error?.message, call.create === true);
}

/** Maps a failed TikTok answer to the adapter error (see the module comment). */
export function tiktokError(
  res: Response,
  code: string | undefined,
  message: string | undefined,
  afterCreate: boolean,
): NetworkError {
  const text = safeMessage(message || `HTTP ${res.status}`);
  if ((code && AUTH_CODES.has(code)) || res.status === 401) {
    return new NetworkAuthError(`TikTok refused the account's credentials (${code ?? res.status}): ${text}`);
  }
  if (code === "rate_limit_exceeded" || res.status === 429) {
    return new NetworkRateLimitError(
      `rate limited by TikTok: ${text}`,
      retryAfterSeconds(res.headers) ?? DEFAULT_RATE_LIMIT_SECONDS,
    );
  }
  if (code === "internal_error" || res.status >= 500 || !code) {
    return new NetworkTransientError(
      `TikTok failed temporarily (${code ?? res.status}): ${text}`,
      afterCreate,
    );
  }
  return new TikTokRejectedError(code, text);
}

/** The ids of `"name": [ ... ]` in raw JSON text as strings (TikTok writes int64 ids as JSON numbers). */
export function rawIdList(raw: string, name: string): string[] {
  const m = new RegExp(`"${name}"\\s*:\\s*\\[([^\\]]*)\\]`).exec(raw);
  if (!m) return [];
  return m[1]!
    .split(",")
    .map((s) => s.trim().replace(/^"|"$/g, ""))
    .filter(Boolean);
}
