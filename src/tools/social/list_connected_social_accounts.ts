/** list_connected_social_accounts: the safe projection of the workspace's connected accounts (no tokens). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listSocialAccounts } from "../../domain/social/accounts.ts";

export const handler: ToolHandlers["list_connected_social_accounts"] = {
  async execute(_input, ctx) {
    const items = await listSocialAccounts(ctx.db, ownerOf(ctx.auth));
    return { data: { items: items } };
  },
};
