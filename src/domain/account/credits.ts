/**
 * The credit ledger (service spec 8): append-only rows, balance = sum of deltas, per user (credits are
 * account-wide). Charges run inside the caller's transaction and lock the user's row so that two
 * concurrent charges cannot overdraw.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";

/** Current balance in credits. */
export async function creditBalance(db: Knex, userId: string): Promise<number> {
  const row = await db("credit_ledger").where({ user_id: userId }).sum({ total: "delta" }).first();
  return Number(row?.total ?? 0);
}

/** Adds `credits` (> 0) to the user's balance. Returns the new balance. */
export async function grantCredits(
  db: Knex,
  userId: string,
  credits: number,
  reason: string,
): Promise<number> {
  if (!Number.isSafeInteger(credits) || credits <= 0) throw new Error("credits must be a positive integer");
  await db("credit_ledger").insert({ user_id: userId, delta: credits, reason });
  return creditBalance(db, userId);
}

/**
 * Charges `credits` within transaction `trx`, before any work starts.
 * @throws ToolError `forbidden` when the balance is short (nothing is written).
 */
export async function chargeCredits(
  trx: Knex.Transaction,
  charge: {
    userId: string;
    workspaceId: string;
    credits: number;
    reason: string;
    referenceId?: string;
    operationId?: string;
  },
): Promise<void> {
  if (charge.credits === 0) return;
  await trx.raw("select id from users where id = ? for update", [charge.userId]);
  const balance = await creditBalance(trx, charge.userId);
  if (balance < charge.credits) {
    throw new ToolError(
      "forbidden",
      `insufficient credits: this action costs ${charge.credits} credits and the balance is ${balance}; the user can add credits on /settings#billing`,
      { credits_required: charge.credits, credits_balance: balance },
      undefined,
      { actionPath: "/settings#billing" },
    );
  }
  await trx("credit_ledger").insert({
    user_id: charge.userId,
    workspace_id: charge.workspaceId,
    delta: -charge.credits,
    reason: charge.reason,
    reference_id: charge.referenceId ?? null,
    operation_id: charge.operationId ?? null,
  });
}

/**
 * Gives back `credits` (> 0) charged for work that produced nothing (a failed video render), within `trx`,
 * as one ledger row referencing the same record as the charge.
 */
export async function refundCredits(
  trx: Knex.Transaction,
  refund: {
    userId: string;
    workspaceId: string;
    credits: number;
    reason: string;
    referenceId: string;
    operationId?: string;
  },
): Promise<void> {
  if (!Number.isSafeInteger(refund.credits) || refund.credits <= 0)
    throw new Error("credits must be a positive integer");
  await trx("credit_ledger").insert({
    user_id: refund.userId,
    workspace_id: refund.workspaceId,
    delta: refund.credits,
    reason: refund.reason,
    reference_id: refund.referenceId,
    operation_id: refund.operationId ?? null,
  });
}
