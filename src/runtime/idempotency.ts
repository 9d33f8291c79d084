/**
 * Idempotency for mutation tools (service spec 2.6, 4.2 rule 2, 7 rule 1), with the rules of Stripe's
 * idempotent requests (https://docs.stripe.com/api/idempotent_requests).
 *
 * The record is keyed by (grant, tool, SHA-256 of the key) and holds the SHA-256 of the canonical JSON of
 * the arguments (keys sorted, `idempotency_key` itself excluded) and the sealed envelope of the first call.
 * - Same key, same arguments: the first call's envelope again (same `operation_id`, no second effect).
 * - Same key, other arguments: ToolError `idempotency_conflict`.
 * - A new connection (grant) is a new namespace.
 * - The first call's outcome is kept whether it succeeded or failed with a tool error (`not_found`,
 *   `validation_failed`, `forbidden`, ...): its effect runs in a savepoint, which a failure rolls back, and
 *   the record then stores the error envelope, so the same key and arguments answer the same error and other
 *   arguments are `idempotency_conflict`. Not kept: `rate_limited` and `internal_error` (nothing ran, or the
 *   service failed: the same key may be sent again), and refusals before the call reached this step (invalid
 *   arguments, missing scope, a plan the user lacks, HTTP-level refusals), as Stripe saves no result for a
 *   request that did not start executing.
 * - Concurrent duplicates: the first call inserts the record inside the transaction that runs the effect;
 *   a concurrent `INSERT ... ON CONFLICT DO NOTHING` of the same key blocks on that row until the first
 *   transaction ends, then finds the committed record and replays it. Nothing runs twice.
 * - Queued work dispatched after commit (src/runtime/paths.ts): a dispatch failure is stored as
 *   `dispatch_failed`; replaying the identical call re-dispatches the operation and answers `queued`.
 * - A review request the owner declined, or that expired, is answered `denied` on a replay, with the decision
 *   and its time and no approval URL (service spec 3.1: a new intent needs a new request). One the owner
 *   approved is answered with its operation's state now (`approved`, `queued`, `running`, `succeeded`,
 *   `failed`, `outcome_unknown`), `data.decision: "approved"` and the get_job_status poll as `next`, so that a
 *   client that lost the first answer neither shows a decided link nor asks again.
 */
import type { AppContext } from "../context.ts";
import { canonicalHash } from "../crypto/canonical-json.ts";
import { rowBinding, sha256 } from "../crypto/seal.ts";
import type { Knex } from "../db/knex.ts";
import { ToolError } from "../errors.ts";
import { dispatchOperation } from "../domain/operations/dispatch.ts";
import { runCommitHooks, takeCommitHooks } from "./after-commit.ts";
import type { AuthContext, Envelope, RegisteredTool } from "../tool-contract.ts";
import { pollOperation } from "./paths.ts";

/** SHA-256 of the canonical arguments without `idempotency_key`. */
export function argumentsHash(args: Record<string, unknown>): string {
  const { idempotency_key: _key, ...rest } = args;
  return canonicalHash(rest);
}

class ErrorEnvelope extends Error {
  readonly envelope: Envelope;
  constructor(envelope: Envelope) {
    super("error envelope");
    this.envelope = envelope;
  }
}

/** Error codes whose outcome is never kept: nothing ran (rate_limited) or the service failed (internal_error). */
const NOT_KEPT: ReadonlySet<string> = new Set(["rate_limited", "internal_error"]);

/**
 * The envelope to keep for a first call that failed, or undefined when the failure is not kept (see the
 * module comment). `failure(err)` turns a ToolError into its envelope (the pipeline's `failureEnvelope`).
 */
function keptFailure(err: unknown, failure: (err: ToolError) => Envelope): Envelope | undefined {
  if (err instanceof ErrorEnvelope)
    return err.envelope.error && !NOT_KEPT.has(err.envelope.error.code) ? err.envelope : undefined;
  if (err instanceof ToolError && !NOT_KEPT.has(err.code)) return failure(err);
  return undefined;
}

/**
 * Runs `run(trx)` at most once for (auth.grantId, tool.name, args.idempotency_key) and returns its
 * envelope, or the stored envelope of the first run. The transaction commits the effect and the record
 * together; `run` works in a savepoint of it, so a tool error rolls the effect back while the record keeps
 * the error envelope (`failure(err)` builds it). Hooks registered with `afterCommit(trx, ...)` run after the
 * commit (only when `run` succeeded) and may change the envelope (which is then stored as changed).
 * @throws ToolError `idempotency_conflict` (same key, other arguments), `validation_failed` (no key);
 *   whatever `run` throws when it is not a kept failure (nothing is stored then).
 */
export async function runIdempotent(
  ctx: AppContext,
  auth: AuthContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  run: (trx: Knex.Transaction) => Promise<Envelope>,
  failure: (err: ToolError) => Envelope,
): Promise<Envelope> {
  const key = args.idempotency_key;
  if (typeof key !== "string" || key.length === 0) {
    throw ToolError.validation("idempotency_key is required for this tool", {
      path: "",
      keyword: "required",
      schemaPath: "#/required",
      params: { missingProperty: "idempotency_key" },
      rule: "must have required property 'idempotency_key'",
    });
  }
  const id = { grant_id: auth.grantId, tool: tool.name, key_hash: sha256(key) };
  const argsHash = argumentsHash(args);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    let hooksOf: Knex.Transaction | undefined;
    let outcome:
      | { kind: "ran"; envelope: Envelope; failed: boolean }
      | { kind: "stored"; row: Record<string, any> }
      | undefined;
    try {
      outcome = await ctx.db.transaction(async (trx) => {
        const now = ctx.clock.now();
        const inserted = await trx("idempotency_records")
          .insert({ ...id, arguments_hash: argsHash, state: "in_flight", created_at: now, updated_at: now })
          .onConflict(["grant_id", "tool", "key_hash"])
          .ignore()
          .returning("key_hash");
        if (inserted.length === 0) {
          // Another call holds or held this key; the INSERT above waited for it to commit.
          const row = await trx("idempotency_records").where(id).first();
          return row ? { kind: "stored" as const, row } : undefined;
        }
        let envelope: Envelope;
        let failed = false;
        try {
          envelope = await trx.transaction(async (savepoint) => {
            hooksOf = savepoint;
            const e = await run(savepoint);
            if (e.error) throw new ErrorEnvelope(e);
            return e;
          });
        } catch (err) {
          const kept = keptFailure(err, failure);
          if (!kept) throw err;
          if (hooksOf) takeCommitHooks(hooksOf);
          envelope = kept;
          failed = true;
        }
        await trx("idempotency_records")
          .where(id)
          .update({
            state: "done",
            response_sealed: ctx.sealer.seal(envelope, responseBinding(id)),
            operation_id: envelope.operation_id ?? null,
            updated_at: ctx.clock.now(),
          });
        return { kind: "ran" as const, envelope, failed };
      });
    } catch (err) {
      if (hooksOf) takeCommitHooks(hooksOf);
      if (err instanceof ErrorEnvelope) return err.envelope;
      throw err;
    }
    if (!outcome) continue; // the record vanished between the conflict and the read (grant deleted): retry
    if (outcome.kind === "ran") {
      const hooks = hooksOf && !outcome.failed ? takeCommitHooks(hooksOf) : [];
      if (hooks.length === 0) return outcome.envelope;
      const after = await runCommitHooks(hooks, outcome.envelope);
      if (after !== outcome.envelope) await store(ctx, id, after);
      return after;
    }
    const { row } = outcome;
    if (row.arguments_hash !== argsHash) throw conflict();
    return replay(ctx, id, ctx.sealer.open<Envelope>(row.response_sealed as string, responseBinding(id)));
  }
  throw new ToolError("internal_error", "the idempotency record could not be settled");
}

/**
 * Looks up a finished record of (auth.grantId, tool.name, args.idempotency_key) without taking a lock, so
 * that the pipeline can answer an exact retry before it spends the per-user budget (a retry is not new
 * work). Returns the stored envelope (re-dispatching as `runIdempotent` does) or undefined when there is
 * no finished record (none yet, or one in flight: `runIdempotent` settles those).
 * @throws ToolError `idempotency_conflict` when the finished record holds other arguments.
 */
export async function peekIdempotent(
  ctx: AppContext,
  auth: AuthContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
): Promise<Envelope | undefined> {
  const key = args.idempotency_key;
  if (typeof key !== "string" || key.length === 0) return undefined;
  const id = { grant_id: auth.grantId, tool: tool.name, key_hash: sha256(key) };
  const row = await ctx
    .db("idempotency_records")
    .where(id)
    .first("state", "arguments_hash", "response_sealed");
  if (!row || row.state !== "done" || !row.response_sealed) return undefined;
  if (row.arguments_hash !== argumentsHash(args)) throw conflict();
  return replay(ctx, id, ctx.sealer.open<Envelope>(row.response_sealed as string, responseBinding(id)));
}

function conflict(): ToolError {
  return new ToolError(
    "idempotency_conflict",
    "This idempotency_key was already used for this tool with different arguments; use a new key for a new request.",
  );
}

/**
 * The stored envelope of a replay. An operation whose dispatch failed is dispatched again (service spec 3.1:
 * retrying the identical call with the same key is allowed); a queued envelope reports whether the
 * operation is in the queue now; a review request that was declined or expired answers `denied` with
 * `data: {decision, decided_at}` and no approval URL.
 */
async function replay(ctx: AppContext, id: RecordId, envelope: Envelope): Promise<Envelope> {
  const operationId = envelope.operation_id;
  if (!operationId) return envelope;
  const row = await ctx
    .db("operations")
    .where({ id: operationId })
    .first("state", "decision", "decided_at", "approval_expires_at", "updated_at");
  if (!row) return envelope;
  let state = row.state as string;
  if (envelope.status === "approval_required" && state === "denied") return deniedEnvelope(envelope, row);
  if (state === "dispatch_failed") state = (await dispatchOperation(ctx, operationId)) ?? state;
  if (envelope.status === "approval_required" && state !== "approval_required")
    return decidedEnvelope(envelope, state as Envelope["status"], row, operationId);
  if (envelope.status !== "queued" && envelope.status !== "dispatch_failed") return envelope;
  const status = state === "dispatch_failed" ? "dispatch_failed" : "queued";
  if (status === envelope.status) return envelope;
  const updated: Envelope = { ...envelope, status };
  await store(ctx, id, updated);
  return updated;
}

/**
 * The answer to a repeated review request that was denied: `status: "denied"`, the operation id and
 * `data: {decision: "declined" | "expired", decided_at}` (ISO 8601), without the approval URL.
 */
function deniedEnvelope(
  envelope: Envelope,
  op: {
    decision: string | null;
    decided_at: Date | null;
    approval_expires_at: Date | null;
    updated_at: Date;
  },
): Envelope {
  const decidedAt = op.decided_at ?? op.updated_at;
  // Rows denied before `decision` was recorded: a decision at or after the expiry is the expiry.
  const expired =
    op.decision === "expired" ||
    (op.decision === null &&
      op.approval_expires_at !== null &&
      decidedAt.getTime() >= op.approval_expires_at.getTime());
  const { approval_url: _url, next: _next, ...rest } = envelope;
  return {
    ...rest,
    status: "denied",
    data: {
      ...summaryOf(envelope),
      decision: expired ? "expired" : "declined",
      decided_at: decidedAt.toISOString(),
    },
  };
}

/** The request's summary sentence of a review envelope (absent from envelopes stored before it had one). */
function summaryOf(envelope: Envelope): { summary?: string } {
  const summary = envelope.data?.summary;
  return typeof summary === "string" ? { summary } : {};
}

/**
 * The answer to a repeated review request that was approved: the operation's state now, the decision and its
 * time, without the approval URL, and get_job_status as `next` (its result or error is there).
 */
function decidedEnvelope(
  envelope: Envelope,
  state: Envelope["status"],
  op: { decided_at: Date | null; updated_at: Date },
  operationId: string,
): Envelope {
  const { approval_url: _url, ...rest } = envelope;
  const settled = state === "succeeded" || state === "failed" || state === "outcome_unknown";
  return {
    ...rest,
    status: state,
    data: {
      ...summaryOf(envelope),
      decision: "approved",
      decided_at: (op.decided_at ?? op.updated_at).toISOString(),
    },
    next: pollOperation(operationId, settled ? 0 : 2),
  };
}

interface RecordId {
  grant_id: string;
  tool: string;
  key_hash: string;
}

/** The seal binding of a record's response: its composite key `grant_id/tool/key_hash`. */
export function responseBinding(id: RecordId) {
  return rowBinding("idempotency_records", "response_sealed", `${id.grant_id}/${id.tool}/${id.key_hash}`);
}

async function store(ctx: AppContext, id: RecordId, envelope: Envelope): Promise<void> {
  await ctx
    .db("idempotency_records")
    .where(id)
    .update({ response_sealed: ctx.sealer.seal(envelope, responseBinding(id)), updated_at: ctx.clock.now() });
}
