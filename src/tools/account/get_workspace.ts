/**
 * get_workspace: the one workspace chosen at consent (the token's workspace, `auth.workspaceId`) and the
 * user's role in it (service spec 2.1, 4.3). Takes no arguments: no tool can switch workspaces.
 */
import { notFound } from "../../errors.ts";
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["get_workspace"], ToolOutputs["get_workspace"]> = {
  async execute(_input, { db, auth }) {
    const row = await db("workspaces as w")
      .join("memberships as m", "m.workspace_id", "w.id")
      .where({ "w.id": auth.workspaceId, "m.user_id": auth.userId })
      .first("w.id", "w.name", "m.role");
    if (!row) throw notFound("workspace");
    return {
      data: {
        workspace_id: row.id as string,
        name: row.name as string,
        role: row.role === "owner" ? "owner" : "member",
      },
    };
  },
};
