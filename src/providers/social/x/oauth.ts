/**
 * X OAuth 2.0: the flow of X's table (./table.ts, read by ../oauth-flow.ts: the authorization code grant
 * with PKCE S256, HTTP Basic client authentication, the rotating refresh token returned for the engine to
 * save) and the user behind the token (https://docs.x.com/x-api/users/get-my-user):
 * `GET https://api.x.com/2/users/me?user.fields=profile_image_url` -> `{data:{id, name, username,
 * profile_image_url}}`.
 */
import type { User } from "./contract.ts";
import { type NetworkAccount, NetworkAuthError } from "../network.ts";
import type { OAuthDeps, OAuthParts } from "../oauth-flow.ts";
import { xRequest } from "./api.ts";
import { X_CAPABILITIES } from "./table.ts";

export { X_CAPABILITIES, X_SCOPES } from "./table.ts";

/** The user as `GET /2/users/me` answers it. */
/** The user `GET /2/users/me` answers, as the description types it (read as possibly partial). */
export type XUser = Partial<Pick<User, "id" | "name" | "username" | "profile_image_url">>;

/** The parts of X's OAuth its table cannot say: the user behind the token. */
export function xOAuthParts({ http, now }: OAuthDeps): OAuthParts {
  return {
    async accounts(tokens): Promise<NetworkAccount[]> {
      const r = await xRequest<XUser>(
        http,
        {
          method: "GET",
          path: "/2/users/me",
          query: { "user.fields": "profile_image_url" },
          accessToken: tokens.accessToken,
        },
        now,
      );
      const user = r.data;
      if (!user?.id || !user.username) throw new NetworkAuthError("X returned no user for the token");
      return [
        {
          networkAccountId: user.id,
          handle: user.username,
          displayName: user.name,
          avatarUrl: user.profile_image_url,
          capabilities: X_CAPABILITIES,
          metadata: { username: user.username },
        },
      ];
    },
  };
}
