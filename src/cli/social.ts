/**
 * Operator command `admin social connect --workspace-id W --email E --network N --name NAME [--handle H]
 * [--mode sandbox|live --network-account-id ID]`: connects a social account for that user and workspace
 * without a browser. Tools can never connect accounts (service spec 1.9); users connect in the browser at
 * /settings/social.
 * - `--mode sandbox` (default): a sandbox account, through the same sandbox authorization code and token
 *   exchange as the sandbox consent page (src/providers/social/sandbox/sandbox.ts); it publishes to this
 *   service's /sandbox pages only.
 * - `--mode live`: a live account with tokens the operator obtained elsewhere, read from the environment
 *   (`SOCIAL_ACCESS_TOKEN`, optional `SOCIAL_REFRESH_TOKEN`; never from the command line) and sealed.
 * Prints the safe projection (no token).
 */
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { connectSocialAccount } from "../domain/social/accounts.ts";
import { connectSandboxAccounts } from "../domain/social/connect.ts";
import { NETWORKS, type Network } from "../providers/social/types.ts";
import { flags, UsageError } from "./args.ts";

export const SOCIAL_USAGE = `admin social connect --workspace-id UUID --email E --network ${NETWORKS.join("|")} --name NAME [--handle H] [--mode sandbox|live --network-account-id ID (tokens from SOCIAL_ACCESS_TOKEN / SOCIAL_REFRESH_TOKEN)]`;

/**
 * Runs `admin social <verb>`. `app` (the booted context) is needed to seal tokens.
 * @throws UsageError for bad flags, an unknown user or a non-member.
 */
export async function runSocialAdmin(
  db: Knex,
  argv: string[],
  app?: AppContext,
  env: Record<string, string | undefined> = process.env,
): Promise<unknown> {
  const [verb, ...rest] = argv;
  if (verb !== "connect")
    throw new UsageError(`unknown admin social command "${verb ?? ""}"\n${SOCIAL_USAGE}`);
  const f = flags(
    rest,
    ["workspace-id", "email", "network", "name", "handle", "mode", "network-account-id"],
    ["workspace-id", "email", "network", "name"],
  );
  if (!/^[0-9a-f-]{36}$/i.test(f["workspace-id"]!)) throw new UsageError("--workspace-id must be a UUID");
  if (!(NETWORKS as readonly string[]).includes(f.network!))
    throw new UsageError(`--network must be one of ${NETWORKS.join(", ")}`);
  const mode = f.mode ?? "sandbox";
  if (mode !== "sandbox" && mode !== "live") throw new UsageError("--mode must be sandbox or live");
  const user = await db("users").whereRaw("lower(email) = lower(?)", [f.email!]).first("id");
  if (!user) throw new UsageError(`no user with email ${f.email}`);
  const member = await db("memberships").where({ workspace_id: f["workspace-id"], user_id: user.id }).first();
  if (!member) throw new UsageError("the user is not a member of that workspace");
  if (!app) throw new UsageError("admin social connect needs the service context (run it through the CLI)");
  const owner = { userId: user.id, workspaceId: f["workspace-id"]! };
  const name = f.name!.trim();
  if (!name || name.length > 60) throw new UsageError("--name must be 1 to 60 characters");
  try {
    if (mode === "live") {
      if (!f["network-account-id"]) throw new UsageError("--mode live needs --network-account-id");
      const accessToken = env.SOCIAL_ACCESS_TOKEN;
      if (!accessToken) throw new UsageError("--mode live reads the access token from SOCIAL_ACCESS_TOKEN");
      return await connectSocialAccount(db, app.sealer, owner, {
        network: f.network!,
        displayName: name,
        handle: f.handle,
        mode: "live",
        networkAccountId: f["network-account-id"],
        accessToken,
        refreshToken: env.SOCIAL_REFRESH_TOKEN || undefined,
      });
    }
    const [account] = await connectSandboxAccounts(app, owner, f.network as Network, [name]);
    if (f.handle) {
      await db("social_accounts")
        .where({ id: account!.social_account_id })
        .update({ handle: f.handle.trim() });
      return { ...account!, handle: f.handle.trim() };
    }
    return account;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }
}
