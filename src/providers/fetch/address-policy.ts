/**
 * Which network destinations the guarded fetch may reach (service spec 4.2 rule 6).
 * Only globally routable unicast addresses: everything ipaddr.js does not classify as `unicast` is refused
 * (private, loopback, link-local incl. the 169.254.169.254 metadata address, CGNAT, multicast, unspecified,
 * broadcast, reserved, unique-local, Teredo, ...). IPv6 forms that carry an IPv4 address are judged as the
 * IPv4 address they carry: IPv4-mapped `::ffff:0:0/96` (RFC 4291 2.5.5.2), IPv4-translated `::ffff:0:0:0/96`
 * (RFC 6145), the deprecated IPv4-compatible `::/96` (RFC 4291 2.5.5.1, e.g. `::7f00:1` = 127.0.0.1),
 * 6to4 `2002::/16` (RFC 3056, bits 16-47) and NAT64 `64:ff9b::/96` and `64:ff9b:1::/48` (RFC 6052, RFC 8215).
 */
import ipaddr from "ipaddr.js";

/** Why a destination was refused. */
export type BlockReason = "scheme" | "port" | "address";

/** Standard ports the fetch may use; anything else is refused. */
const ALLOWED_PORTS = new Set([80, 443]);

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseLiteral(address: string): Address | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return undefined;
  return ipaddr.parse(bare);
}

/**
 * Normalises an address literal for connecting: IPv4-mapped IPv6 (::ffff:a.b.c.d) becomes its IPv4 form
 * (the same destination). Other embedding forms stay IPv6 (a NAT64 address is reached through the gateway).
 * @returns undefined when `address` is not an IP literal.
 */
export function normaliseAddress(address: string): Address | undefined {
  const parsed = parseLiteral(address);
  if (parsed?.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const NAT64_LOCAL = ipaddr.parseCIDR("64:ff9b:1::/48");
const SIX_TO_FOUR = ipaddr.parseCIDR("2002::/16");
const TRANSLATED = ipaddr.parseCIDR("::ffff:0:0:0/96");
const COMPATIBLE = ipaddr.parseCIDR("::/96");

/** The IPv4 address an IPv6 address carries in one of the forms listed above, else undefined. */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const b = ip.toByteArray();
  const v4 = (o: number) => new ipaddr.IPv4([b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!]);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  if (ip.match(TRANSLATED) || ip.match(NAT64_WELL_KNOWN) || ip.match(NAT64_LOCAL)) return v4(12);
  if (ip.match(SIX_TO_FOUR)) return v4(2);
  // `::` and `::1` are the unspecified and loopback addresses themselves, not embeddings of 0.0.0.0/0.0.0.1.
  if (ip.match(COMPATIBLE) && ip.range() !== "unspecified" && ip.range() !== "loopback") return v4(12);
  return undefined;
}

/**
 * The ipaddr.js range an address is judged by, after unwrapping embedded IPv4 addresses (repeatedly is not
 * needed: every form above carries an IPv4 address, never another IPv6 one).
 * @returns undefined when `address` is not an IP literal.
 */
export function classifyAddress(address: string): string | undefined {
  const ip = parseLiteral(address);
  if (!ip) return undefined;
  if (ip.kind() === "ipv6") {
    const inner = embeddedIPv4(ip as ipaddr.IPv6);
    if (inner) return inner.range();
  }
  return ip.range();
}

/** True when `address` is a loopback literal (127.0.0.0/8, ::1, or an IPv6 form carrying 127.0.0.0/8). */
export function isLoopback(address: string): boolean {
  return classifyAddress(address) === "loopback";
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
  const range = classifyAddress(address);
  if (!range) return "address";
  if (allowLoopbackPort !== undefined && range === "loopback" && port === allowLoopbackPort) return undefined;
  if (range !== "unicast") return "address";
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
