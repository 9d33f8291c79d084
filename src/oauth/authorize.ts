/**
 * The authorization endpoint (service spec 4.4): `GET /mcp/oauth/authorize` validates the
 * request, sends a browser without a session to /login and back, and shows the consent page with a
 * one-time consent nonce bound to the session and the request; `POST /mcp/oauth/authorize` (session + CSRF
 * + nonce) approves (grant + 60-second code, 303 to the client with `code`, `state`, `iss`) or denies
 * (`error=access_denied`). Both are browser consent: 30 per minute per IP together (service spec 8,
 * RATE_LIMIT_BROWSER), not the OAuth API limit.
 */
import express, { type NextFunction, type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { isScope, type Scope } from "../scopes.ts";
import { authorizeErrorPage, consentPage } from "../web/consent.ts";
import { allowFormActionTo, pageHeaders } from "../web/security.ts";
import { type BrowserSession, loadSession, loginUrl, requireCsrf } from "../web/session.ts";
import { userWorkspaces } from "./grants.ts";
import {
  type AuthorizationRequest,
  clientRedirect,
  findClient,
  requestHash,
  validateAuthorizationRequest,
} from "./authorize-request.ts";
import { CODE_TTL, hashSecret, randomToken } from "./tokens.ts";
import { redirectUriMatches } from "./redirect-uri.ts";

/** Lifetime of a consent nonce (the consent page stays valid this long), seconds. */
export const CONSENT_TTL = 600;

function errorPage(res: Response, status: number, message: string): void {
  res.status(status).type("html").send(authorizeErrorPage(message));
}

async function showConsent(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const v = await validateAuthorizationRequest(ctx, req.query as Record<string, unknown>);
  if (v.kind === "page") return errorPage(res, 400, v.message);
  const session = await loadSession(ctx, req);
  if (v.kind === "redirect") {
    // RFC 9700 section 4.11.1: anyone can register a client (RFC 7591) with any redirect URI, so before a
    // signed-in user is involved an error never redirects (the service would be an open redirector for
    // crafted links); it is shown here. Signed in, the error goes back to the registered URI with `iss`.
    if (!session) return errorPage(res, 400, `The authorization request is invalid: ${v.description}.`);
    return res.redirect(
      303,
      clientRedirect(ctx, v.redirectUri, v.state, { error: v.error, error_description: v.description }),
    );
  }
  if (!session) return res.redirect(303, loginUrl(req));
  const workspaces = await userWorkspaces(ctx.db, session.userId);
  if (workspaces.length === 0) return errorPage(res, 403, "Your account has no workspace to connect.");
  const user = await ctx.db("users").where({ id: session.userId }).first("email");
  const nonce = randomToken();
  const now = ctx.clock.now();
  await ctx.db("oauth_consent_nonces").insert({
    nonce_hash: hashSecret(nonce),
    session_id_hash: session.idHash,
    request_hash: requestHash(v.request),
    request: JSON.stringify(v.request),
    expires_at: new Date(now.getTime() + CONSENT_TTL * 1000),
    created_at: now,
  });
  const r = v.request;
  allowFormActionTo(res, new URL(r.redirect_uri).origin);
  res.type("html").send(
    consentPage({
      clientName: v.client.client_name,
      clientId: v.client.client_id,
      redirectUri: r.redirect_uri,
      scopes: v.scopes,
      workspaces,
      userEmail: user?.email ?? "",
      hidden: {
        client_id: r.client_id,
        redirect_uri: r.redirect_uri,
        response_type: "code",
        resource: r.resource,
        scope: r.scope,
        ...(r.state !== null ? { state: r.state } : {}),
        code_challenge: r.code_challenge,
        code_challenge_method: "S256",
        consent_nonce: nonce,
        csrf_token: session.csrfToken,
      },
    }),
  );
}

/**
 * Middleware of the consent POST: the browser session (401 page without one: the consent form is only ever
 * shown to a signed-in user) on `res.locals.session`, for `requireCsrf` and `decide`.
 */
function consentSession(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const session = await loadSession(ctx, req);
    if (!session)
      return errorPage(res, 401, "You are not signed in. Start connecting again from the application.");
    res.locals.session = session;
    next();
  };
}

async function decide(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const session = res.locals.session as BrowserSession;
  const nonce = body.consent_nonce;
  if (typeof nonce !== "string" || nonce.length > 128)
    return errorPage(res, 400, "The consent request is missing.");
  const now = ctx.clock.now();
  const [used] = await ctx
    .db("oauth_consent_nonces")
    .where({ nonce_hash: hashSecret(nonce), session_id_hash: session.idHash })
    .whereNull("used_at")
    .where("expires_at", ">", now)
    .update({ used_at: now })
    .returning(["request", "request_hash"]);
  if (!used) return errorPage(res, 400, "This consent request expired or was already used.");
  const request = used.request as AuthorizationRequest;
  const posted: AuthorizationRequest = {
    client_id: String(body.client_id ?? ""),
    redirect_uri: String(body.redirect_uri ?? ""),
    resource: String(body.resource ?? ""),
    scope: String(body.scope ?? ""),
    state: typeof body.state === "string" ? body.state : null,
    code_challenge: String(body.code_challenge ?? ""),
  };
  if (requestHash(posted) !== used.request_hash) return errorPage(res, 400, "The consent form was altered.");
  const client = await findClient(ctx, request.client_id);
  if (!client?.redirect_uris.some((u) => redirectUriMatches(u, request.redirect_uri))) {
    return errorPage(res, 400, "The application is no longer registered.");
  }
  const back = (params: Record<string, string>) =>
    clientRedirect(ctx, request.redirect_uri, request.state, params);
  if (body.decision === "deny") {
    return res.redirect(
      303,
      back({ error: "access_denied", error_description: "The user denied the request" }),
    );
  }
  if (body.decision !== "approve") return errorPage(res, 400, "No decision was made.");
  const workspaceId = body.workspace_id;
  const workspaces = await userWorkspaces(ctx.db, session.userId);
  if (typeof workspaceId !== "string" || !workspaces.some((w) => w.id === workspaceId)) {
    return errorPage(res, 400, "Choose one of your workspaces.");
  }
  const scopes = request.scope.split(" ").filter((s): s is Scope => isScope(s));
  const code = randomToken();
  await ctx.db.transaction(async (trx) => {
    const [grant] = await trx("oauth_grants")
      .insert({
        user_id: session.userId,
        workspace_id: workspaceId,
        client_id: request.client_id,
        resource: request.resource,
        scope: scopes.join(" "),
        created_at: now,
      })
      .returning("id");
    await trx("oauth_authorization_codes").insert({
      code_hash: hashSecret(code),
      grant_id: grant.id,
      client_id: request.client_id,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      code_challenge_method: "S256",
      resource: request.resource,
      scope: scopes.join(" "),
      expires_at: new Date(now.getTime() + CODE_TTL * 1000),
      created_at: now,
    });
    ctx.log.info(
      { grant_id: grant.id, client_id: request.client_id, user_id: session.userId },
      "grant created",
    );
  });
  res.redirect(303, back({ code }));
}

/** The authorize router (mounted behind the MCP-enabled and host guard). */
export function authorizeRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  const form = express.urlencoded({ extended: false, limit: "32kb", parameterLimit: 30 });
  const consentLimit = rateLimit(ctx, "consent", ctx.config.limits.browser);
  router.get("/mcp/oauth/authorize", headers, consentLimit, (req, res) => showConsent(ctx, req, res));
  router.post(
    "/mcp/oauth/authorize",
    headers,
    consentLimit,
    form,
    consentSession(ctx),
    requireCsrf(),
    (req, res) => decide(ctx, req, res),
  );
  return router;
}
