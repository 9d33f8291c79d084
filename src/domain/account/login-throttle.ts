/**
 * Sign-in throttle with backoff per email address and client address (docs/security.md "Trusted proxies";
 * OWASP Authentication Cheat Sheet,
 * https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html), beside the per-IP browser
 * limit: password guesses against one account are slowed down, and the count is kept per client address
 * (`ipKey`: an IPv4 address, an IPv6 /64), so an attacker's failures slow the attacker's addresses only: they
 * can never lock the owner out, whose correct password from their own address still works (OWASP
 * Authentication Cheat Sheet, "Account lockout": lockout must not be a denial of service).
 *
 * Every attempt is counted as a failure before the password is checked (`beginAttempt`: one atomic upsert,
 * so concurrent guesses cannot all pass while the count is low); a successful sign-in clears the count of
 * its own address (`clearFailures`). The first `freeFailures` attempts pass at once; after that an attempt
 * must wait `backoffSeconds` after the previous one, doubling with each further failure, at most
 * `backoffMaxSeconds`. The count restarts after `FORGET_AFTER_SECONDS` without an attempt. Emails that do
 * not exist are throttled the same way (the answer never tells whether an account exists). The row key is
 * the SHA-256 of the lower-cased email and the client address, so the table holds neither.
 */
import { createHash } from "node:crypto";
import type { Knex } from "../../db/knex.ts";

/** A failure count is forgotten after this long without an attempt, seconds (one day). */
export const FORGET_AFTER_SECONDS = 24 * 3600;

/** The configured numbers (config `limits.login`). */
export interface LoginThrottle {
  /** Attempts that pass without waiting. */
  freeFailures: number;
  /** The first wait after them, seconds; doubles with each further failure. */
  backoffSeconds: number;
  /** The longest wait, seconds. */
  backoffMaxSeconds: number;
}

/** The outcome of `beginAttempt`: go ahead, or wait `retryAfter` whole seconds. */
export type AttemptVerdict = { ok: true } | { ok: false; retryAfter: number };

/** The row key of `email` signing in from `address` (an `ipKey`). */
const keyOf = (email: string, address: string) =>
  createHash("sha256").update(`${email.trim().toLowerCase()}\n${address}`).digest("hex");

/** The wait after `failures` counted attempts, seconds (0 while within the free ones). */
export function backoffAfter(failures: number, t: LoginThrottle): number {
  const over = failures - t.freeFailures;
  if (over < 0) return 0;
  return Math.min(t.backoffMaxSeconds, t.backoffSeconds * 2 ** Math.min(over, 30));
}

/**
 * Counts a sign-in attempt for `email` from the client `address` (`ipKey` of the request) at `now` unless
 * it must wait.
 * @returns ok (the attempt is counted as a failure until `clearFailures`), or the seconds to wait.
 */
export async function beginAttempt(
  db: Knex,
  email: string,
  address: string,
  now: Date,
  t: LoginThrottle,
): Promise<AttemptVerdict> {
  const key = keyOf(email, address);
  // The wait of a row with n failures, in SQL: 0 within the free ones, else base * 2^(n - free), capped.
  const wait = `least(?::float8, ?::float8 * power(2::float8, least(r.failures - ?, 30)))`;
  const { rows } = await db.raw(
    `insert into login_throttle as r (key, failures, last_failure_at) values (?, 1, ?)
     on conflict (key) do update set
       failures = case when r.last_failure_at <= ?::timestamptz - make_interval(secs => ?) then 1
                       else r.failures + 1 end,
       last_failure_at = excluded.last_failure_at
     where r.failures < ? or r.last_failure_at <= ?::timestamptz - make_interval(secs => ?)
        or r.last_failure_at + make_interval(secs => ${wait}) <= ?::timestamptz
     returning r.failures`,
    [
      key,
      now,
      now,
      FORGET_AFTER_SECONDS,
      t.freeFailures,
      now,
      FORGET_AFTER_SECONDS,
      t.backoffMaxSeconds,
      t.backoffSeconds,
      t.freeFailures,
      now,
    ],
  );
  if (rows.length > 0) return { ok: true };
  const row = await db("login_throttle").where({ key }).first("failures", "last_failure_at");
  if (!row) return { ok: true };
  const until = new Date(row.last_failure_at).getTime() + backoffAfter(row.failures, t) * 1000;
  return { ok: false, retryAfter: Math.max(1, Math.ceil((until - now.getTime()) / 1000)) };
}

/** Clears the count of `email` from `address` after a successful sign-in from there. */
export async function clearFailures(db: Knex, email: string, address: string): Promise<void> {
  await db("login_throttle")
    .where({ key: keyOf(email, address) })
    .delete();
}

/** Deletes the rows forgotten anyway (maintenance). @returns how many. */
export async function purgeLoginThrottle(db: Knex, now: Date): Promise<number> {
  return db("login_throttle")
    .where("last_failure_at", "<=", new Date(now.getTime() - FORGET_AFTER_SECONDS * 1000))
    .delete();
}
