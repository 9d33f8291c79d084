/**
 * TikTok Open API calls shared by the TikTok OAuth, creator info, publisher and metrics: one JSON request
 * function over a `SocialHttp` (../http.ts) reading TikTok's envelope `{data, error:{code,message,log_id}}`
 * (`code: "ok"` on success); a failure is mapped by TikTok's error table (./table.ts) through
 * ../api-errors.ts, a refusal carrying TikTok's code (`TikTokRejectedError`).
 */
import { apiError } from "../api-errors.ts";
import type { SocialHttp } from "../http.ts";
import { type ApiCall, apiRequest } from "../json-call.ts";
import { type NetworkError, NetworkRejectedError } from "../network.ts";
import { safeMessage } from "../network-text.ts";
import { TIKTOK } from "./table.ts";

/** A TikTok API error with the network's code (for callers that branch on it, e.g. "cannot post now"). */
export class TikTokRejectedError extends NetworkRejectedError {
  readonly code: string;
  constructor(code: string, reason: string) {
    super(reason);
    this.code = code;
  }
}

/** One TikTok API call: `path` on open.tiktokapis.com, e.g. `/v2/post/publish/status/fetch/`. */
export interface TikTokCall extends ApiCall {
  accessToken: string;
}

/**
 * Sends one TikTok API call through `http`; returns `data` and the raw text (for 64-bit ids beyond 2^53).
 * @throws NetworkAuthError | NetworkRateLimitError | TikTokRejectedError | NetworkTransientError
 */
export async function tiktokRequest<T = Record<string, unknown>>(
  http: SocialHttp,
  call: TikTokCall,
): Promise<{ data: T; raw: string }> {
  const { res, raw, body: parsed } = await apiRequest(TIKTOK.api, http, call);
  const body = parsed as { data?: T; error?: { code?: string; message?: string } } | undefined;
  const code = body?.error?.code;
  if (res.ok && body && (code === "ok" || code === undefined)) return { data: (body.data ?? {}) as T, raw };
  throw tiktokError(res, code, body?.error?.message, call.create === true);
}

/** Maps a failed TikTok answer to the adapter error (./table.ts, ../api-errors.ts). */
export function tiktokError(
  res: Response,
  code: string | undefined,
  message: string | undefined,
  afterCreate: boolean,
): NetworkError {
  return apiError(
    TIKTOK.api,
    { status: res.status, headers: res.headers, code, text: safeMessage(message || `HTTP ${res.status}`) },
    { afterCreate, now: new Date(), rejected: (reason) => new TikTokRejectedError(code ?? "", reason) },
  );
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
