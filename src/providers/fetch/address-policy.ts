/**
 * Which network destinations the guarded fetch may reach (service spec 4.2 rule 6).
 * Only globally routable unicast addresses: everything ipaddr.js does not classify as `unicast` is refused
 * (private, loopback, link-local incl. the 169.254.169.254 metadata address, CGNAT, multicast, unspecified,
 * broadcast, reserved, unique-local, ...). IPv4-mapped IPv6 addresses are judged as the IPv4 they carry.
 */
import ipaddr from "ipaddr.js";

/** Why a destination was refused. */
export type BlockReason = "scheme" | "port" | "address";

/** Standard ports the fetch may use; anything else is refused. */
const ALLOWED_PORTS = new Set([80, 443]);

/**
 * Normalises an address literal: IPv4-mapped IPv6 (::ffff:a.b.c.d) becomes its IPv4 form.
 * @returns undefined when `address` is not an IP literal.
 */
export function normaliseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return undefined;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

/** True when `address` is a loopback literal (127.0.0.0/8, ::1, or their mapped forms). */
export function isLoopback(address: string): boolean {
  return normaliseAddress(address)?.range() === "loopback";
}

/**
 * Checks one resolved address and the port it would be reached on.
 * `allowLoopbackPort` (test-only setting FETCH_ALLOW_LOOPBACK_PORT) admits loopback on exactly that port.
 * @returns undefined when allowed, else the reason.
 */
export function checkDestination(
  address: string,
  port: number,
  allowLoopbackPort?: number,
): BlockReason | undefined {
  const ip = normaliseAddress(address);
  if (!ip) return "address";
  if (allowLoopbackPort !== undefined && ip.range() === "loopback" && port === allowLoopbackPort)
    return undefined;
  if (ip.range() !== "unicast") return "address";
  if (!ALLOWED_PORTS.has(port)) return "port";
  return undefined;
}

/** The effective port of an http(s) URL (explicit, or 80/443 by scheme). */
export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/**
 * Checks the URL's scheme and syntax (no credentials, http/https only) before any resolution.
 * @returns undefined when acceptable, else the reason.
 */
export function checkUrlSyntax(url: URL, allowLoopbackPort?: number): BlockReason | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "scheme";
  if (url.username || url.password) return "scheme";
  const port = effectivePort(url);
  if (!ALLOWED_PORTS.has(port) && port !== allowLoopbackPort) return "port";
  return undefined;
}
