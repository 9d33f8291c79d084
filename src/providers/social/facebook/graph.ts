/**
 * Meta Graph API calls shared by the Facebook Pages and Instagram adapters: one request function over a
 * `SocialHttp` (../http.ts, the adapter's `deps.http`) and the Graph API's error table, read by
 * ../api-errors.ts to map a failed answer to the adapter errors of ../network.ts.
 *
 * Error envelope `{error:{message,type,code,error_subcode,fbtrace_id,is_transient}}`; the table
 * (https://developers.facebook.com/docs/graph-api/guides/error-handling, .../overview/rate-limiting):
 * - code 190 (invalid/expired/revoked token), 102 (session), 10 and 200-299 (permission) -> auth, except
 *   code 10 "Not enough viewers ... to show insights" -> InsightsUnavailableError (no insights yet);
 * - HTTP 429, codes 4, 17, 32, 613 and 80001-80014 (app, user, page, business use case limits)
 *   -> rate limit (Retry-After when sent, else the BUC header's time to regain access, else 60 s);
 * - codes 1, 2, `is_transient`, HTTP 5xx, timeouts, lost connections -> transient;
 * - anything else -> rejected with the network's message.
 */
import { apiError, DEFAULT_RATE_LIMIT_SECONDS } from "../api-errors.ts";
import { retryAfterSeconds, type SocialHttp } from "../http.ts";
import { apiRequest } from "../json-call.ts";
import type { DeliveryJob, NetworkError } from "../network.ts";
import { NetworkAuthError, NetworkRejectedError } from "../network.ts";
import { type ApiTable, codeRange } from "../network-table.ts";
import { safeMessage } from "../network-text.ts";
import { metaUsageStop } from "../usage.ts";

/** The Graph API version the adapters call (Instagram and Facebook share the versioning). */
export const GRAPH_VERSION = "v23.0";

/** The Graph API's table (see the module comment); the two Meta networks' tables take it as their `api`. */
export const META_GRAPH_API: ApiTable = {
  name: "the network",
  base: "https://graph.facebook.com",
  errors: {
    auth: [190, 102, 10, ...codeRange(200, 299)],
    rateLimit: [4, 17, 32, 613, ...codeRange(80001, 80014)],
    appRateLimit: [4],
    transient: [1, 2],
    rateLimitWait: (headers, now) =>
      retryAfterSeconds(headers, now) ?? bucWait(headers) ?? DEFAULT_RATE_LIMIT_SECONDS,
  },
  // A 200 whose X-App-Usage / X-Business-Use-Case-Usage is at its limit (../usage.ts).
  usage: (headers) => metaUsageStop(headers),
};

export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_msg?: string;
}

export interface GraphCall {
  method: "GET" | "POST" | "DELETE";
  /** Absolute `https://` URL without the query (the version prefix included by the caller). */
  url: string;
  /** Query (GET, DELETE) or urlencoded body (POST) parameters. */
  params?: Record<string, string | undefined>;
  /** Sent as `Authorization: Bearer` (never in the URL, so it never reaches an access log). */
  accessToken?: string | undefined;
  /** True for calls that create something on the network (a lost answer means outcome unknown). */
  create?: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * Sends one Graph API call through `http` and returns the parsed JSON body plus its raw text (for ids
 * beyond 2^53).
 * @throws NetworkAuthError | NetworkRateLimitError | NetworkRejectedError | NetworkTransientError
 */
export async function graphRequest<T = Record<string, unknown>>(
  http: SocialHttp,
  call: GraphCall,
): Promise<{ body: T; raw: string }> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(call.params ?? {})) if (v !== undefined) params.set(k, v);
  const get = call.method !== "POST";
  const sent = await apiRequest(META_GRAPH_API, http, {
    method: call.method,
    path: call.url,
    query: get ? call.params : undefined,
    accessToken: call.accessToken,
    ...(get
      ? {}
      : { headers: { "content-type": "application/x-www-form-urlencoded" }, body: params.toString() }),
    create: call.create,
    signal: call.signal,
  });
  const { res, raw } = sent;
  const parsed = raw ? sent.body : {};
  if (res.ok && parsed && typeof parsed === "object" && !("error" in parsed))
    return { body: parsed as T, raw };
  const error = (parsed as { error?: GraphErrorBody } | undefined)?.error;
  throw graphError(res, error, call.create === true);
}

/** Maps a failed Graph API answer to the adapter error (see the module comment). */
export function graphError(
  res: Response,
  error: GraphErrorBody | undefined,
  afterCreate: boolean,
): NetworkError {
  const text = safeMessage(error?.error_user_msg ?? error?.message ?? `HTTP ${res.status}`);
  // Code 10 also answers "(#10) Not enough viewers for the media to show insights": no credentials problem.
  if (error?.code === 10 && /not enough viewers/i.test(error.message ?? ""))
    return new InsightsUnavailableError(text);
  const code = error?.code;
  const permission = code === 10 || (code !== undefined && code >= 200 && code <= 299);
  return apiError(
    META_GRAPH_API,
    { status: res.status, headers: res.headers, code, text, transient: error?.is_transient },
    {
      afterCreate,
      now: new Date(),
      auth: permission ? (reason) => new GraphPermissionError(reason) : undefined,
    },
  );
}

/**
 * The token lacks a permission the call needs (Graph codes 10 and 200-299): a NetworkAuthError (publishing
 * needs the account reconnected with it), which a metrics read may instead report as one refused metric.
 * `permission` is the one Facebook names (`... requires the 'read_insights' permission`), when it does.
 */
export class GraphPermissionError extends NetworkAuthError {
  readonly permission: string | undefined;
  constructor(reason: string) {
    super(reason);
    this.permission = /'([a-z_]+)' permission/.exec(reason)?.[1];
  }
}

/**
 * The network has no insights for this object (Instagram: "(#10) Not enough viewers for the media to show
 * insights", https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights).
 * The metrics it would give are null, not an error of the sync.
 */
export class InsightsUnavailableError extends NetworkRejectedError {
  override name = "InsightsUnavailableError";
}

/**
 * The values of a Graph insights answer `{data: [{name, period, values: [{value}]} | {name, total_value:
 * {value}}]}` by metric name. A metric the answer does not hold stays absent: Meta answers an empty data set
 * (not 0) when the data does not exist or is unavailable, and the caller reports it as null.
 */
export function insightValues(body: { data?: unknown }): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of Array.isArray(body.data) ? body.data : []) {
    const r = row as {
      name?: unknown;
      values?: Array<{ value?: unknown }>;
      total_value?: { value?: unknown };
    };
    const v = r.total_value?.value ?? r.values?.[0]?.value;
    if (typeof r.name === "string" && typeof v === "number" && Number.isFinite(v) && v >= 0)
      out.set(r.name, v);
  }
  return out;
}

/** Seconds until access returns, from `X-Business-Use-Case-Usage` (`estimated_time_to_regain_access`, minutes). */
function bucWait(headers: Headers): number | undefined {
  const v = headers.get("x-business-use-case-usage");
  if (!v) return undefined;
  try {
    const usage = JSON.parse(v) as Record<string, Array<{ estimated_time_to_regain_access?: number }>>;
    const minutes = Math.max(
      0,
      ...Object.values(usage)
        .flat()
        .map((u) => u.estimated_time_to_regain_access ?? 0),
    );
    return minutes > 0 ? minutes * 60 : undefined;
  } catch {
    return undefined;
  }
}

/** How many of an account's newest posts or media a lost create is looked for among. */
export const RECENT_ITEMS = 25;

/**
 * The item of a Graph edge that a lost create made: among the newest `RECENT_ITEMS` of `url` (an absolute
 * edge URL such as `.../{page-id}/feed` or `.../{ig-user-id}/media`, read with `fields` and the job's
 * account token), the first whose text (`text(item)`) is the post's caption, created (`created(item)`, a
 * Graph time such as `2026-01-02T03:04:05+0000`) no earlier than `since` less a minute of clock skew, and
 * passing `also` when given.
 * @throws the errors of `graphRequest`.
 */
export async function findRecentItem<T>(
  http: SocialHttp,
  job: DeliveryJob,
  edge: { url: string; fields: string },
  match: { text(item: T): string | undefined; created(item: T): string | undefined; also?(item: T): boolean },
  since: number,
): Promise<T | undefined> {
  const r = await graphRequest<{ data?: T[] }>(http, {
    method: "GET",
    url: edge.url,
    params: { fields: edge.fields, limit: String(RECENT_ITEMS) },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  const from = since - 60_000;
  return (r.body.data ?? []).find((item) => {
    const created = match.created(item);
    return (
      (match.text(item) ?? "") === (job.post.caption ?? "") &&
      (!created || Date.parse(created.replace(/\+0000$/, "Z")) >= from) &&
      (match.also?.(item) ?? true)
    );
  });
}
