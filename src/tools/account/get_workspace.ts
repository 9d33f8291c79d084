/**
 * get_workspace: the one workspace chosen at consent (the token's workspace, `auth.workspaceId`) and the
 * user's role in it (service spec 2.1, 4.3). Takes no arguments: no tool can switch workspaces.
 */
import { notFound } from "../../errors.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

export const handler: ToolHandlers["get_workspace"] = {
  async execute(_input, { db, auth }) {
    const row = await db("workspaces as w")
      .join("memberships as m", "m.workspace_id", "w.id")
      .where({ "w.id": auth.workspaceId, "m.user_id": auth.userId })
      .first("w.id", "w.name", "m.role");
    if (!row) throw notFound("workspace");
    return {
      data: {
        workspace_id: row.id,
        name: row.name,
        role: row.role === "owner" ? "owner" : "member",
      },
    };
  },
};
