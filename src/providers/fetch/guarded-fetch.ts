/**
 * The guarded fetch of product pages and of the images a page names (service spec 4.2 rule 6). One
 * resource per call, nothing else: http/https on ports 80/443 only; the host name is resolved once, every
 * address is checked (address-policy.ts) and the TCP connection is pinned to the checked address through
 * undici's `connect.lookup`, so there is no DNS-rebinding window. Redirects are followed by hand (at most 3),
 * each one checked again before any connection. 10 s total deadline, a body cap (2 MiB for a page; the media
 * image limit for an image) aborted while streaming, and only the expected types (`text/html` for a page,
 * JPEG, PNG or WEBP for an image: the declared type here, the bytes themselves where the image is stored).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import type * as Undici from "undici";
import { lazyRequire } from "../../lazy-require.ts";
import {
  type BlockReason,
  checkDestination,
  checkUrlSyntax,
  effectivePort,
  normaliseAddress,
} from "./address-policy.ts";

/** undici (the pinned-address agent), loaded on the first guarded fetch. */
const undici = lazyRequire<typeof Undici>("undici");

/** Resolves a host name to its addresses (injectable for tests). */
export type Resolver = (hostname: string) => Promise<string[]>;

export interface GuardedFetchOptions {
  /** Total deadline for all hops, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Body cap in bytes (default 2 MiB). */
  maxBytes?: number;
  /** Redirects followed at most (default 3, never more than 5). */
  maxRedirects?: number;
  /** Test-only: a loopback port that may be reached (config `fetchAllowLoopbackPort`). */
  allowLoopbackPort?: number | undefined;
  /** Host name resolver (default: the system resolver, all addresses). */
  resolve?: Resolver;
  /** Aborts the fetch (e.g. the operation's deadline). */
  signal?: AbortSignal;
}

export type FetchFailure =
  | BlockReason
  | "dns"
  | "redirect"
  | "too_many_redirects"
  | "status"
  | "content_type"
  | "too_large"
  | "timeout"
  | "network";

/** A refused or failed fetch. `reason` is stable; `message` is safe to show (no page content). */
export class GuardedFetchError extends Error {
  override name = "GuardedFetchError";
  readonly reason: FetchFailure;
  constructor(reason: FetchFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface FetchedPage {
  /** The final URL after redirects. */
  url: string;
  /** The decoded HTML text. */
  html: string;
  /** Bytes received. */
  bytes: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;
/** The hard bound on redirects, whatever a caller asks for. */
export const MAX_REDIRECTS_LIMIT = 5;

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

const MESSAGES: Record<BlockReason, string> = {
  scheme: "only http and https URLs without credentials can be fetched",
  port: "only the standard ports 80 and 443 can be fetched",
  address: "the address is not a public internet address",
};

/** A fetched resource: its final URL after redirects, its declared MIME type and its bytes. */
export interface FetchedBody {
  url: string;
  mime: string;
  contentType: string;
  body: Buffer;
  bytes: number;
}

/** The image types a guarded image fetch accepts. */
export const IMAGE_MIME_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

/**
 * Resolves `url`'s host once and returns the single checked address to connect to.
 * @throws GuardedFetchError (scheme, port, address, dns) before any connection is made.
 */
export async function resolveChecked(
  url: URL,
  options: GuardedFetchOptions,
): Promise<{ address: string; family: 4 | 6 }> {
  const syntax = checkUrlSyntax(url, options.allowLoopbackPort);
  if (syntax) throw new GuardedFetchError(syntax, MESSAGES[syntax]);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (normaliseAddress(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch {
      throw new GuardedFetchError("dns", "the host name could not be resolved");
    }
    if (addresses.length === 0) throw new GuardedFetchError("dns", "the host name could not be resolved");
  }
  const port = effectivePort(url);
  for (const address of addresses) {
    const reason = checkDestination(address, port, options.allowLoopbackPort);
    if (reason) throw new GuardedFetchError(reason, MESSAGES[reason]);
  }
  const address = normaliseAddress(addresses[0]!)!;
  return { address: address.toString(), family: address.kind() === "ipv4" ? 4 : 6 };
}

/** An agent whose every connection goes to `pinned`, whatever name it was asked to resolve. */
function pinnedAgent(pinned: { address: string; family: 4 | 6 }, timeoutMs: number): Undici.Agent {
  const lookup: LookupFunction = (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all)
      (callback as any)(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  return new (undici().Agent)({
    connect: { lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 1,
    pipelining: 0,
  });
}

/**
 * Fetches one HTML page under the rules above.
 * @throws GuardedFetchError with a stable `reason` for every refusal or failure.
 */
export async function guardedFetchHtml(
  input: string,
  options: GuardedFetchOptions = {},
): Promise<FetchedPage> {
  const r = await guardedFetch(input, options, {
    mimes: ["text/html"],
    accept: "text/html",
    what: "an HTML page",
  });
  return { url: r.url, html: decode(r.body, r.contentType), bytes: r.bytes };
}

/**
 * Fetches one JPEG, PNG or WEBP image under the rules above (`maxBytes`: the media image limit).
 * @throws GuardedFetchError with a stable `reason` for every refusal or failure.
 */
export async function guardedFetchImage(
  input: string,
  options: GuardedFetchOptions = {},
): Promise<FetchedBody> {
  return guardedFetch(input, options, {
    mimes: IMAGE_MIME_TYPES,
    accept: IMAGE_MIME_TYPES.join(", "),
    what: "a JPEG, PNG or WEBP image",
  });
}

/** One resource of one of `kind.mimes` (see the module comment). */
async function guardedFetch(
  input: string,
  options: GuardedFetchOptions,
  kind: { mimes: readonly string[]; accept: string; what: string },
): Promise<FetchedBody> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = Math.min(options.maxRedirects ?? DEFAULT_MAX_REDIRECTS, MAX_REDIRECTS_LIMIT);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new GuardedFetchError("scheme", "the URL is not valid");
  }
  for (let hop = 0; ; hop++) {
    const pinned = await resolveChecked(url, options);
    const agent = pinnedAgent(pinned, timeoutMs);
    try {
      const res = await undici()
        .request(url, {
          method: "GET",
          dispatcher: agent,
          signal,
          headers: { accept: kind.accept, "user-agent": "SocialMCP-ProductFetcher/1.0" },
        })
        .catch((err: unknown) => {
          throw signal.aborted
            ? new GuardedFetchError("timeout", "the page did not answer within the time limit")
            : new GuardedFetchError(
                "network",
                `the page could not be fetched (${(err as { code?: string })?.code ?? "network error"})`,
              );
        });
      if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
        await res.body.dump().catch(() => {});
        const location = headerValue(res.headers.location);
        if (!location) throw new GuardedFetchError("redirect", "a redirect without a location was refused");
        if (hop >= maxRedirects)
          throw new GuardedFetchError("too_many_redirects", `more than ${maxRedirects} redirects`);
        try {
          url = new URL(location, url);
        } catch {
          throw new GuardedFetchError("redirect", "a redirect to an invalid URL was refused");
        }
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump().catch(() => {});
        throw new GuardedFetchError("status", `the page answered HTTP ${res.statusCode}`);
      }
      const contentType = headerValue(res.headers["content-type"]) ?? "";
      const mime = contentType.split(";")[0]!.trim().toLowerCase();
      if (!kind.mimes.includes(mime)) {
        discard(res.body);
        throw new GuardedFetchError("content_type", `the URL is not ${kind.what}`);
      }
      const declared = Number(headerValue(res.headers["content-length"]) ?? Number.NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(res.body);
        throw new GuardedFetchError("too_large", `the page is larger than ${maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const chunk of res.body) {
          bytes += (chunk as Buffer).length;
          if (bytes > maxBytes) {
            discard(res.body);
            throw new GuardedFetchError("too_large", `the page is larger than ${maxBytes} bytes`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        if (err instanceof GuardedFetchError) throw err;
        throw signal.aborted
          ? new GuardedFetchError("timeout", "the page did not answer within the time limit")
          : new GuardedFetchError("network", "the page could not be read");
      }
      return { url: url.toString(), mime, contentType, body: Buffer.concat(chunks), bytes };
    } finally {
      agent.destroy().catch(() => {});
    }
  }
}

/** Drops a response body without reading it (errors from the teardown are expected and ignored). */
function discard(body: { on(event: "error", fn: () => void): unknown; destroy(): unknown }): void {
  body.on("error", () => {});
  body.destroy();
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Decodes with the declared charset when the runtime knows it, else UTF-8. */
function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
