/**
 * Idempotency for mutation tools (issue 5, service spec 2.6, 4.2 rule 2): key unique per (connection,
 * tool); same key + same canonical arguments -> the original envelope; different arguments ->
 * `idempotency_conflict`; concurrent duplicates never run twice.
 * PLACEHOLDER: runs `run` once in a transaction; the operations issue implements the real semantics.
 */
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import type { AuthContext, Envelope, RegisteredTool } from "./types.ts";

/**
 * Runs `run(trx)` at most once for (auth.grantId, tool.name, args.idempotency_key) and returns its envelope,
 * or the stored envelope of the first run. The transaction commits the effect and the record together.
 */
export async function runIdempotent(
  ctx: AppContext,
  _auth: AuthContext,
  _tool: RegisteredTool,
  _args: Record<string, unknown>,
  run: (trx: Knex.Transaction) => Promise<Envelope>,
): Promise<Envelope> {
  return ctx.db.transaction((trx) => run(trx));
}
