/**
 * Pinterest API v5 calls shared by the Pinterest OAuth, boards, publisher and metrics: one JSON request
 * function over a `SocialHttp` (../http.ts); a failure `{code, message}` is mapped by Pinterest's table
 * (./table.ts) through ../api-errors.ts, a refusal carrying Pinterest's code (`PinterestRejectedError`).
 */
import { apiError } from "../api-errors.ts";
import type { SocialHttp } from "../http.ts";
import { type ApiCall, apiRequest } from "../json-call.ts";
import { type NetworkError, NetworkRejectedError } from "../network.ts";
import { safeMessage } from "../network-text.ts";
import { PINTEREST } from "./table.ts";

/** A Pinterest refusal with the network's code (callers branch on `code`, e.g. 40 "Board not found."). */
export class PinterestRejectedError extends NetworkRejectedError {
  readonly code: number | undefined;
  readonly status: number;
  constructor(code: number | undefined, status: number, reason: string) {
    super(reason);
    this.code = code;
    this.status = status;
  }
}

/** One API v5 call: `path` under `/v5`, e.g. `/pins` or `/boards/123/pins`. */
export interface PinterestCall extends ApiCall {
  accessToken: string;
}

/**
 * Sends one API v5 call through `http` and returns the parsed JSON body (`{}` for an empty body).
 * @throws NetworkAuthError | NetworkRateLimitError | PinterestRejectedError | NetworkTransientError
 */
export async function pinterestRequest<T = Record<string, unknown>>(
  http: SocialHttp,
  call: PinterestCall,
): Promise<T> {
  const { res, body } = await apiRequest(PINTEREST.api, http, call);
  if (res.ok) return (body ?? {}) as T;
  throw pinterestError(res, body as PinterestErrorBody | undefined, call.create === true);
}

/** Pinterest's error body. */
export interface PinterestErrorBody {
  code?: number;
  message?: string;
}

/** Maps a failed Pinterest answer to the adapter error (./table.ts, ../api-errors.ts). */
export function pinterestError(
  res: Response,
  body: PinterestErrorBody | undefined,
  afterCreate: boolean,
): NetworkError {
  const code = typeof body?.code === "number" ? body.code : undefined;
  return apiError(
    PINTEREST.api,
    {
      status: res.status,
      headers: res.headers,
      code,
      text: safeMessage(body?.message || `HTTP ${res.status}`),
    },
    {
      afterCreate,
      now: new Date(),
      rejected: (reason) => new PinterestRejectedError(code, res.status, reason),
    },
  );
}
