/**
 * The account settings page `GET /settings` (service spec 4.4, 8 "Plan quotas", 1.8): one page in five
 * sections, each with an anchor listed at the top: account (#account), workspaces (#workspaces), connected
 * apps (#connected-apps, each revocable; their requests are on /settings/integrations/mcp), social accounts
 * (#social-accounts, per workspace; connecting happens on /settings/social) and billing and credits
 * (#billing). Session required; every value is escaped (src/web/html.ts). Tables stack into label/value
 * lines below 40rem so the page reads on a 375 px phone without horizontal scrolling.
 */
import { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { listConnections } from "../domain/account/connections.ts";
import { accountOverview } from "../domain/account/overview.ts";
import { PRICES } from "../domain/account/prices.ts";
import type { Quota } from "../domain/account/quotas.ts";
import { userTimeZone } from "../domain/account/time-zone.ts";
import { isScope, SCOPES } from "../scopes.ts";
import { ACCOUNT_STATUS_WORDS, networkLabel, statusBadge } from "./badges.ts";
import { html, page, type RawHtml, stackTable } from "./html.ts";
import { signedInPage } from "./guards.ts";
import type { BrowserSession } from "./session.ts";
import { SETTINGS_PATH } from "./settings.ts";
import { timeZoneForm } from "./time-zone-setting.ts";

export const ACCOUNT_SETTINGS_PATH = "/settings";

/** The sections of the page, in order: anchor id and heading. */
export const SETTINGS_SECTIONS = [
  ["account", "Account"],
  ["workspaces", "Workspaces"],
  ["connected-apps", "Connected apps"],
  ["social-accounts", "Social accounts"],
  ["billing", "Billing and credits"],
] as const;

const day = (d: Date | string | null) => (d ? new Date(d).toISOString().slice(0, 10) : "never");
const ownedLine = (q: Quota) =>
  q.allowed === null
    ? `You own ${q.used} workspace${q.used === 1 ? "" : "s"}; your plan allows any number.`
    : `You own ${q.used} of the ${q.allowed} workspace${q.allowed === 1 ? "" : "s"} your plan allows.`;

async function renderSettings(ctx: AppContext, session: BrowserSession): Promise<string> {
  const [overview, connections, zone] = await Promise.all([
    accountOverview(ctx.db, session.userId),
    listConnections(ctx.db, session.userId, ctx.clock.now()),
    userTimeZone(ctx.db, session.userId),
  ]);
  const section = (id: (typeof SETTINGS_SECTIONS)[number][0], body: RawHtml) => {
    const title = SETTINGS_SECTIONS.find(([s]) => s === id)![1];
    return html`<section id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>${body}</section>`;
  };
  const nav = html`<nav class="sections" aria-label="Sections">${SETTINGS_SECTIONS.map(
    ([id, title]) => html`<a href="#${id}">${title}</a>`,
  )}</nav>`;

  const account = html`<p>Signed in as <strong>${overview.email}</strong>.</p>
<p>Plan: <strong>${overview.plan}</strong>. <a href="/logout">Sign out</a></p>
${timeZoneForm(zone, session.csrfToken)}`;

  const workspaces = html`${stackTable(
    ["Workspace", "Your role", "Social accounts"],
    overview.workspaces.map((w) => [html`${w.name}`, html`${w.role}`, html`${w.socialAccounts.length}`]),
  )}
<p class="muted">${ownedLine(overview.ownedWorkspaces)}</p>`;

  const apps =
    connections.length === 0
      ? html`<p class="muted">No application is connected.</p>`
      : stackTable(
          ["Application", "Workspace", "Permissions", "Last used", ""],
          connections.map((c) => [
            html`${c.client_name ?? "Unnamed application"} <span class="muted">(unverified)</span>`,
            html`${c.workspace_name}`,
            html`${c.scope
              .split(" ")
              .filter(isScope)
              .map((s) => SCOPES[s])
              .join("; ")}`,
            c.connected
              ? html`<span class="nowrap">${day(c.last_used_at)}</span>`
              : html`not finished connecting`,
            html`<form method="post" action="${SETTINGS_PATH}/connections/${c.id}/revoke" class="inline"><input type="hidden" name="csrf_token" value="${session.csrfToken}"><button type="submit" class="secondary">Revoke</button></form>`,
          ]),
        );
  const connected = html`${apps}
<p><a href="${SETTINGS_PATH}">Requests of connected apps and approvals</a></p>`;

  const social = html`${overview.workspaces.map(
    (w) =>
      html`<h3>${w.name}</h3>${
        w.socialAccounts.length === 0
          ? html`<p class="muted">No social account connected.</p>`
          : stackTable(
              ["Network", "Account", "Status"],
              w.socialAccounts.map((a) => [
                networkLabel(a.network),
                html`${a.display_name}${a.handle ? html` <span class="muted">@${a.handle}</span>` : ""}`,
                statusBadge(ACCOUNT_STATUS_WORDS, a.status),
              ]),
            )
      }`,
  )}
<p><a href="/settings/social">Connect or manage social accounts</a></p>`;

  const billing = html`<p>Credits left: <strong id="credit-balance">${overview.credits}</strong></p>
${stackTable(
  ["Item", "Credits"],
  [
    [html`Each generated image (carousel slide, single image)`, html`${PRICES.generated_image}`],
    [html`2x2 grid video`, html`${PRICES.grid_video}`],
    [html`Single-fade video`, html`${PRICES.fade_video}`],
    [html`UGC video`, html`${PRICES.ugc_video}`],
  ],
)}`;

  return page(
    "Settings",
    html`<h1>Settings</h1>
${nav}
${section("account", account)}
${section("workspaces", workspaces)}
${section("connected-apps", connected)}
${section("social-accounts", social)}
${section("billing", billing)}`,
    { current: ACCOUNT_SETTINGS_PATH },
  );
}

/** The router of `GET /settings`. */
export function accountSettingsRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    ACCOUNT_SETTINGS_PATH,
    ...signedInPage(ctx, "settings"),
    async (_req: Request, res: Response) => {
      res.type("html").send(await renderSettings(ctx, res.locals.session as BrowserSession));
    },
  );
  return router;
}
