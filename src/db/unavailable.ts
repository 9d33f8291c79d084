/**
 * Recognises "the database is not there right now" (a restart, a failover, a network cut) as opposed to a
 * bug or a bad query, so that callers answer a retryable error instead of a failure (docs/operations.md
 * "When the database goes away"). Matches by the PostgreSQL SQLSTATE class and by node-postgres / knex /
 * socket conditions, never by message text of our own errors.
 * @see https://www.postgresql.org/docs/current/errcodes-appendix.html (class 08 connection exception,
 *   57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now)
 */

/** Seconds a client should wait before retrying after the database went away. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN"]);
const SQLSTATES = new Set(["57P01", "57P02", "57P03"]);

/** True when `err` (or its cause) says the database is unreachable or restarting. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as Record<string, unknown> | undefined, depth = 0; e && depth < 4; depth += 1) {
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code && (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith("08"))) return true;
    const name = typeof e.name === "string" ? e.name : "";
    // knex: the pool could not hand out a connection in time (every attempt to connect failed).
    if (name === "KnexTimeoutError") return true;
    const message = typeof e.message === "string" ? e.message : "";
    // node-postgres reports a dropped socket without a code; knex prefixes the message with the query.
    if (/(^|- )Connection (terminated( unexpectedly)?|ended unexpectedly)$/.test(message)) return true;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return false;
}
