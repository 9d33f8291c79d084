import type { AppContext } from "../context.ts";
import { accountSyncStatuses } from "../domain/analytics/analytics.ts";
import { accountSettingFields } from "../domain/social/account-settings.ts";
import { openAccount } from "../domain/social/accounts.ts";
import type { AccountSettingField } from "../providers/social/network.ts";
import { publicMediaPrefix } from "../domain/media/public-url.ts";
import { networkMode } from "../providers/providers.ts";
import { NETWORK_RULES } from "../providers/social/rules.ts";
import { NETWORKS, type Network } from "../providers/social/types.ts";
import { ACCOUNT_STATUS_WORDS, networkLabel, statusBadge } from "./badges.ts";
import { html, page, type RawHtml, stackTable } from "./html.ts";
import type { BrowserSession } from "./session.ts";

/** The social accounts page. */
export const SOCIAL_SETTINGS_PATH = "/settings/social";

interface AccountRow {
  id: string;
  network: Network;
  display_name: string;
  handle: string | null;
  status: string;
  mode: string;
  capabilities: Record<string, boolean>;
  settings: Record<string, string>;
  last_error: string | null;
  connected_at: Date;
}

function can(c: Record<string, boolean>): string {
  const words = [
    c.text && "text",
    c.image && "images",
    c.carousel && "carousels",
    c.video && "videos",
  ].filter(Boolean);
  return words.length ? words.join(", ") : "—";
}

export async function accountsPage(
  ctx: AppContext,
  s: BrowserSession,
  workspace: { id: string; name: string },
  workspaces: Array<{ id: string; name: string }>,
  notice?: string,
): Promise<string> {
  const rows = (await ctx
    .db("social_accounts")
    .where({ workspace_id: workspace.id, user_id: s.userId })
    .whereNot({ status: "disconnected" })
    .orderBy([{ column: "network" }, { column: "display_name" }])
    .select(
      "id",
      "network",
      "display_name",
      "handle",
      "status",
      "mode",
      "capabilities",
      "settings",
      "last_error",
      "connected_at",
    )) as AccountRow[];
  const csrf = html`<input type="hidden" name="csrf_token" value="${s.csrfToken}"><input type="hidden" name="workspace_id" value="${workspace.id}">`;
  const connectForm = (network: Network, label: string) =>
    html`<form method="post" action="${SOCIAL_SETTINGS_PATH}/connect/${network}" class="inline">${csrf}<button type="submit" data-connect="${network}"${label.startsWith("Reconnect") ? "" : html` class="secondary outline"`}>${label}</button></form>`;
  const choices = new Map<string, { fields: AccountSettingField[]; error?: string }>();
  await Promise.all(
    rows
      .filter((a) => a.status === "connected")
      .map(async (a) =>
        choices.set(a.id, await accountSettingFields(ctx, await openAccount(ctx.db, ctx.sealer, a.id))),
      ),
  );
  const syncs = await accountSyncStatuses(
    ctx.db,
    rows.map((a) => a.id),
  );
  /** The account's last successful metrics sync, and why the last one failed. */
  const lastSync = (a: AccountRow): RawHtml => {
    const st = syncs.get(a.id);
    const when = st?.syncedAt ? `${st.syncedAt.toISOString().replace("T", " ").slice(0, 16)} UTC` : "never";
    return html`<span class="last-sync">${when}</span>${
      st?.lastError ? html`<br><span class="muted sync-error">Last sync failed: ${st.lastError}</span>` : ""
    }`;
  };
  const settingsForm = (a: AccountRow): RawHtml | string => {
    const c = choices.get(a.id);
    if (!c || (c.fields.length === 0 && !c.error)) return "";
    const error = c.error ? html`<p class="warn" role="status">${c.error}</p>` : "";
    if (c.fields.length === 0) return error;
    return html`${error}<form method="post" action="${SOCIAL_SETTINGS_PATH}/accounts/${a.id}/settings" class="account-defaults">${csrf}${c.fields.map(
      (f) =>
        html`<label>${f.label} <select name="${f.key}">${f.options.map(
          ([v, l]) =>
            html`<option value="${v}"${(a.settings?.[f.key] ?? f.defaultValue) === v ? " selected" : ""}>${l}</option>`,
        )}</select></label>`,
    )}<button type="submit" class="secondary">Save defaults</button></form>`;
  };
  const accountRows = rows.map((a) => ({
    attrs: { "data-account-id": a.id, "data-network": a.network, "data-status": a.status },
    cells: [
      html`${networkLabel(a.network)}${a.mode === "sandbox" ? html` <strong class="sandbox">Sandbox</strong>` : ""}`,
      html`${a.display_name}${a.handle ? html`<br><span class="muted">@${a.handle.replace(/^@/, "")}</span>` : ""}`,
      html`<span class="status">${statusBadge(ACCOUNT_STATUS_WORDS, a.status)}</span>${
        a.status !== "connected" && a.last_error ? html`<br><span class="muted">${a.last_error}</span>` : ""
      }${a.status !== "connected" ? html`<br>${connectForm(a.network, "Reconnect")}` : ""}`,
      html`${can(a.capabilities ?? {})}`,
      lastSync(a),
      html`${settingsForm(a)}<a href="${SOCIAL_SETTINGS_PATH}/accounts/${a.id}/disconnect?workspace_id=${workspace.id}">Disconnect</a>`,
    ],
  }));
  // Networks whose adapter can be built, with their mode (a network without one has no Connect button).
  const modes = NETWORKS.flatMap((n): Array<[Network, string]> => {
    try {
      return [[n, ctx.providers.networks.adapter(n).mode]];
    } catch {
      return [];
    }
  });
  const connectRows = modes.map(
    ([n, mode]) =>
      html`<li>${connectForm(n, `Connect ${NETWORK_RULES[n].label}`)}${
        mode === "sandbox" && modes.some(([, m]) => m !== "sandbox")
          ? html` <strong class="sandbox">Sandbox</strong>`
          : ""
      }</li>`,
  );
  const sandboxed = modes.filter(([, mode]) => mode === "sandbox").map(([n]) => NETWORK_RULES[n].label);
  const unavailable = NETWORKS.filter((n) => networkMode(ctx.config, n) === "unavailable").map(
    (n) => NETWORK_RULES[n].label,
  );
  const switcher =
    workspaces.length > 1
      ? html`<form method="get" action="${SOCIAL_SETTINGS_PATH}" class="filters"><label>Workspace <select name="workspace_id">${workspaces.map(
          (w) => html`<option value="${w.id}"${w.id === workspace.id ? " selected" : ""}>${w.name}</option>`,
        )}</select></label><button type="submit">Show</button></form>`
      : "";
  return page(
    "Social accounts",
    html`<h1>Social accounts</h1>
<p class="muted">Workspace ${workspace.name}. Accounts are connected here, never by an assistant. <a href="/settings/integrations/mcp">MCP connections</a></p>
${switcher}
${notice ? html`<p class="ok" role="status">${notice}</p>` : ""}
<h2>Connected accounts</h2>
${
  accountRows.length
    ? stackTable(["Network", "Account", "Status", "Can publish", "Metrics synced", ""], accountRows, {
        id: "accounts",
      })
    : html`<p class="muted" id="no-accounts">No account is connected in this workspace yet.</p>`
}
<h2>Connect an account</h2>
${
  sandboxed.length > 0
    ? html`<p class="muted" id="sandbox-note">Sandbox: no app is configured on this server for ${sandboxed.join(", ")}, so connecting creates a sandbox account that publishes to pages of this service only.</p>`
    : ""
}
<ul class="connect">${connectRows}</ul>
${
  unavailable.length > 0
    ? html`<p class="muted" id="unavailable-note">Not available on this server: ${unavailable.join(", ")} (no app is configured for ${unavailable.length === 1 ? "it" : "them"}).</p>`
    : ""
}
${
  modes.some(([n, mode]) => n === "tiktok" && mode === "live")
    ? html`<p class="muted" id="tiktok-url-prefix">TikTok pulls photo posts from this service: the URL prefix <code>${publicMediaPrefix(ctx.config.publicBaseUrl)}</code> must be verified for your TikTok app (TikTok developer portal, Content Posting API, URL properties), or TikTok refuses them (url_ownership_unverified).</p>`
    : ""
}`,
    { current: SOCIAL_SETTINGS_PATH },
  );
}
