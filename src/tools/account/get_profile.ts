/** get_profile: the identity of the user who authorized the connection (service spec 4.3). */
import { userPlan } from "../../domain/accounts.ts";
import { notFound } from "../../errors.ts";
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import type { ToolHandler } from "../../runtime/types.ts";

export const handler: ToolHandler<ToolInputs["get_profile"], ToolOutputs["get_profile"]> = {
  async execute(_input, { db, auth }) {
    const user = await db("users").where({ id: auth.userId }).first("id", "email", "display_name");
    if (!user) throw notFound("user");
    return {
      data: {
        user_id: user.id as string,
        email: user.email as string,
        display_name: (user.display_name as string | null) ?? null,
        plan: await userPlan(db, auth.userId),
      },
    };
  },
};
