/**
 * get_profile: the identity of the user who authorized the connection (service spec 4.3), with the plan of
 * the active subscription (`creator` without one, as `userPlan`), read in one query (it is the call of the
 * /mcp benchmark, bench/README.md).
 */
import type { Plan } from "../../domain/account/plans.ts";
import { notFound } from "../../errors.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

interface ProfileRow {
  id: string;
  email: string;
  display_name: string | null;
  plan: Plan | null;
}

export const handler: ToolHandlers["get_profile"] = {
  async execute(_input, { db, auth }) {
    const user: ProfileRow | undefined = await db("users as u")
      .where("u.id", auth.userId)
      .first(
        "u.id",
        "u.email",
        "u.display_name",
        db.raw(
          "(select s.plan from subscriptions s where s.user_id = u.id and s.status = 'active' limit 1) as plan",
        ),
      );
    if (!user) throw notFound("user");
    return {
      data: {
        user_id: user.id,
        email: user.email,
        display_name: user.display_name ?? null,
        plan: user.plan ?? "creator",
      },
    };
  },
};
