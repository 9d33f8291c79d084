/**
 * TikTok Login Kit (OAuth v2) for the Content Posting API: the flow of TikTok's table (./table.ts, read by
 * ../oauth-flow.ts: `client_key`, comma-separated scopes, the 24-hour access token and its refresh) and the
 * creator behind the token (networks.md 2.1; https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info).
 * Token endpoint errors come as `{error, error_description, log_id}`.
 */
import { type NetworkAccount, NetworkAuthError } from "../network.ts";
import type { OAuthDeps, OAuthParts } from "../oauth-flow.ts";
import { tiktokRequest } from "./api.ts";
import { TIKTOK_CAPABILITIES } from "./table.ts";

export { TIKTOK_CAPABILITIES };

/** The parts of TikTok's OAuth its table cannot say: the creator behind the token. */
export function tiktokOAuthParts({ http }: OAuthDeps): OAuthParts {
  return {
    async accounts(tokens): Promise<NetworkAccount[]> {
      const profile = tokens.scopes.includes("user.info.profile");
      const fields = ["open_id", "avatar_url", "display_name", ...(profile ? ["username"] : [])].join(",");
      const r = await tiktokRequest<{
        user?: { open_id?: string; avatar_url?: string; display_name?: string; username?: string };
      }>(http, {
        method: "GET",
        path: "/v2/user/info/",
        query: { fields },
        accessToken: tokens.accessToken,
      });
      const user = r.data.user;
      if (!user?.open_id) throw new NetworkAuthError("TikTok returned no creator for the token");
      return [
        {
          networkAccountId: user.open_id,
          handle: user.username ?? user.display_name ?? user.open_id,
          displayName: user.display_name,
          avatarUrl: user.avatar_url,
          capabilities: TIKTOK_CAPABILITIES,
          metadata: { username: user.username ?? null },
        },
      ];
    },
  };
}
