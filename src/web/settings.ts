/**
 * MCP settings page (issue 3 item 8, service spec 4.4): `GET /settings/integrations/mcp` lists the user's
 * connections (client, workspace, scopes in plain words, created, last used) and pending approval
 * requests; `POST /settings/integrations/mcp/connections/{uuid}/revoke` (session + CSRF) revokes one. A
 * connection of another user is "not found".
 */
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { rateLimit } from "../http/rate-limit.ts";
import { listConnections, revokeGrant } from "../oauth/grants.ts";
import { isScope, SCOPES } from "../scopes.ts";
import { html, page } from "./html.ts";
import { pageHeaders } from "./security.ts";
import { type BrowserSession, csrfOk, requireSession } from "./session.ts";

export const SETTINGS_PATH = "/settings/integrations/mcp";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function when(d: Date | string | null): string {
  return d ? new Date(d).toISOString().replace("T", " ").slice(0, 16) + " UTC" : "never";
}

interface PendingRequest {
  id: string;
  tool: string;
  created_at: Date;
  client_name: string | null;
}

async function pendingRequests(ctx: AppContext, userId: string): Promise<PendingRequest[]> {
  return ctx
    .db("operations as o")
    .join("oauth_clients as c", "c.client_id", "o.client_id")
    .where({ "o.user_id": userId, "o.state": "approval_required" })
    .where((q) => q.whereNull("o.approval_expires_at").orWhere("o.approval_expires_at", ">", ctx.clock.now()))
    .orderBy("o.created_at", "desc")
    .limit(50)
    .select("o.id", "o.tool", "o.created_at", "c.client_name");
}

async function settingsPage(ctx: AppContext, session: BrowserSession, notice?: string): Promise<string> {
  const connections = await listConnections(ctx.db, session.userId);
  const requests = await pendingRequests(ctx, session.userId);
  const user = await ctx.db("users").where({ id: session.userId }).first("email");
  const rows = connections.map(
    (
      c,
    ) => html`<tr data-connection-id="${c.id}"><td>${c.client_name ?? "Unnamed application"} <span class="muted">(unverified)</span></td>
<td>${c.workspace_name}</td>
<td><ul>${c.scope
      .split(" ")
      .filter(isScope)
      .map((s) => html`<li>${SCOPES[s]}</li>`)}</ul></td>
<td>${when(c.created_at)}</td><td>${when(c.last_used_at)}</td>
<td><form method="post" action="${SETTINGS_PATH}/connections/${c.id}/revoke">
<input type="hidden" name="csrf_token" value="${session.csrfToken}"><button type="submit">Revoke</button></form></td></tr>`,
  );
  const pending = requests.map(
    (
      r,
    ) => html`<li><a href="${SETTINGS_PATH}/requests/${r.id}">${r.tool}</a> from ${r.client_name ?? "an unnamed application"},
${when(r.created_at)}</li>`,
  );
  return page(
    "MCP connections",
    html`<h1>MCP connections</h1>
<p class="muted">Signed in as ${user?.email ?? ""}. <a href="/logout">Sign out</a></p>
${notice ? html`<p class="warn" role="status">${notice}</p>` : ""}
<h2>Pending requests</h2>
${pending.length ? html`<ul>${pending}</ul>` : html`<p class="muted">No requests wait for your approval.</p>`}
<h2>Connected applications</h2>
${
  rows.length
    ? html`<table><thead><tr><th>Application</th><th>Workspace</th><th>Permissions</th><th>Connected</th><th>Last used</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
    : html`<p class="muted">No application is connected.</p>`
}`,
  );
}

/** The settings router. */
export function settingsRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  const limit = rateLimit(ctx, "settings", ctx.config.limits.browser);
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 10 });
  const session = requireSession(ctx);

  router.get(SETTINGS_PATH, headers, limit, session, async (req: Request, res: Response, next) => {
    try {
      const notice = req.query.revoked === "1" ? "The connection was revoked." : undefined;
      res.type("html").send(await settingsPage(ctx, res.locals.session as BrowserSession, notice));
    } catch (err) {
      next(err);
    }
  });

  router.post(
    `${SETTINGS_PATH}/connections/:id/revoke`,
    headers,
    limit,
    session,
    form,
    async (req, res, next) => {
      try {
        const s = res.locals.session as BrowserSession;
        if (!csrfOk(req, s)) {
          res
            .status(403)
            .type("html")
            .send(page("Forbidden", html`<p class="error">The form expired. Reload the page.</p>`));
          return;
        }
        const id = req.params.id;
        const grant =
          typeof id === "string" && UUID.test(id)
            ? await ctx.db("oauth_grants").where({ id, user_id: s.userId }).first("id")
            : undefined;
        if (!grant) {
          res.status(404).type("html").send(page("Not found", html`<p>No such connection.</p>`));
          return;
        }
        await revokeGrant(ctx, grant.id, "user");
        res.redirect(303, `${SETTINGS_PATH}?revoked=1`);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
