/**
 * Parsing of the `scope` parameter (RFC 6749 section 3.3) against the service's scopes (src/scopes.ts).
 * `offline_access` is accepted and ignored (refresh tokens follow the client's registered `grant_types`).
 * An empty or absent scope means the read scopes (docs/oauth.md "Empty scope").
 */
import { ALL_SCOPES, isScope, type Scope } from "../scopes.ts";
import { OAuthError } from "./errors.ts";

/** Scopes granted when a request names none: every `read:*` scope. */
export const DEFAULT_SCOPES: readonly Scope[] = ALL_SCOPES.filter((s) => s.startsWith("read:"));

/** RFC 6749 scope-token characters: %x21 / %x23-5B / %x5D-7E. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Splits a space-separated scope string into known scopes, deduplicated, in catalog order.
 * @param raw the parameter value (undefined when absent)
 * @param options.emptyMeansDefault when true (authorization), an empty result becomes DEFAULT_SCOPES;
 *   otherwise it is returned empty (refresh: absent means "as granted").
 * @throws OAuthError invalid_scope naming the first unknown scope.
 */
export function parseScope(raw: string | undefined, options: { emptyMeansDefault: boolean }): Scope[] {
  const tokens = (raw ?? "").split(" ").filter((t) => t.length > 0);
  const wanted = new Set<string>();
  for (const t of tokens) {
    if (!SCOPE_TOKEN.test(t)) throw new OAuthError("invalid_scope", "scope contains invalid characters");
    if (t === "offline_access") continue;
    if (!isScope(t)) throw new OAuthError("invalid_scope", `unknown scope: ${t.slice(0, 64)}`);
    wanted.add(t);
  }
  const scopes = ALL_SCOPES.filter((s) => wanted.has(s));
  if (scopes.length === 0 && options.emptyMeansDefault) return [...DEFAULT_SCOPES];
  return scopes;
}
