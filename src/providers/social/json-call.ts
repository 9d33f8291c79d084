/**
 * The transport half of the network adapters' API calls (Pinterest, LinkedIn, X, TikTok, YouTube, and the
 * Meta Graph API of ./facebook/graph.ts): one request through the adapter's `SocialHttp` (./http.ts) with the
 * user's OAuth 2.0 bearer token when given (RFC 6750 section 2.1) and a JSON (or raw) body, the answer read
 * as text and parsed leniently; `apiRequest` addresses it by the network's table (./network-table.ts). Each
 * network reads its answer in its own `api.ts` and maps a failure with ./api-errors.ts; a lost connection is
 * the one error this module raises.
 */
import type { SocialHttp } from "./http.ts";
import type { ApiTable } from "./network-table.ts";
import { NetworkRateLimitError, NetworkTransientError } from "./network.ts";
import { parseJson } from "./network-text.ts";
import { reportUsage, usageBlocked } from "./usage.ts";

/** One API call. */
export interface JsonCall {
  /** The network's name in the lost-connection message ("Pinterest did not answer (TimeoutError)"). */
  network: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Absolute `https://` URL (it may carry a query of its own). */
  url: string;
  /** Query parameters added to `url` (undefined values left out). */
  query?: Record<string, string | undefined> | undefined;
  /** Sent as `Authorization: Bearer` when given (never in the URL, so it never reaches an access log). */
  accessToken: string | undefined;
  /** Further request headers (e.g. `accept`, the network's version headers). */
  headers?: Record<string, string>;
  /** Sent as JSON with `Content-Type: {jsonType}`. */
  json?: unknown;
  /** The content type of a `json` body (default `application/json`). */
  jsonType?: string;
  /** A body sent as it is when there is no `json` (multipart `FormData`, upload bytes). */
  body?: string | FormData | Uint8Array<ArrayBuffer>;
  /** True for calls that create something on the network (a lost answer means the outcome is unknown). */
  create?: boolean;
  signal?: AbortSignal | undefined;
  /** Request timeout, seconds (default ./http.ts SOCIAL_HTTP_TIMEOUT_SECONDS). */
  timeoutSeconds?: number | undefined;
  /** `manual` to get a 3xx as it is (YouTube's resumable upload answers 308). */
  redirect?: RequestRedirect;
}

/** The answer: the response, its body text, and that text parsed (undefined when empty or not JSON). */
export interface JsonAnswer {
  res: Response;
  raw: string;
  body: unknown;
}

/**
 * Sends `call` through `http` and reads the whole answer, whatever its status.
 * @throws NetworkTransientError (`afterCreate` = `call.create`) when the network does not answer: lost
 *   connection, timeout, or the body cut off.
 */
export async function sendJson(http: SocialHttp, call: JsonCall): Promise<JsonAnswer> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.accessToken) headers.authorization = `Bearer ${call.accessToken}`;
  let body = call.body;
  if (call.json !== undefined) {
    headers["content-type"] = call.jsonType ?? "application/json";
    body = JSON.stringify(call.json);
  }
  let res: Response;
  let raw: string;
  const url = new URL(call.url);
  for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
  try {
    res = await http.fetch(url.toString(), {
      method: call.method,
      headers,
      body,
      signal: call.signal,
      timeoutSeconds: call.timeoutSeconds,
      ...(call.redirect ? { redirect: call.redirect } : {}),
    });
    raw = await res.text();
  } catch (err) {
    throw new NetworkTransientError(
      `${call.network} did not answer (${(err as Error).name})`,
      call.create === true,
    );
  }
  return { res, raw, body: parseJson(raw) };
}

/** One call of a network's API: a `JsonCall` addressed by a path under the network's table (`ApiTable`). */
export interface ApiCall extends Omit<JsonCall, "network" | "url"> {
  /** A path under the table's `base` (it may carry a query), or an absolute `https://` URL used as it is. */
  path: string;
}

/**
 * Sends `call` to `api` (./network-table.ts): its base URL, its headers under the call's, its JSON content
 * type unless the call names one, and its name in the lost-connection message. A 2xx answer whose headers
 * say a budget is spent (the table's `usage`) is reported to `observeUsage` (./usage.ts).
 * @throws NetworkTransientError as `sendJson`; NetworkRateLimitError, without sending, when an earlier
 *   answer in the same `observeUsage` context ended calls.
 */
export async function apiRequest(api: ApiTable, http: SocialHttp, call: ApiCall): Promise<JsonAnswer> {
  const { path, ...rest } = call;
  // An earlier answer of the same read said the budget is spent: no further call (./usage.ts).
  const blocked = usageBlocked();
  if (blocked)
    throw new NetworkRateLimitError(
      `${api.name} said the budget is spent (${blocked.source})`,
      blocked.seconds,
      blocked.scope,
    );
  const answer = await sendJson(http, {
    ...rest,
    network: api.name,
    url: path.startsWith("https://") ? path : `${api.base}${path}`,
    headers: { ...api.headers, ...call.headers },
    jsonType: call.jsonType ?? api.jsonType,
  });
  // A 2xx answer may say the budget is spent (./usage.ts): the caller observing usage stops calling.
  if (answer.res.ok && api.usage) reportUsage(api.usage(answer.res.headers, new Date()));
  return answer;
}
