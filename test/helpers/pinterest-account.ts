/**
 * Connects a live Pinterest account of the fake (test/fakes/pinterest.ts) as the browser flow does: the
 * adapter's account (with its defaults, e.g. the only board as the account's board), then the upsert with
 * the tokens the fake issued. Shared by the Pinterest tests.
 */
import type { AppContext } from "../../src/context.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import type { PinterestUser } from "../fakes/pinterest.ts";

/** @returns the social account id. */
export async function connectPinterest(ctx: AppContext, owner: Owner, user: PinterestUser): Promise<string> {
  const tokens = {
    accessToken: user.accessToken,
    refreshToken: user.refreshToken,
    expiresAt: new Date(Date.now() + 30 * 86_400_000),
    scopes: ["boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read"],
  };
  const [networkAccount] = await ctx.providers.networks.adapter("pinterest").oauth.accounts(tokens);
  const { account } = await upsertConnectedAccount(ctx.db, ctx.sealer, owner, {
    network: "pinterest",
    mode: "live",
    account: networkAccount!,
    tokens,
    now: new Date(),
  });
  return account.social_account_id;
}
