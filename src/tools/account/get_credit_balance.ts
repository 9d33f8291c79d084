/** get_credit_balance: the account-wide credit balance in credits and the plan (service spec 4.3, 8). */
import { userPlan } from "../../domain/account/accounts.ts";
import { creditBalance } from "../../domain/account/credits.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

export const handler: ToolHandlers["get_credit_balance"] = {
  async execute(_input, { db, auth }) {
    const [balance, plan] = await Promise.all([creditBalance(db, auth.userId), userPlan(db, auth.userId)]);
    return { data: { balance: Math.max(0, balance), plan } };
  },
};
