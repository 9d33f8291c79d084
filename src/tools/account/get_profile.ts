/**
 * get_profile: the identity of the user who authorized the connection (service spec 4.3), with the plan of
 * the active subscription (`creator` without one, as `userPlan`) and the user's IANA time zone (`UTC` until
 * one is chosen on /settings), read by one prepared statement shared with
 * the concurrent calls of the same turn (src/db/batched-read.ts; it is the call of the /mcp benchmark,
 * bench/README.md).
 */
import type { Plan } from "../../domain/account/plans.ts";
import { batchedRead, runBatchedRead } from "../../db/batched-read.ts";
import { notFound } from "../../errors.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

interface ProfileRow {
  id: string;
  email: string;
  display_name: string | null;
  plan: Plan | null;
  time_zone: string | null;
}

/** The user by id. */
const PROFILE = batchedRead(
  "get-profile",
  ["uuid"],
  ([userId]) => `select u.id, u.email, u.display_name, u.time_zone,
          (select s.plan from subscriptions s where s.user_id = u.id and s.status = 'active' limit 1) as plan
     from users u
    where u.id = ${userId}
    limit 1`,
);

export const handler: ToolHandlers["get_profile"] = {
  async execute(_input, { db, auth }) {
    const [user] = await runBatchedRead<ProfileRow>(db, PROFILE, [auth.userId]);
    if (!user) throw notFound("user");
    return {
      data: {
        user_id: user.id,
        email: user.email,
        display_name: user.display_name ?? null,
        plan: user.plan ?? "creator",
        // UTC until the user chooses a zone on /settings (src/domain/account/time-zone.ts).
        time_zone: user.time_zone ?? "UTC",
      },
    };
  },
};
