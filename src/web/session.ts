/**
 * Browser sessions (issue 3): server-side in Postgres (`browser_sessions`), cookie `smcp_session`
 * (HttpOnly, SameSite=Lax, Secure on HTTPS), CSRF token per session.
 * PLACEHOLDER: the OAuth issue replaces the bodies; the signatures are the contract other areas use.
 */
import type { Request, RequestHandler } from "express";
import type { AppContext } from "../context.ts";

/** The logged-in browser user, set on `res.locals.session` by `requireSession`. */
export interface BrowserSession {
  userId: string;
  /** SHA-256 of the session id (the row key). */
  idHash: string;
  /** The CSRF token to embed in forms as hidden field `csrf_token`. */
  csrfToken: string;
}

/**
 * Middleware: loads the session; without one, GET requests redirect to `/login?return_to=<path>` and other
 * methods get 401. On success sets `res.locals.session: BrowserSession`.
 */
export function requireSession(_ctx: AppContext): RequestHandler {
  return (_req, res) => {
    res.status(401).send("login required");
  };
}

/**
 * Checks the `csrf_token` form field against the session (constant-time). Call after body parsing.
 * @returns false when missing or wrong (the caller answers 403 and changes nothing).
 */
export function csrfOk(_req: Request, _session: BrowserSession): boolean {
  return false;
}
