/**
 * Audit records (service spec 2.8): one row per tools/call with the request, user, workspace, grant and
 * operation ids, the tool, the argument NAMES (never values, prompts, captions, URLs or secrets), the
 * duration, the envelope status and the error code; and one row per background execution of an operation
 * by a worker (`origin: "worker"`, status = the operation's final state), so work done after the call
 * answered is audited too.
 *
 * Rows are written in batches, group-commit style (src/db/batcher.ts): the rows of the calls finishing in
 * one turn of the event loop, and those that arrive while an insert is under way, go together into one
 * multi-row insert (one prepared statement). `writeAudit` resolves after its own row's commit, so a call is
 * answered only once its audit row is committed. A row is as durable as what it records: the row of a call
 * that may have committed an effect (a write tool's call, a worker's execution) commits durably on the main
 * pool, like the effect (one WAL flush per batch); the row of a read commits on the asynchronously
 * committing pool, which a crash of PostgreSQL itself can lose for the last fraction of a second
 * (docs/operations.md "Audit rows and rate-limit counters: what a crash can lose").
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { type Batcher, createBatcher } from "../db/batcher.ts";
import { runPrepared, statement } from "../db/prepared.ts";
import type { AuthContext, Envelope } from "../tool-contract.ts";

const MAX_NAMES = 64;

/** An argument name kept as it is: the shape of every schema's property names. */
const PLAIN_NAME = /^[A-Za-z0-9_]{1,64}$/;

/**
 * How a client-chosen name outside `PLAIN_NAME` is stored: `#` and the first 16 hex digits of its SHA-256
 * (as UTF-8, a lone surrogate as U+FFFD), so the row says that such a name was
 * sent, and which one, without storing text PostgreSQL may refuse (`\u0000`, a lone surrogate) or a
 * value smuggled into a name.
 */
function hashedName(name: string): string {
  return `#${createHash("sha256").update(name, "utf8").digest("hex").slice(0, 16)}`;
}

/**
 * The sorted, bounded top-level argument names of `args` (client-chosen keys; no values): names matching
 * `^[A-Za-z0-9_]{1,64}$` as they are, any other as `hashedName` (docs/security.md "Logs and audit": one bad
 * name must not fail the batched insert other calls' rows share).
 */
export function argumentNames(args: unknown): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  return Object.keys(args)
    .sort()
    .slice(0, MAX_NAMES)
    .map((n) => (PLAIN_NAME.test(n) ? n : hashedName(n)));
}

export interface AuditEntry {
  requestId: string;
  auth: Pick<AuthContext, "userId" | "workspaceId" | "grantId">;
  tool: string;
  args: unknown;
  durationMs: number;
  envelope: Pick<Envelope, "status" | "operation_id"> & { error?: { code: string } | undefined };
  /** `call` (default): a tools/call; `worker`: a background execution of an operation. */
  origin?: "call" | "worker";
  /**
   * False for a call that cannot have committed an effect (a read tool's): its row commits asynchronously.
   * Default true: the row commits durably.
   */
  effect?: boolean;
}

/** Most rows in one insert (bounds the statement; more rows wait for the next batch). */
const MAX_BATCH = 200;

/** $1: a JSON array of rows (the column names below). */
const INSERT_BATCH = statement(
  "audit-insert-batch",
  `insert into audit_records (request_id, user_id, workspace_id, grant_id, operation_id, tool, argument_names,
                              duration_ms, status, error_code, origin)
   select request_id, user_id, workspace_id, grant_id, operation_id, tool, argument_names,
          duration_ms, status, error_code, origin
     from jsonb_to_recordset($1::jsonb) as x(request_id uuid, user_id uuid, workspace_id uuid, grant_id uuid,
          operation_id uuid, tool text, argument_names text[], duration_ms integer, status text,
          error_code text, origin text)`,
);

interface AuditRow {
  request_id: string;
  user_id: string;
  workspace_id: string;
  grant_id: string | null;
  operation_id: string | null;
  tool: string;
  argument_names: string[];
  duration_ms: number;
  status: string;
  error_code: string | null;
  origin: "call" | "worker";
}

const batchers = new WeakMap<Knex, Batcher<AuditRow, undefined>>();

/**
 * Inserts `rows` in one statement on `db`. When that statement fails, each row is inserted on its own, so
 * one bad row (or a statement too large) costs only its own row, never the other calls' rows of the
 * batch; a row that still fails is logged (request id, tool, error class and code) and never thrown.
 */
async function insertBatch(ctx: AppContext, db: Knex, rows: AuditRow[]): Promise<undefined[]> {
  try {
    await runPrepared(db, INSERT_BATCH, [JSON.stringify(rows)]);
  } catch (batchErr) {
    if (rows.length === 1) logFailure(ctx, rows[0] as AuditRow, batchErr);
    else
      for (const row of rows)
        await runPrepared(db, INSERT_BATCH, [JSON.stringify([row])]).catch((err: unknown) =>
          logFailure(ctx, row, err),
        );
  }
  return rows.map(() => undefined);
}

function logFailure(ctx: AppContext, row: AuditRow, err: unknown): void {
  const e = err as { name?: unknown; code?: unknown } | undefined;
  ctx.log.error(
    { requestId: row.request_id, tool: row.tool, errName: e?.name, errCode: e?.code },
    "audit write failed",
  );
}

/**
 * Writes the audit row: resolves once it is committed (in a batch with the rows of concurrent calls;
 * durably unless `entry.effect` is false).
 * Never throws: a failure is logged (with the request id) and the call's result stands, because the effect
 * has already happened.
 */
export function writeAudit(ctx: AppContext, entry: AuditEntry): Promise<void> {
  const row: AuditRow = {
    request_id: entry.requestId,
    user_id: entry.auth.userId,
    workspace_id: entry.auth.workspaceId,
    grant_id: entry.auth.grantId,
    operation_id: entry.envelope.operation_id ?? null,
    tool: entry.tool,
    argument_names: argumentNames(entry.args),
    duration_ms: Math.max(0, Math.round(entry.durationMs)),
    status: entry.envelope.status,
    error_code: entry.envelope.error?.code ?? null,
    origin: entry.origin ?? "call",
  };
  const db = entry.effect === false ? ctx.asyncCommitDb : ctx.db;
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createBatcher((rows) => insertBatch(ctx, db, rows), MAX_BATCH);
    batchers.set(db, batcher);
  }
  return batcher.submit(row);
}
