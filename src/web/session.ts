/**
 * Browser sessions: server-side in Postgres (`browser_sessions`, keyed by the SHA-256 of
 * the session id), cookie `smcp_session` (HttpOnly, SameSite=Lax, Secure when the base URL is HTTPS, path
 * /), a new id on every login, a CSRF token per session. Sessions last 7 days. The one module of session and
 * CSRF checks for every browser page: `requireSession` and `requireCsrf` are router middleware.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { parse, serialize } from "cookie";
import type { Request, RequestHandler, Response } from "express";
import type { AppContext } from "../context.ts";
import { sha256 } from "../crypto/seal.ts";
import { html, page } from "./html.ts";

/** The logged-in browser user, set on `res.locals.session` by `requireSession`. */
export interface BrowserSession {
  userId: string;
  /** SHA-256 of the session id (the row key). */
  idHash: string;
  /** The CSRF token to embed in forms as hidden field `csrf_token`. */
  csrfToken: string;
}

export const SESSION_COOKIE = "smcp_session";
/** Session lifetime, seconds. */
export const SESSION_TTL = 7 * 24 * 3600;

function cookieOptions(ctx: AppContext) {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: ctx.config.publicBaseUrl.startsWith("https:"),
    path: "/",
  };
}

/** Reads one cookie of the request. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parse(header)[name];
}

/** Appends a Set-Cookie header (keeps others already set). */
export function setCookie(ctx: AppContext, res: Response, name: string, value: string, maxAge: number): void {
  const line = serialize(name, value, { ...cookieOptions(ctx), maxAge });
  const prev = res.getHeader("Set-Cookie");
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
  res.setHeader("Set-Cookie", [...list, line]);
}

/**
 * Starts a session for `userId`: deletes the session the browser held (if any), creates a new id (session
 * fixation defence) and sets the cookie.
 */
export async function startSession(
  ctx: AppContext,
  req: Request,
  res: Response,
  userId: string,
): Promise<BrowserSession> {
  const old = readCookie(req, SESSION_COOKIE);
  if (old)
    await ctx
      .db("browser_sessions")
      .where({ id_hash: sha256(old) })
      .delete();
  const id = randomBytes(32).toString("base64url");
  const session = { userId, idHash: sha256(id), csrfToken: randomBytes(32).toString("base64url") };
  const now = ctx.clock.now();
  await ctx.db("browser_sessions").insert({
    id_hash: session.idHash,
    user_id: userId,
    csrf_token: session.csrfToken,
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + SESSION_TTL * 1000),
  });
  setCookie(ctx, res, SESSION_COOKIE, id, SESSION_TTL);
  return session;
}

/** Ends the browser's session (row deleted, cookie cleared). */
export async function endSession(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const id = readCookie(req, SESSION_COOKIE);
  if (id)
    await ctx
      .db("browser_sessions")
      .where({ id_hash: sha256(id) })
      .delete();
  setCookie(ctx, res, SESSION_COOKIE, "", 0);
}

/** Loads the live session of the request (unexpired, active user), or undefined. */
export async function loadSession(ctx: AppContext, req: Request): Promise<BrowserSession | undefined> {
  const id = readCookie(req, SESSION_COOKIE);
  if (!id || id.length > 128) return undefined;
  const row = await ctx
    .db("browser_sessions as s")
    .join("users as u", "u.id", "s.user_id")
    .where("s.id_hash", sha256(id))
    .where("s.expires_at", ">", ctx.clock.now())
    .where("u.status", "active")
    .first("s.id_hash", "s.user_id", "s.csrf_token");
  if (!row) return undefined;
  return { userId: row.user_id, idHash: row.id_hash, csrfToken: row.csrf_token };
}

/** `/login?return_to=<path>` for the request's own path and query. */
export function loginUrl(req: Request): string {
  return `/login?return_to=${encodeURIComponent(req.originalUrl)}`;
}

/**
 * Middleware: loads the session; without one, GET requests redirect to `/login?return_to=<path>` and other
 * methods get 401. On success sets `res.locals.session: BrowserSession`. (Express 5 passes a rejected
 * promise of an async handler to the error handler.)
 */
export function requireSession(ctx: AppContext): RequestHandler {
  return async (req, res, next) => {
    const session = await loadSession(ctx, req);
    if (session) {
      res.locals.session = session;
      return next();
    }
    if (req.method === "GET" || req.method === "HEAD") return res.redirect(303, loginUrl(req));
    res.status(401).type("text/plain").send("Login required");
  };
}

/** The text of the 403 answer to a form whose CSRF token or origin is wrong. */
export const FORM_EXPIRED =
  "The form has expired or did not come from this site. Reload the page and try again.";

/** Answers 403 with the page saying the form expired (the one answer of every failed CSRF check). */
export function formExpired(res: Response): void {
  res
    .status(403)
    .type("html")
    .send(page("Forbidden", html`<p class="error" role="alert">${FORM_EXPIRED}</p>`));
}

/**
 * Router middleware, after `requireSession` and the body parser: refuses the request with `formExpired`
 * unless `csrfOk` (token of the session, same origin). Nothing after it runs.
 */
export function requireCsrf(): RequestHandler {
  return (req, res, next) => {
    if (csrfOk(req, res.locals.session as BrowserSession)) return next();
    formExpired(res);
  };
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks the `csrf_token` form field against the session (constant-time). Call after body parsing.
 * A present `Origin` header must also be this service's origin (cross-site form posts are refused).
 * @returns false when missing or wrong (the caller answers 403 and changes nothing).
 */
export function csrfOk(req: Request, session: BrowserSession): boolean {
  if (!sameOrigin(req)) return false;
  const token = (req.body as Record<string, unknown> | undefined)?.csrf_token;
  return typeof token === "string" && safeEqual(token, session.csrfToken);
}

/**
 * True when the request has no `Origin` header or its Origin names the request's own host. The scheme is
 * not compared (a TLS-terminating proxy without TRUST_PROXY makes `req.protocol` http); browsers set
 * Origin themselves, so another site cannot claim this host. `Origin: null` is refused.
 */
export function sameOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.host === new URL(`http://${req.host}`).host
    );
  } catch {
    return false;
  }
}
