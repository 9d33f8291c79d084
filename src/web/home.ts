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
    const body = html`<section class="hero">
<h1>Your social content, run by your AI assistant, approved by you</h1>
<p>Social MCP lets an AI agent create posts, carousels and videos for your products and publish or schedule them to Instagram, TikTok, Facebook, YouTube, LinkedIn, Pinterest and X. Nothing goes out until you approve it here, in your browser.</p>
<p><label for="mcp-endpoint">MCP endpoint: give this URL to your MCP client</label>
<input id="mcp-endpoint" type="text" readonly value="${ctx.config.resourceUrl}"></p>
<p class="actions"><a href="/login" role="button">Sign in</a><a href="/developers/mcp" role="button" class="secondary outline">Developer reference</a></p>
</section>
<h2>How it works</h2>
<ol class="steps">
<li><strong>Connect.</strong> Add the endpoint to your assistant; it asks you to sign in and to choose one workspace and what it may do.</li>
<li><strong>Ask.</strong> The assistant drafts posts, generates carousels and captions, and asks to publish or schedule them.</li>
<li><strong>Approve.</strong> Each publication waits for you on its request page, with every slide, the caption and every destination.</li>
</ol>
<h2>Where things are</h2>
<ul class="cards">
<li><a href="/posts"><strong>Posts</strong></a><span class="muted">What is scheduled, published or failed, per network</span></li>
<li><a href="/settings/integrations/mcp"><strong>Connections and approval requests</strong></a><span class="muted">Assistants you connected and what they asked to do</span></li>
<li><a href="/settings/social"><strong>Social accounts</strong></a><span class="muted">Connect each network with its own sign-in</span></li>
<li><a href="/media"><strong>Media library</strong></a><span class="muted">Upload images and videos your assistant can use</span></li>
<li><a href="/settings"><strong>Settings</strong></a><span class="muted">Account, workspaces, time zone, credits</span></li>
<li><a href="/developers/mcp"><strong>Developer reference</strong></a><span class="muted">Tools, scopes, states and errors</span></li>
</ul>`;
    res.type("html").send(page("Social MCP", body));
  });
  return router;
}
