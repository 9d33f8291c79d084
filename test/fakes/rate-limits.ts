/**
 * Each network's own answer to a request over its rate limit (test only), for `FakeNetworkServer.fault`'s
 * `network_rate_limit`: the status, body and headers the network documents, with the wait said the way that
 * network says it (never a Retry-After where the network sends none).
 */
import { randomBytes } from "node:crypto";
import type { FakeResponse } from "./server.ts";

/**
 * The answer of `host` when its limit is reached for `seconds` more:
 * - Graph (graph.facebook.com, graph.instagram.com): HTTP 400, code 80001 (Pages) / 80002 (Instagram),
 *   `X-Business-Use-Case-Usage` with `estimated_time_to_regain_access` in minutes (at least 1)
 *   (https://developers.facebook.com/docs/graph-api/overview/rate-limiting);
 * - X (api.x.com): HTTP 429 problem `Too Many Requests` with `x-rate-limit-limit`, `x-rate-limit-remaining: 0`
 *   and `x-rate-limit-reset` (epoch seconds) (https://docs.x.com/x-api/fundamentals/rate-limits);
 * - Pinterest (api.pinterest.com): HTTP 429 `{code: 8, message}` with `x-ratelimit-limit`,
 *   `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (seconds until the window resets)
 *   (https://developers.pinterest.com/docs/reference/ratelimits/).
 * @throws for a host without a documented shape here.
 */
export function networkRateLimit(host: string, seconds: number, now: Date = new Date()): FakeResponse {
  if (host === "graph.facebook.com" || host === "graph.instagram.com") {
    const instagram = host === "graph.instagram.com";
    const minutes = Math.max(1, Math.ceil(seconds / 60));
    const usage = {
      [randomBytes(6).toString("hex")]: [
        {
          type: instagram ? "instagram" : "pages",
          call_count: 100,
          total_cputime: 23,
          total_time: 41,
          estimated_time_to_regain_access: minutes,
        },
      ],
    };
    return {
      status: 400,
      headers: { "x-business-use-case-usage": JSON.stringify(usage) },
      body: {
        error: {
          message: instagram
            ? "There have been too many calls for this Instagram account. Wait a bit and try again."
            : "There have been too many calls to this Page account. Wait a bit and try again.",
          type: "OAuthException",
          code: instagram ? 80002 : 80001,
          fbtrace_id: randomBytes(8).toString("base64url"),
        },
      },
    };
  }
  if (host === "api.x.com")
    return {
      status: 429,
      headers: {
        "content-type": "application/problem+json",
        "x-rate-limit-limit": "300",
        "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": String(Math.ceil(now.getTime() / 1000) + seconds),
      },
      raw: JSON.stringify({
        title: "Too Many Requests",
        detail: "Too Many Requests",
        type: "about:blank",
        status: 429,
      }),
    };
  if (host === "api.pinterest.com")
    return {
      status: 429,
      headers: {
        "x-ratelimit-limit": "1000, 1000;w=60",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(seconds),
      },
      body: { code: 8, message: "You have exceeded your rate limit. Try again later." },
    };
  throw new Error(`no documented rate-limit answer for ${host}`);
}
