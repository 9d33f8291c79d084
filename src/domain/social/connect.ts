/**
 * The connect flow of social accounts (service spec 1.8, 1.9: browser only), OAuth 2.0 authorization code
 * grant (RFC 6749 section 4.1) with PKCE S256 (RFC 7636) where the network supports it:
 * 1. `startConnect`: a random `state` (stored as its SHA-256) bound to the browser session and workspace,
 *    single use, valid 10 minutes; the PKCE verifier sealed beside it. Returns the network's authorize URL
 *    (through the SOCIAL_HTTP_OVERRIDE rewrite of src/providers/social/http.ts) with the exact redirect URI
 *    `{PUBLIC_BASE_URL}/settings/social/callback/{network}`.
 * 2. `finishConnect`: checks and consumes the state, refuses a denied consent, exchanges the code, refuses
 *    a grant missing a required scope, lists the accounts behind the tokens and records them
 *    (`upsertConnectedAccount`: reconnecting the same network account updates its row). When the network
 *    asks for a choice (Facebook Pages) the accounts are kept sealed on the state row and the user picks
 *    (`pickAccounts`).
 * Errors are `ConnectError` with a message fit for the page; no token or code ever reaches it or a log.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { rowBinding } from "../../crypto/seal.ts";
import type { AppContext } from "../../context.ts";
import { type NetworkAccount, NetworkError, type TokenSet } from "../../providers/social/network.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import { mintSandboxCode } from "../../providers/social/sandbox/sandbox.ts";
import type { Network } from "../../providers/social/types.ts";
import { inactiveReason } from "../account/suspension.ts";
import type { Owner } from "../owner.ts";
import { type SafeSocialAccount, upsertConnectedAccount } from "./accounts.ts";

/** Lifetime of a connect `state`, seconds. */
export const CONNECT_STATE_TTL = 600;

/** A connect failure; `message` is shown to the user as is. */
export class ConnectError extends Error {
  override name = "ConnectError";
}

const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");

/** The exact redirect URI registered with the network. */
export function callbackUrl(publicBaseUrl: string, network: Network): string {
  return `${publicBaseUrl}/settings/social/callback/${network}`;
}

/**
 * Starts connecting `network` for the session's user in `workspaceId`.
 * @returns the URL to send the browser to.
 */
export async function startConnect(
  app: AppContext,
  input: { sessionHash: string; userId: string; workspaceId: string; network: Network },
): Promise<string> {
  const adapter = app.providers.networks.adapter(input.network);
  const state = randomBytes(32).toString("base64url");
  const verifier = adapter.oauth.pkce ? randomBytes(32).toString("base64url") : undefined;
  const redirectUri = callbackUrl(app.config.publicBaseUrl, input.network);
  const now = app.clock.now();
  const id = randomUUID();
  await app.db("social_connect_states").insert({
    id,
    state_hash: sha256(state),
    session_hash: input.sessionHash,
    user_id: input.userId,
    workspace_id: input.workspaceId,
    network: input.network,
    code_verifier_sealed: verifier
      ? app.sealer.seal(verifier, rowBinding("social_connect_states", "code_verifier_sealed", id))
      : null,
    redirect_uri: redirectUri,
    expires_at: new Date(now.getTime() + CONNECT_STATE_TTL * 1000),
    created_at: now,
  });
  const url = adapter.oauth.authorizeUrl({
    state,
    redirectUri,
    codeChallenge: verifier ? createHash("sha256").update(verifier).digest("base64url") : undefined,
  });
  return app.providers.socialHttp.overrideUrl(url);
}

export type ConnectOutcome =
  | { kind: "connected"; accounts: SafeSocialAccount[]; workspaceId: string }
  | { kind: "pick"; pickId: string; accounts: Array<{ index: number; handle: string; displayName: string }> };

/** Maps the network's `error` parameter (RFC 6749 4.1.2.1) to a sentence. */
function deniedMessage(error: string, network: Network): string {
  const label = NETWORK_RULES[network].label;
  if (error === "access_denied")
    return `You declined the ${label} consent, so nothing was connected. Connect again when you are ready.`;
  // LinkedIn refuses the whole consent when the app lacks one requested scope (the page scopes).
  if (error === "unauthorized_scope_error")
    return `${label} refused the permissions this service asked for: the ${label} app has not been granted one of them (the organization page scopes come with the Community Management API product; without it, leave LINKEDIN_ORGANIZATIONS unset). Nothing was connected.`;
  return `${label} did not grant access (${error.replace(/[^a-z_]/gi, "").slice(0, 40)}). Nothing was connected.`;
}

/** @throws ConnectError when `owner`'s user or workspace is no longer active (nothing is connected). */
async function refuseInactive(app: AppContext, owner: Owner): Promise<void> {
  const reason = await inactiveReason(app.db, owner);
  if (reason) throw new ConnectError(`Nothing was connected: ${reason}.`);
}

/**
 * Completes the callback for `network`.
 * @throws ConnectError for a missing, used, expired or foreign state, an inactive user or workspace, a
 *   denied consent, a failed exchange, missing scopes or no publishable account.
 */
export async function finishConnect(
  app: AppContext,
  input: {
    network: Network;
    sessionHash: string;
    state: unknown;
    code: unknown;
    error: unknown;
  },
): Promise<ConnectOutcome> {
  if (typeof input.state !== "string" || input.state.length > 200)
    throw new ConnectError("This connection link is not valid. Start again from the Social accounts page.");
  const now = app.clock.now();
  // Single use: the state is consumed whatever happens next.
  const [row] = await app
    .db("social_connect_states")
    .where({ state_hash: sha256(input.state), network: input.network })
    .whereNull("consumed_at")
    .update({ consumed_at: now })
    .returning("*");
  if (!row)
    throw new ConnectError(
      "This connection link was already used or is not valid. Start again from the Social accounts page.",
    );
  if (row.session_hash !== input.sessionHash)
    throw new ConnectError("This connection was started in another browser session. Start again here.");
  if (new Date(row.expires_at).getTime() <= now.getTime())
    throw new ConnectError("This connection took longer than 10 minutes and expired. Start again.");
  await refuseInactive(app, { userId: row.user_id, workspaceId: row.workspace_id });
  if (typeof input.error === "string" && input.error)
    throw new ConnectError(deniedMessage(input.error, input.network));
  if (typeof input.code !== "string" || !input.code || input.code.length > 4096)
    throw new ConnectError("The network sent no authorization code. Start again.");
  const adapter = app.providers.networks.adapter(input.network);
  const label = NETWORK_RULES[input.network].label;
  let tokens: TokenSet;
  let accounts: NetworkAccount[];
  try {
    tokens = await adapter.oauth.exchangeCode({
      code: input.code,
      redirectUri: row.redirect_uri,
      codeVerifier: row.code_verifier_sealed
        ? app.sealer.open<string>(
            row.code_verifier_sealed,
            rowBinding("social_connect_states", "code_verifier_sealed", row.id),
          )
        : undefined,
    });
    const missing = adapter.oauth.requiredScopes.filter((s) => !tokens.scopes.includes(s));
    if (missing.length > 0)
      throw new ConnectError(
        `${label} did not grant every permission publishing needs (missing: ${missing.join(", ")}). Connect again and allow all of them.`,
      );
    accounts = await adapter.oauth.accounts(tokens);
  } catch (err) {
    if (err instanceof ConnectError) throw err;
    app.log.warn({ network: input.network, errName: (err as Error)?.name }, "social connect failed");
    throw new ConnectError(
      err instanceof NetworkError
        ? `${label} refused the connection: ${err.message}. Start again.`
        : `${label} could not be reached to finish the connection. Try again in a moment.`,
    );
  }
  if (accounts.length === 0)
    throw new ConnectError(`${label} returned no account that can publish. Nothing was connected.`);
  const owner: Owner = { userId: row.user_id, workspaceId: row.workspace_id };
  if (adapter.oauth.pickAccounts) {
    await app
      .db("social_connect_states")
      .where({ id: row.id })
      .update({
        pending_accounts_sealed: app.sealer.seal(
          { tokens: serialise(tokens), accounts: accounts.map(serialiseAccount) },
          pendingBinding(row.id),
        ),
      });
    return {
      kind: "pick",
      pickId: row.id,
      accounts: accounts.map((a, index) => ({
        index,
        handle: a.handle,
        displayName: a.displayName ?? a.handle,
      })),
    };
  }
  const saved: SafeSocialAccount[] = [];
  for (const account of accounts)
    saved.push(
      (
        await upsertConnectedAccount(app.db, app.sealer, owner, {
          network: input.network,
          mode: adapter.mode,
          account,
          tokens,
          now,
        })
      ).account,
    );
  return { kind: "connected", accounts: saved, workspaceId: row.workspace_id };
}

type StoredTokens = Omit<TokenSet, "expiresAt" | "refreshExpiresAt"> & {
  expiresAt?: string | undefined;
  refreshExpiresAt?: string | undefined;
};
function serialise(t: TokenSet): StoredTokens {
  return { ...t, expiresAt: t.expiresAt?.toISOString(), refreshExpiresAt: t.refreshExpiresAt?.toISOString() };
}
function revive(t: StoredTokens): TokenSet {
  return {
    ...t,
    expiresAt: t.expiresAt ? new Date(t.expiresAt) : undefined,
    refreshExpiresAt: t.refreshExpiresAt ? new Date(t.refreshExpiresAt) : undefined,
  };
}
function serialiseAccount(a: NetworkAccount) {
  return { ...a, tokens: a.tokens ? serialise(a.tokens) : undefined };
}

/** The choices waiting on a pick (Facebook Pages), for the picker page; undefined when gone or expired. */
export async function pendingPick(
  app: AppContext,
  pickId: string,
  sessionHash: string,
): Promise<
  { network: Network; accounts: Array<{ index: number; handle: string; displayName: string }> } | undefined
> {
  const row = await loadPick(app, pickId, sessionHash);
  if (!row) return undefined;
  const stored = app.sealer.open<{ accounts: NetworkAccount[] }>(
    row.pending_accounts_sealed,
    pendingBinding(row.id),
  );
  return {
    network: row.network,
    accounts: stored.accounts.map((a, index) => ({
      index,
      handle: a.handle,
      displayName: a.displayName ?? a.handle,
    })),
  };
}

/** The seal binding of a connect state's pending Page choices. */
const pendingBinding = (id: string) => rowBinding("social_connect_states", "pending_accounts_sealed", id);

async function loadPick(app: AppContext, pickId: string, sessionHash: string) {
  if (!/^[0-9a-f-]{36}$/i.test(pickId)) return undefined;
  const row = await app.db("social_connect_states").where({ id: pickId }).first();
  if (!row?.pending_accounts_sealed || row.session_hash !== sessionHash) return undefined;
  if (new Date(row.expires_at).getTime() <= app.clock.now().getTime()) return undefined;
  return row;
}

/**
 * Connects the accounts the user picked (indexes into the pending list) and clears the pending list.
 * @throws ConnectError when the pick expired, nothing was chosen or the user or workspace is not active.
 */
export async function pickAccounts(
  app: AppContext,
  pickId: string,
  sessionHash: string,
  indexes: number[],
): Promise<{ accounts: SafeSocialAccount[]; workspaceId: string }> {
  const row = await loadPick(app, pickId, sessionHash);
  if (!row) throw new ConnectError("This choice expired. Connect again from the Social accounts page.");
  const stored = app.sealer.open<{
    tokens: StoredTokens;
    accounts: Array<ReturnType<typeof serialiseAccount>>;
  }>(row.pending_accounts_sealed, pendingBinding(row.id));
  const chosen = [...new Set(indexes)].filter(
    (i) => Number.isInteger(i) && i >= 0 && i < stored.accounts.length,
  );
  if (chosen.length === 0) throw new ConnectError("Choose at least one Page to connect.");
  const adapter = app.providers.networks.adapter(row.network);
  const owner: Owner = { userId: row.user_id, workspaceId: row.workspace_id };
  await refuseInactive(app, owner);
  const out: SafeSocialAccount[] = [];
  for (const i of chosen) {
    const a = stored.accounts[i]!;
    const account: NetworkAccount = { ...a, tokens: a.tokens ? revive(a.tokens) : undefined };
    out.push(
      (
        await upsertConnectedAccount(app.db, app.sealer, owner, {
          network: row.network,
          mode: adapter.mode,
          account,
          tokens: revive(stored.tokens),
          now: app.clock.now(),
        })
      ).account,
    );
  }
  await app.db("social_connect_states").where({ id: row.id }).update({ pending_accounts_sealed: null });
  return { accounts: out, workspaceId: row.workspace_id };
}

/**
 * Connects sandbox accounts named `names` without a browser (operator command `admin social connect`, test
 * fixtures): the same sandbox authorization code, exchange and account listing the consent page uses.
 */
export async function connectSandboxAccounts(
  app: AppContext,
  owner: Owner,
  network: Network,
  names: string[],
): Promise<SafeSocialAccount[]> {
  const adapter = app.providers.networks.forAccount(network, "sandbox");
  const redirectUri = callbackUrl(app.config.publicBaseUrl, network);
  const code = mintSandboxCode(
    {
      publicBaseUrl: app.config.publicBaseUrl,
      sealer: app.sealer,
      now: () => app.clock.now(),
      http: app.providers.socialHttp,
    },
    { network, names, redirectUri, codeChallenge: null },
  );
  const tokens = await adapter.oauth.exchangeCode({ code, redirectUri });
  const out: SafeSocialAccount[] = [];
  for (const account of await adapter.oauth.accounts(tokens))
    out.push(
      (
        await upsertConnectedAccount(app.db, app.sealer, owner, {
          network,
          mode: "sandbox",
          account,
          tokens,
          now: app.clock.now(),
        })
      ).account,
    );
  return out;
}
