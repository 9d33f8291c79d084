/**
 * Social accounts in the browser (service spec 1.8, 1.9: no tool connects or disconnects):
 *   GET  /settings/social                               the workspace's accounts (network, handle, status,
 *                                                        what each can publish, last metrics sync and why
 *                                                        it failed), Connect per network,
 *                                                        Reconnect for `needs_reconnect`, Disconnect
 *   POST /settings/social/connect/{network}             starts the OAuth flow (session + CSRF), 303 to the
 *                                                        network's consent page (the sandbox's for networks
 *                                                        without credentials)
 *   GET  /settings/social/callback/{network}            the redirect URI: state, code, errors as readable pages
 *   GET|POST /settings/social/pick/{id}                 choose Facebook Pages after consent
 *   GET|POST /settings/social/accounts/{id}/disconnect  confirmation, then disconnect (CSRF)
 *   POST /settings/social/accounts/{id}/settings        per-account publishing defaults (CSRF)
 * The workspace is the `workspace_id` query/field when the user is a member, else their first workspace;
 * a workspace that is not active gets the suspended page (src/web/suspended.ts) on every route.
 * Every value on the pages is escaped (src/web/html.ts); no token ever reaches a page or a log.
 */
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { accountSettingFields } from "../domain/social/account-settings.ts";
import { disconnectAccount, openAccount, updateAccountSettings } from "../domain/social/accounts.ts";
import {
  callbackUrl,
  ConnectError,
  finishConnect,
  pendingPick,
  pickAccounts,
  startConnect,
} from "../domain/social/connect.ts";
import { isUuid } from "../ids.ts";
import { networkMode } from "../providers/providers.ts";
import { NETWORK_RULES } from "../providers/social/rules.ts";
import { isNetwork, NETWORKS, type Network } from "../providers/social/types.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { html, page, problemPage } from "./html.ts";
import { pickWorkspace } from "./media.ts";
import { refuseInactiveWorkspace } from "./suspended.ts";
import { cspHeader, pageHeaders } from "./security.ts";
import { type BrowserSession, csrfOk, requireSession } from "./session.ts";

import { accountsPage, SOCIAL_SETTINGS_PATH } from "./social-accounts-page.ts";

export { SOCIAL_SETTINGS_PATH };

/** Origins the connect forms may be redirected to (CSP form-action applies to a form's redirects). */
function connectOrigins(ctx: AppContext): string[] {
  const out = new Set<string>();
  for (const n of NETWORKS) {
    try {
      const url = ctx.providers.networks.adapter(n).oauth.authorizeUrl({
        state: "x",
        redirectUri: callbackUrl(ctx.config.publicBaseUrl, n),
        codeChallenge: "x",
      });
      out.add(new URL(ctx.providers.socialHttp.overrideUrl(url)).origin);
    } catch {
      // a network whose adapter cannot be built has no Connect button
    }
  }
  return [...out];
}

function errorPage(
  res: Response,
  status: number,
  title: string,
  message: string,
  back = SOCIAL_SETTINGS_PATH,
) {
  res
    .status(status)
    .type("html")
    .send(
      problemPage(title, message, { href: back, label: "Back to Social accounts" }, SOCIAL_SETTINGS_PATH),
    );
}

/** The /settings/social router. */
export function socialSettingsRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  const limit = rateLimit(ctx, "settings:social", ctx.config.limits.browser);
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 40 });
  const session = requireSession(ctx);
  const P = SOCIAL_SETTINGS_PATH;

  const workspaceOf = async (req: Request, s: BrowserSession) =>
    pickWorkspace(ctx, s.userId, req.method === "GET" ? req.query.workspace_id : req.body?.workspace_id);

  const guard = (req: Request, res: Response): BrowserSession | undefined => {
    const s = res.locals.session as BrowserSession;
    if (!csrfOk(req, s)) {
      errorPage(res, 403, "Form expired", "The form expired. Reload the page and try again.");
      return undefined;
    }
    return s;
  };

  router.get(P, headers, session, async (req, res, next) => {
    try {
      const s = res.locals.session as BrowserSession;
      const { all, current } = await workspaceOf(req, s);
      if (!current) return errorPage(res, 404, "Not found", "No such workspace.", "/");
      if (refuseInactiveWorkspace(res, current)) return;
      const q = req.query;
      const notice =
        typeof q.connected === "string" && /^\d+$/.test(q.connected)
          ? `Connected ${q.connected} account${q.connected === "1" ? "" : "s"}.`
          : q.disconnected === "1"
            ? "The account was disconnected."
            : q.saved === "1"
              ? "Defaults saved."
              : undefined;
      res.setHeader("Content-Security-Policy", cspHeader(connectOrigins(ctx)));
      res.type("html").send(await accountsPage(ctx, s, current, all, notice));
    } catch (err) {
      next(err);
    }
  });

  router.post(`${P}/connect/:network`, headers, limit, session, form, async (req, res, next) => {
    try {
      const s = guard(req, res);
      if (!s) return;
      const network = String(req.params.network);
      if (!isNetwork(network)) return errorPage(res, 404, "Not found", "No such network.");
      if (networkMode(ctx.config, network) === "unavailable")
        return errorPage(
          res,
          404,
          "Not available",
          `${NETWORK_RULES[network].label} is not available on this server: no app is configured for it.`,
        );
      const { current } = await workspaceOf(req, s);
      if (!current) return errorPage(res, 404, "Not found", "No such workspace.");
      if (refuseInactiveWorkspace(res, current)) return;
      const url = await startConnect(ctx, {
        sessionHash: s.idHash,
        userId: s.userId,
        workspaceId: current.id,
        network,
      });
      res.setHeader("Content-Security-Policy", cspHeader([new URL(url).origin]));
      res.redirect(303, url);
    } catch (err) {
      next(err);
    }
  });

  router.get(`${P}/callback/:network`, headers, session, async (req, res, next) => {
    try {
      const s = res.locals.session as BrowserSession;
      const network = String(req.params.network);
      if (!isNetwork(network)) return errorPage(res, 404, "Not found", "No such network.");
      const outcome = await finishConnect(ctx, {
        network,
        sessionHash: s.idHash,
        state: req.query.state,
        code: req.query.code,
        error: req.query.error,
      });
      if (outcome.kind === "pick") return res.redirect(303, `${P}/pick/${outcome.pickId}`);
      res.redirect(303, `${P}?workspace_id=${outcome.workspaceId}&connected=${outcome.accounts.length}`);
    } catch (err) {
      if (err instanceof ConnectError) return errorPage(res, 400, "Could not connect", err.message);
      next(err);
    }
  });

  router.get(`${P}/pick/:id`, headers, session, async (req, res, next) => {
    try {
      const s = res.locals.session as BrowserSession;
      const pick = await pendingPick(ctx, String(req.params.id), s.idHash);
      if (!pick)
        return errorPage(
          res,
          404,
          "Choice expired",
          "This choice expired. Connect again from Social accounts.",
        );
      const label = NETWORK_RULES[pick.network].label;
      res.type("html").send(
        page(
          `Choose ${label} Pages`,
          html`<div class="centered"><h1>Choose which ${label} Pages to connect</h1>
<p>Each Page becomes its own account. You can connect more later.</p>
<form method="post" action="${P}/pick/${req.params.id}"><input type="hidden" name="csrf_token" value="${s.csrfToken}">
${pick.accounts.map(
  (a) =>
    html`<label><input type="checkbox" name="account" value="${a.index}"> ${a.displayName} <span class="muted">(${a.handle})</span></label>`,
)}
<button type="submit">Connect selected Pages</button></form></div>`,
        ),
      );
    } catch (err) {
      next(err);
    }
  });

  router.post(`${P}/pick/:id`, headers, limit, session, form, async (req, res, next) => {
    try {
      const s = guard(req, res);
      if (!s) return;
      const raw = (req.body as Record<string, unknown>).account;
      const indexes = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((v) => Number(v));
      const out = await pickAccounts(ctx, String(req.params.id), s.idHash, indexes);
      res.redirect(303, `${P}?workspace_id=${out.workspaceId}&connected=${out.accounts.length}`);
    } catch (err) {
      if (err instanceof ConnectError)
        return errorPage(res, 400, "Could not connect", err.message, `${P}/pick/${req.params.id}`);
      next(err);
    }
  });

  const ownedAccount = async (req: Request, s: BrowserSession) => {
    const id = String(req.params.id);
    if (!isUuid(id)) return undefined;
    return ctx
      .db("social_accounts as a")
      .join("workspaces as w", "w.id", "a.workspace_id")
      .where({ "a.id": id, "a.user_id": s.userId })
      .whereNot({ "a.status": "disconnected" })
      .first(
        "a.id",
        "a.workspace_id",
        "a.network",
        "a.display_name",
        "w.name as workspace_name",
        "w.status as workspace_status",
      );
  };
  /** The account of the route, or undefined after sending the not-found or the suspended page. */
  const accountOf = async (req: Request, res: Response, s: BrowserSession) => {
    const a = await ownedAccount(req, s);
    if (!a) return errorPage(res, 404, "Not found", "No such account.");
    if (refuseInactiveWorkspace(res, { name: a.workspace_name, status: a.workspace_status }))
      return undefined;
    return a;
  };

  router.get(`${P}/accounts/:id/disconnect`, headers, session, async (req, res, next) => {
    try {
      const s = res.locals.session as BrowserSession;
      const a = await accountOf(req, res, s);
      if (!a) return;
      res.type("html").send(
        page(
          "Disconnect account",
          html`<div class="centered"><h1>Disconnect ${a.display_name}?</h1>
<p>The ${NETWORK_RULES[a.network as Network].label} account stops publishing from this service; scheduled posts to it will fail. Its tokens are erased. Posts already published stay on the network.</p>
<form method="post" action="${P}/accounts/${a.id}/disconnect"><input type="hidden" name="csrf_token" value="${s.csrfToken}"><input type="hidden" name="workspace_id" value="${a.workspace_id}">
<div class="actions"><button type="submit" id="confirm-disconnect">Disconnect</button><a href="${P}?workspace_id=${a.workspace_id}" role="button" class="secondary outline">Cancel</a></div></form></div>`,
        ),
      );
    } catch (err) {
      next(err);
    }
  });

  router.post(`${P}/accounts/:id/disconnect`, headers, limit, session, form, async (req, res, next) => {
    try {
      const s = guard(req, res);
      if (!s) return;
      const a = await accountOf(req, res, s);
      if (!a) return;
      if (
        !(await disconnectAccount(
          ctx.db,
          { userId: s.userId, workspaceId: a.workspace_id },
          a.id,
          ctx.clock.now(),
        ))
      )
        return errorPage(res, 404, "Not found", "No such account.");
      res.redirect(303, `${P}?workspace_id=${a.workspace_id}&disconnected=1`);
    } catch (err) {
      next(err);
    }
  });

  router.post(`${P}/accounts/:id/settings`, headers, limit, session, form, async (req, res, next) => {
    try {
      const s = guard(req, res);
      if (!s) return;
      const a = await accountOf(req, res, s);
      if (!a) return;
      const opened = await openAccount(ctx.db, ctx.sealer, a.id);
      const { fields, error } = await accountSettingFields(ctx, opened);
      const body = req.body as Record<string, unknown>;
      // fields the network could not list now keep their saved values
      const settings = { ...opened.settings } as Record<string, string>;
      for (const f of fields) {
        const v = body[f.key];
        if (v === undefined && error) continue;
        if (typeof v !== "string" || !f.options.some(([o]) => o === v))
          return errorPage(
            res,
            400,
            "Invalid value",
            `${f.label} must be one of: ${f.options.map(([, l]) => l).join(", ")}.`,
          );
        settings[f.key] = v;
      }
      await updateAccountSettings(
        ctx.db,
        { userId: s.userId, workspaceId: a.workspace_id },
        a.id,
        settings,
        ctx.clock.now(),
      );
      res.redirect(303, `${P}?workspace_id=${a.workspace_id}&saved=1`);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
