/**
 * The landing page `GET /`: what this service is and where to go (the MCP endpoint to give an agent, the
 * developer reference, the settings, the connection settings, the media library). Public; no user data on it.
 */
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { html, page } from "./html.ts";
import { pageHeaders } from "./security.ts";

export function homeRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  router.get("/", headers, (_req, res) => {
    const body = html`<h1>Social MCP</h1>
<p>Connect an AI agent to your social-content workspace through the Model Context Protocol.</p>
<p>MCP endpoint (give this URL to your MCP client): <code>${ctx.config.resourceUrl}</code></p>
<ul>
<li><a href="/developers/mcp">Developer reference</a>: tools, scopes, states and errors</li>
<li><a href="/settings">Settings</a>: account, workspaces, connected apps, social accounts, credits</li>
<li><a href="/settings/integrations/mcp">Connections and approval requests</a></li>
<li><a href="/media">Media library</a></li>
<li><a href="/login">Sign in</a></li>
</ul>`;
    res.type("html").send(page("Social MCP", body));
  });
  return router;
}
