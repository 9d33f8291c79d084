/**
 * The sandbox connector's pages (src/providers/social/sandbox/sandbox.ts), clearly labelled "Sandbox":
 *   GET  /sandbox/{network}/authorize   the sandbox consent page (stands in for the network's own; signed-in
 *                                        users only): account names (Facebook: Page names), Allow / Deny
 *   POST /sandbox/{network}/authorize   (CSRF) Allow -> 303 to the redirect URI with `code` and `state`;
 *                                        Deny -> `error=access_denied` (RFC 6749 4.1.2, 4.1.2.1)
 *   GET  /sandbox/{network}/{delivery}  a sandbox delivery as published: account, caption, images or video
 *                                        (through signed media URLs), time, its first comment once posted.
 *                                        Public like a real post URL;
 *                                        404 for anything but a published sandbox delivery (a removed one too).
 * The redirect URI must be this service's exact callback for the network; otherwise the page refuses
 * without redirecting (RFC 6749 4.1.2.1).
 */
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { signedMediaUrl } from "../domain/media/public-url.ts";
import { isUuid } from "../ids.ts";
import { postMedia } from "../domain/social/validate.ts";
import { callbackUrl } from "../domain/social/connect.ts";
import { NETWORK_RULES } from "../providers/social/rules.ts";
import { sandboxAllowed } from "../providers/providers.ts";
import { mintSandboxCode } from "../providers/social/sandbox/sandbox.ts";
import { isNetwork, type Network } from "../providers/social/types.ts";
import { rateLimit } from "../runtime/rate-limit.ts";
import { html, page, problemPage } from "./html.ts";
import { cspHeader, pageHeaders } from "./security.ts";
import { type BrowserSession, csrfOk, requireSession } from "./session.ts";

function banner(network: Network) {
  return html`<p class="sandbox-banner" role="note">Sandbox · ${NETWORK_RULES[network].label} is not contacted: nothing is posted to ${NETWORK_RULES[network].label}. Posts appear on pages of this service only.</p>`;
}

function refuse(res: Response, status: number, message: string) {
  res
    .status(status)
    .type("html")
    .send(problemPage("Sandbox", message, { href: "/settings/social", label: "Social accounts" }));
}

/** The sandbox router. */
export function sandboxRoutes(ctx: AppContext): Router {
  const router = Router();
  const headers = pageHeaders(ctx);
  const session = requireSession(ctx);
  const limit = rateLimit(ctx, "sandbox", ctx.config.limits.browser);
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 20 });

  /** Validates the authorization request; returns its parameters or answers an error page. */
  const request = (req: Request, res: Response, source: Record<string, unknown>) => {
    const network = String(req.params.network);
    if (!isNetwork(network)) {
      refuse(res, 404, "No such network.");
      return undefined;
    }
    if (!sandboxAllowed(ctx.config, network)) {
      // SOCIAL_SANDBOX_NETWORKS does not name it (in production: no stand-in unless named).
      refuse(res, 404, "No sandbox runs for this network on this server.");
      return undefined;
    }
    const redirectUri = source.redirect_uri;
    if (redirectUri !== callbackUrl(ctx.config.publicBaseUrl, network)) {
      refuse(res, 400, "The redirect URI is not this service's callback for this network.");
      return undefined;
    }
    const state = typeof source.state === "string" ? source.state.slice(0, 200) : "";
    const challenge =
      typeof source.code_challenge === "string" && /^[A-Za-z0-9_-]{43}$/.test(source.code_challenge)
        ? source.code_challenge
        : null;
    if (
      source.code_challenge !== undefined &&
      (challenge === null || source.code_challenge_method !== "S256")
    ) {
      refuse(res, 400, "Only PKCE with S256 is supported.");
      return undefined;
    }
    return { network, redirectUri, state, challenge };
  };

  router.get("/sandbox/:network/authorize", headers, session, async (req, res) => {
    const r = request(req, res, req.query as Record<string, unknown>);
    if (!r) return;
    const s = res.locals.session as BrowserSession;
    const label = NETWORK_RULES[r.network].label;
    const user = await ctx.db("users").where({ id: s.userId }).first("email");
    const suggested = `${String(user?.email ?? "sandbox").split("@")[0]} ${r.network === "facebook" ? "Page" : label}`;
    const hidden = (name: string, value: string | null) =>
      value === null ? "" : html`<input type="hidden" name="${name}" value="${value}">`;
    res.setHeader("Content-Security-Policy", cspHeader([new URL(ctx.config.publicBaseUrl).origin]));
    res.type("html").send(
      page(
        `Sandbox ${label}`,
        html`<div class="centered">${banner(r.network)}<h1>Sandbox ${label}: allow Social MCP to publish?</h1>
<p>This sandbox stands in for ${label}'s own consent page because no ${label} app is configured on this server. Allowing creates a <strong>sandbox ${label} account</strong> in your workspace.</p>
<form method="post" action="/sandbox/${r.network}/authorize">
<input type="hidden" name="csrf_token" value="${s.csrfToken}">${hidden("redirect_uri", r.redirectUri)}${hidden("state", r.state)}${hidden("code_challenge", r.challenge)}${hidden("code_challenge_method", r.challenge ? "S256" : null)}
<label>${r.network === "facebook" ? "Page names (comma-separated; you will choose which to connect)" : "Account name"}
<input name="names" value="${suggested}" maxlength="300" required></label>
<div class="actions"><button type="submit" name="decision" value="allow" id="sandbox-allow">Allow</button>
<button type="submit" name="decision" value="deny" id="sandbox-deny" class="secondary" formnovalidate>Deny</button></div>
</form></div>`,
      ),
    );
  });

  router.post("/sandbox/:network/authorize", headers, limit, session, form, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    if (!csrfOk(req, s)) return refuse(res, 403, "The form expired. Start again from Social accounts.");
    const body = req.body as Record<string, unknown>;
    const r = request(req, res, body);
    if (!r) return;
    const back = new URL(r.redirectUri);
    back.searchParams.set("state", r.state);
    if (body.decision !== "allow") {
      back.searchParams.set("error", "access_denied");
      return res.redirect(303, back.toString());
    }
    const names = String(body.names ?? "")
      .split(r.network === "facebook" ? "," : /\n/)
      .map((n) => n.trim())
      .filter(Boolean);
    let code: string;
    try {
      code = mintSandboxCode(
        {
          publicBaseUrl: ctx.config.publicBaseUrl,
          sealer: ctx.sealer,
          now: () => ctx.clock.now(),
          http: ctx.providers.socialHttp,
        },
        { network: r.network, names, redirectUri: r.redirectUri, codeChallenge: r.challenge },
      );
    } catch (err) {
      return refuse(res, 400, (err as Error).message);
    }
    back.searchParams.set("code", code);
    res.redirect(303, back.toString());
  });

  router.get("/sandbox/:network/:delivery", headers, async (req, res, next) => {
    try {
      const network = String(req.params.network);
      const id = String(req.params.delivery);
      const notFound = () => refuse(res, 404, "No such sandbox post.");
      if (!isNetwork(network) || !isUuid(id)) return notFound();
      const d = await ctx
        .db("deliveries as d")
        .join("social_accounts as a", "a.id", "d.social_account_id")
        .join("posts as p", "p.id", "d.post_id")
        .where({ "d.id": id, "d.status": "published", "a.network": network, "a.mode": "sandbox" })
        .first(
          "d.published_at",
          "a.display_name",
          "a.handle",
          "p.id as post_id",
          "p.type",
          "p.caption",
          "p.title",
          "p.media_asset_ids",
          "d.first_comment",
          "d.first_comment_status",
        );
      if (!d) return notFound();
      const media = await postMedia(ctx.db, {
        id: d.post_id,
        type: d.type,
        media_asset_ids: d.media_asset_ids,
      });
      const now = ctx.clock.now();
      const url = (assetId: string) =>
        signedMediaUrl(ctx.config.publicBaseUrl, ctx.keys.encryptionKeys, assetId, now);
      const items = media.map((m, i) =>
        m.kind === "video"
          ? html`<video controls preload="metadata" src="${url(m.assetId)}" data-asset-id="${m.assetId}"></video>`
          : html`<img src="${url(m.assetId)}" alt="Image ${i + 1} of ${media.length}" data-asset-id="${m.assetId}">`,
      );
      res.setHeader("Content-Security-Policy", `${cspHeader()}; media-src 'self'`);
      res.type("html").send(
        page(
          `Sandbox ${NETWORK_RULES[network].label} post`,
          html`${banner(network)}<article class="sandbox-post">
<h1>Sandbox ${NETWORK_RULES[network].label} post</h1>
<p><strong>${d.display_name}</strong>${d.handle ? html` <span class="muted">@${String(d.handle).replace(/^@/, "")}</span>` : ""} · <span class="muted">published ${new Date(d.published_at).toISOString().replace("T", " ").slice(0, 16)} UTC (sandbox)</span></p>
<div class="media">${items}</div>
${d.title ? html`<h2>${d.title}</h2>` : ""}
<p class="caption">${d.caption ?? ""}</p>
${d.first_comment_status === "posted" ? html`<p class="first-comment" id="first-comment"><strong>${d.display_name}</strong> ${d.first_comment}</p>` : ""}
</article>`,
        ),
      );
    } catch (err) {
      next(err);
    }
  });
  return router;
}
