/**
 * Pinterest's removal (../published-post.ts): `DELETE /v5/pins/{pin_id}` -> 204 (pins/delete,
 * https://developers.pinterest.com/docs/api/v5/pins-delete; test/contracts/pinterest.json). It needs
 * `pins:write`, which every Pinterest grant this service asks for carries (./table.ts). A Pin Pinterest does
 * not have (404, code 50 "Pin not found.") counts as removed; another account's Pin is refused (403) as a
 * `PinterestRejectedError`. Pinterest API v5 has no comment endpoint: the adapter has no `comments`.
 */
import { type AdapterAccount, NetworkRejectedError } from "../network.ts";
import type { NetworkRemover } from "../published-post.ts";
import type { SocialHttp } from "../http.ts";
import { PinterestRejectedError, pinterestRequest } from "./api.ts";

/** Deleting a Pin. */
export function pinterestRemover(http: SocialHttp): NetworkRemover<AdapterAccount> {
  return {
    async remove(account, post, signal) {
      // pins/delete's `pin_id` is decimal digits (the description's `PinKey` pattern).
      if (!/^\d+$/.test(post.networkPostId))
        throw new NetworkRejectedError("the delivery has no Pinterest Pin id to delete");
      try {
        await pinterestRequest(http, {
          method: "DELETE",
          path: `/pins/${post.networkPostId}`,
          accessToken: account.tokens.accessToken,
          signal,
        });
      } catch (err) {
        // A Pin Pinterest no longer has (deleted on Pinterest by hand): nothing is left to remove.
        if (err instanceof PinterestRejectedError && err.status === 404) return;
        throw err;
      }
    },
  };
}
