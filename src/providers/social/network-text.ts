/**
 * Text and time helpers every network adapter shares: the network's message made safe for a delivery's
 * reason, scope lists as networks write them, token lifetimes as dates, and lenient JSON reading.
 * Network-neutral: adapters import these from here, never from another network's module.
 */

/**
 * The network's message, trimmed to 300 characters, with anything token-like removed
 * (`access_token=`, `client_secret=`, `code=` values and runs of 40+ token characters): messages reach
 * delivery reasons and logs, which never carry secrets.
 */
export function safeMessage(message: string): string {
  return message
    .replace(/\b(access_token|client_secret|code)=[^&\s]+/gi, "$1=[redacted]")
    .replace(/\b[A-Za-z0-9_-]{40,}\b/g, "[redacted]")
    .slice(0, 300);
}

/** Splits a scope list written with commas and/or spaces (RFC 6749 section 3.3 uses spaces; some networks commas). */
export function splitScopes(value: string | undefined | null): string[] {
  return (value ?? "").split(/[\s,]+/).filter(Boolean);
}

/**
 * `expiresIn` seconds (a number or numeric string, e.g. `expires_in` of RFC 6749 section 5.1) after `now`
 * as a Date, or undefined when absent, not a number or not positive (a non-expiring token).
 */
export function expiresAt(now: Date, expiresIn: unknown): Date | undefined {
  const n = Number(expiresIn);
  return Number.isFinite(n) && n > 0 ? new Date(now.getTime() + n * 1000) : undefined;
}

/** `raw` parsed as JSON, or undefined when it is empty or not JSON (networks answer HTML or nothing on errors). */
export function parseJson(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
