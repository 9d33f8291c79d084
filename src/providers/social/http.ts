/**
 * Outbound HTTP of the network adapters. Every adapter request goes through a `SocialHttp` (`fetch`), so
 * that the test-only override `SOCIAL_HTTP_OVERRIDE=http://127.0.0.1:PORT` can send it to a provider-shaped
 * fake: `https://{host}{path}?{query}` becomes `http://127.0.0.1:PORT/{host}{path}?{query}` with the same
 * method, headers and body. Upload URLs a network returns are absolute URLs the adapter passes as they are:
 * when they already point at the override (the fake returns such URLs) they are not rewritten again.
 *
 * One `SocialHttp` is built per application context (`createSocialHttp`, called by `buildProviders` in
 * src/providers/providers.ts from src/config/networks.ts `social.httpOverride`) and handed to the adapters in their
 * `AdapterDeps`; it is also `ctx.providers.socialHttp`. Config refuses the override when NODE_ENV=production
 * and bootstrap logs a warning when it is set.
 */
import { currentProviderScope, measuredFetch } from "../../observability/metrics.ts";
import { runBeforeNetworkCall } from "./before-call.ts";

/** Default timeout of one adapter request, seconds. */
export const SOCIAL_HTTP_TIMEOUT_SECONDS = 30;

/** The adapters' outbound HTTP of one application context, with its override (if any). */
export interface SocialHttp {
  /** The base URL `http://host:port` requests are rewritten to, or undefined (normal operation). */
  readonly override: string | undefined;
  /**
   * Rewrites an absolute `https://{host}{path}` URL to `{override}/{host}{path}` when the override is set;
   * returns `url` unchanged otherwise, and for URLs that already point at the override or are not https.
   * Used for API calls and for the browser authorize redirect of the connect flow.
   */
  overrideUrl(url: string): string;
  /**
   * `fetch` for adapters: applies the override, a timeout (`timeoutSeconds`, default 30) combined with the
   * caller's `signal`, and never follows redirects silently to another host (redirect: "manual" is left to
   * callers that need it). Returns the Response as is; adapters map statuses to the errors of ./network.ts.
   * @throws the fetch error (TypeError / AbortError / TimeoutError) on connection failure or timeout.
   */
  fetch(url: string, init?: RequestInit & { timeoutSeconds?: number | undefined }): Promise<Response>;
}

/**
 * Builds the adapters' HTTP with the override base URL `base` (`http://host:port`, no path), or without
 * an override when `base` is undefined or empty.
 * @throws Error when `base` is not an http(s) URL without path.
 */
export function createSocialHttp(base: string | undefined): SocialHttp {
  let override: string | undefined;
  if (base !== undefined && base !== "") {
    const u = new URL(base);
    if (!/^https?:$/.test(u.protocol) || (u.pathname !== "/" && u.pathname !== "")) {
      throw new Error("SOCIAL_HTTP_OVERRIDE must be http://host:port");
    }
    override = `${u.protocol}//${u.host}`;
  }
  const overrideUrl = (url: string): string => {
    if (!override) return url;
    const u = new URL(url);
    if (u.protocol !== "https:") return url;
    return `${override}/${u.host}${u.pathname}${u.search}`;
  };
  return {
    override,
    overrideUrl,
    async fetch(url, init = {}) {
      // Network ids a delivery step was told are written before anything more is asked (./before-call.ts).
      await runBeforeNetworkCall();
      const { timeoutSeconds, signal, ...rest } = init;
      const timeout = AbortSignal.timeout((timeoutSeconds ?? SOCIAL_HTTP_TIMEOUT_SECONDS) * 1000);
      // Counted under the network and adapter operation that made the call (src/providers/providers.ts).
      const scope = currentProviderScope();
      return measuredFetch(scope?.provider ?? "social", scope?.operation ?? "other", overrideUrl(url), {
        ...rest,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    },
  };
}

/**
 * Seconds to wait from a `Retry-After` header (RFC 9110 section 10.2.3: delay-seconds or an HTTP-date),
 * or undefined when absent or unparsable. Never negative.
 */
export function retryAfterSeconds(headers: Headers, now: Date = new Date()): number | undefined {
  const v = headers.get("retry-after");
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
