/** list_connected_social_accounts: the safe projection of the workspace's connected accounts (no tokens). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listSocialAccounts } from "../../domain/social/accounts.ts";
import type { ToolHandler } from "../../tool-contract.ts";

type Output = ToolOutputs["list_connected_social_accounts"];

export const handler: ToolHandler<ToolInputs["list_connected_social_accounts"], Output> = {
  async execute(_input, ctx) {
    const items = await listSocialAccounts(ctx.db, ownerOf(ctx.auth));
    return { data: { items: items as Output["items"] } };
  },
};
