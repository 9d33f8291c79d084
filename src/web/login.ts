/**
 * Login and logout pages. `GET /login` shows an email + password form (fields `email`,
 * `password`, hidden `return_to` and a login CSRF token bound to a short-lived cookie); `POST /login`
 * verifies with argon2id (src/domain/account/accounts.ts), answers one generic error on any failure, rotates the
 * session and redirects to `return_to` (a path on this site only). Besides the per-IP browser limit, each
 * email address has a throttle with backoff per client address (src/domain/account/login-throttle.ts: an
 * attacker's failures never lock the owner out): 429 with Retry-After and the wait in words. `GET /logout` shows a confirm form;
 * `POST /logout` (session + CSRF) ends the session.
 */
import { randomBytes } from "node:crypto";
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { verifyPassword } from "../domain/account/accounts.ts";
import { beginAttempt, clearFailures } from "../domain/account/login-throttle.ts";
import { ipKey, rateLimit } from "../runtime/rate-limit.ts";
import { hasControlOrSpace } from "../oauth/redirect-uri.ts";
import { html, page } from "./html.ts";
import { pageHeaders } from "./security.ts";
import {
  csrfOk,
  endSession,
  formExpired,
  loadSession,
  readCookie,
  safeEqual,
  sameOrigin,
  setCookie,
  startSession,
} from "./session.ts";

/** Where a login without `return_to` lands. */
export const DEFAULT_AFTER_LOGIN = "/settings/integrations/mcp";
const LOGIN_COOKIE = "smcp_login";
const LOGIN_COOKIE_TTL = 3600;

/**
 * `value` when it is a path on this site (`/...`, not `//host`, no backslash, no control characters),
 * else DEFAULT_AFTER_LOGIN. Open-redirect defence.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 4000) return DEFAULT_AFTER_LOGIN;
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return DEFAULT_AFTER_LOGIN;
  if (hasControlOrSpace(value)) return DEFAULT_AFTER_LOGIN;
  try {
    const url = new URL(value, "http://service.invalid");
    if (url.origin !== "http://service.invalid") return DEFAULT_AFTER_LOGIN;
  } catch {
    return DEFAULT_AFTER_LOGIN;
  }
  return value;
}

/** `seconds` in words: "45 seconds", "2 minutes" (rounded up). */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

function loginPage(loginToken: string, returnTo: string, error?: string): string {
  return page(
    "Sign in",
    html`<article class="centered"><h1>Sign in</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<form method="post" action="/login">
<input type="hidden" name="login_token" value="${loginToken}">
<input type="hidden" name="return_to" value="${returnTo}">
<label>Email <input type="email" name="email" autocomplete="username" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></article>`,
  );
}

function renderLogin(ctx: AppContext, res: Response, returnTo: string, status = 200, error?: string): void {
  const token = randomBytes(24).toString("base64url");
  setCookie(ctx, res, LOGIN_COOKIE, token, LOGIN_COOKIE_TTL);
  res
    .status(status)
    .type("html")
    .send(loginPage(token, returnTo, error));
}

/** The login/logout router. */
export function loginRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 });
  const limit = rateLimit(ctx, "browser", ctx.config.limits.browser);

  router.get("/login", headers, (req, res) => {
    renderLogin(ctx, res, safeReturnTo(req.query.return_to));
  });

  router.post("/login", headers, limit, form, async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnTo(body.return_to);
    const cookieToken = readCookie(req, LOGIN_COOKIE);
    const formToken = body.login_token;
    if (
      !sameOrigin(req) ||
      !cookieToken ||
      typeof formToken !== "string" ||
      !safeEqual(cookieToken, formToken)
    ) {
      return renderLogin(ctx, res, returnTo, 403, "The sign-in form expired. Please try again.");
    }
    const email = typeof body.email === "string" ? body.email.slice(0, 254) : "";
    const password = typeof body.password === "string" ? body.password.slice(0, 256) : "";
    if (email && password) {
      const attempt = await beginAttempt(
        ctx.db,
        email,
        ipKey(req.ip),
        ctx.clock.now(),
        ctx.config.limits.login,
      );
      if (!attempt.ok) {
        res.setHeader("Retry-After", String(attempt.retryAfter));
        return renderLogin(
          ctx,
          res,
          returnTo,
          429,
          `Too many unsuccessful sign-ins for this email address from your network. Wait ${waitText(attempt.retryAfter)} before trying again.`,
        );
      }
    }
    const userId =
      email && password ? await verifyPassword(ctx.db, email, password, ctx.config.passwordHash) : undefined;
    if (!userId) return renderLogin(ctx, res, returnTo, 401, "The email or password is not correct.");
    await clearFailures(ctx.db, email, ipKey(req.ip));
    await startSession(ctx, req, res, userId);
    setCookie(ctx, res, LOGIN_COOKIE, "", 0);
    ctx.log.info({ user_id: userId }, "browser login");
    res.redirect(303, returnTo);
  });

  router.get("/logout", headers, async (req, res) => {
    const session = await loadSession(ctx, req);
    if (!session) {
      res.redirect(303, "/login");
      return;
    }
    res.type("html").send(
      page(
        "Sign out",
        html`<article class="centered"><h1>Sign out</h1><p>Sign out of Social MCP in this browser? Connected assistants keep their access; revoke them under Connections.</p><form method="post" action="/logout">
<input type="hidden" name="csrf_token" value="${session.csrfToken}"><button type="submit">Sign out</button></form></article>`,
      ),
    );
  });

  router.post("/logout", headers, limit, form, async (req, res) => {
    const session = await loadSession(ctx, req);
    if (session && !csrfOk(req, session)) return formExpired(res);
    await endSession(ctx, req, res);
    res.redirect(303, "/login");
  });
  return router;
}
