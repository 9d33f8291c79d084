/**
 * Redirect URI rules (service spec 2.2 and 5.5, RFC 8252 sections 7.3 and 8.3, OAuth 2.1 section 2.3.1):
 * HTTPS, or HTTP on loopback; no fragment, no user info, no wildcard, never `0.0.0.0`. At authorization
 * the URI must equal a registered one exactly, except that numeric loopback HTTP URIs (`127.0.0.1`,
 * `[::1]`) may use any port. `localhost` is matched exactly, port included.
 */

const MAX_LENGTH = 2000;
const NUMERIC_LOOPBACK = new Set(["127.0.0.1", "[::1]"]);

/** True when `s` holds whitespace or an ASCII control character. */
export function hasControlOrSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return /\s/.test(s);
}

/**
 * Why `uri` may not be registered, or undefined when it may. The reason names the rule, never echoes
 * more than the URI itself.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri.length === 0) return "must be a non-empty string";
  if (uri.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`;
  if (hasControlOrSpace(uri)) return "must not contain whitespace or control characters";
  if (uri.includes("#")) return "must not contain a fragment";
  if (uri.includes("*")) return "must not contain a wildcard";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(uri))
    return "must not contain user info";
  const host = url.hostname.toLowerCase();
  if (host === "0.0.0.0" || host === "[::]" || host === "")
    return "must name a specific host (0.0.0.0 is never accepted)";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:") {
    if (host === "localhost" || NUMERIC_LOOPBACK.has(host)) return undefined;
    return "must use HTTPS unless the host is loopback (localhost, 127.0.0.1 or [::1])";
  }
  return "must use the https scheme (or http on loopback)";
}

/**
 * True when `requested` (from an authorization request) matches `registered` under the rules above.
 * Comparison is on the exact string, except for the port of numeric loopback HTTP URIs.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  if (redirectUriProblem(requested) !== undefined) return false;
  let a: URL;
  let b: URL;
  try {
    a = new URL(registered);
    b = new URL(requested);
  } catch {
    return false;
  }
  if (a.protocol !== "http:" || b.protocol !== "http:") return false;
  if (!NUMERIC_LOOPBACK.has(a.hostname) || a.hostname !== b.hostname) return false;
  // Same URI apart from the port: compare the parts after the authority as written.
  const rest = (u: string) => u.replace(/^http:\/\/[^/?]*/i, "");
  return rest(registered) === rest(requested) && a.pathname === b.pathname && a.search === b.search;
}
