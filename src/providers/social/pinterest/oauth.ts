/**
 * Pinterest OAuth (API v5): the flow of Pinterest's table (./table.ts, read by ../oauth-flow.ts: the
 * authorization code grant without PKCE, HTTP Basic client authentication, continuous refresh tokens) and
 * the Pinterest account behind the token (https://developers.pinterest.com/docs/api/v5/user_account-get):
 * `GET /v5/user_account` -> `{id, username, profile_image, account_type, business_name}`; with exactly one
 * board, that board becomes the account's board. Token endpoint errors come as `{code, message}` (or the
 * OAuth `{error, error_description}`); ../oauth-token.ts reads both.
 */
import { type NetworkAccount, NetworkAuthError } from "../network.ts";
import type { OAuthDeps, OAuthParts } from "../oauth-flow.ts";
import { pinterestRequest } from "./api.ts";
import { BOARD_SETTING, listBoards } from "./boards.ts";
import { PINTEREST_CAPABILITIES } from "./table.ts";

/** The parts of Pinterest's OAuth its table cannot say: the account behind the token, and its only board. */
export function pinterestOAuthParts({ http }: OAuthDeps): OAuthParts {
  return {
    async accounts(tokens): Promise<NetworkAccount[]> {
      const me = await pinterestRequest<{
        id?: string;
        username?: string;
        profile_image?: string;
        account_type?: string;
        business_name?: string | null;
      }>(http, { method: "GET", path: "/user_account", accessToken: tokens.accessToken });
      if (!me.username) throw new NetworkAuthError("Pinterest returned no account for the token");
      // With exactly one board, that board is the account's board until the user picks another.
      let settings: Record<string, string> | undefined;
      try {
        const boards = await listBoards(http, tokens.accessToken);
        if (boards.length === 1) settings = { [BOARD_SETTING]: boards[0]!.id };
      } catch {
        settings = undefined;
      }
      return [
        {
          networkAccountId: me.id || me.username,
          handle: me.username,
          displayName: me.business_name || me.username,
          avatarUrl: me.profile_image,
          capabilities: PINTEREST_CAPABILITIES,
          metadata: { accountType: me.account_type ?? null },
          settings,
        },
      ];
    },
  };
}
