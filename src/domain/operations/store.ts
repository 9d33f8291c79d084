/**
 * Operation records (service spec 2.5, 3.1): the row shape, the states, and the reads shared by the review
 * path, the approval pages, the worker and `get_job_status`. Arguments, results, what `accept` returned and
 * the approval description are sealed (AES-256-GCM, src/crypto/seal.ts); the row stores the key id.
 */
import { rowBinding } from "../../crypto/seal.ts";
import { isUuid } from "../../ids.ts";
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";
import type { ErrorCode, Retry } from "../../errors.ts";
import { countApprovalCreated, countOperation } from "../../observability/metrics.ts";
import { activeTraceparent } from "../../observability/tracing.ts";
import type {
  ApprovalDescription,
  ApprovedContent,
  EnvelopeStatus,
  ToolOutput,
} from "../../tool-contract.ts";

/** The operation states of service spec 3.1. */
export const OPERATION_STATES = [
  "approval_required",
  "approved",
  "queued",
  "running",
  "succeeded",
  "failed",
  "dispatch_failed",
  "denied",
  "outcome_unknown",
] as const satisfies readonly EnvelopeStatus[];

export type OperationState = (typeof OPERATION_STATES)[number];

/** States from which a worker may claim an operation (the conditional UPDATE of the claim). */
export const CLAIMABLE_STATES: readonly OperationState[] = ["approved", "queued"];

/** States in which nothing will change the operation again. */
export const FINAL_STATES: readonly OperationState[] = ["succeeded", "failed", "denied", "outcome_unknown"];

/** One `operations` row as stored. Timestamps are Dates; sealed columns are `v1.<key>.<iv>.<ct>.<tag>`. */
export interface OperationRow {
  id: string;
  grant_id: string;
  user_id: string;
  workspace_id: string;
  client_id: string;
  tool: string;
  tool_scope: string | null;
  state: OperationState;
  arguments_sealed: string;
  result_sealed: string | null;
  accepted_sealed: string | null;
  description_sealed: string | null;
  key_id: string;
  error_code: ErrorCode | null;
  error_message: string | null;
  error_details: unknown;
  /** How to recover from the error (errors.ts `Retry`); null: the code's default. */
  error_retry: Retry | null;
  /** The page of this service where a person fixes the error (`/settings#billing`), when it names one. */
  error_action_path: string | null;
  labels: unknown;
  attempts: number;
  dispatch_count: number;
  job_id: string | null;
  request_id: string | null;
  credits_charged: number | null;
  approval_expires_at: Date | null;
  /** How a review request was decided: `approved`, `declined` or `expired` (null until decided). */
  decision: "approved" | "declined" | "expired" | null;
  decided_at: Date | null;
  queued_at: Date | null;
  claimed_at: Date | null;
  deadline_at: Date | null;
  finished_at: Date | null;
  /** The W3C traceparent of the call that created it, while tracing was on (src/observability/tracing.ts). */
  trace_parent: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Input of `insertOperation`: who started it, with what, and in which first state. */
export interface NewOperation {
  id: string;
  grantId: string;
  userId: string;
  workspaceId: string;
  clientId: string;
  tool: string;
  toolScope: string;
  state: "approval_required" | "queued";
  args: Record<string, unknown>;
  requestId: string;
  accepted?: ToolOutput | undefined;
  description?: ApprovalDescription | undefined;
  approvalExpiresAt?: Date | undefined;
  /** Creation time (default `ctx.clock.now()`); the review path passes the instant its expiry counts from. */
  now?: Date | undefined;
}

/**
 * Inserts an operation in `db` (normally the caller's idempotency transaction), sealing the arguments,
 * what `accept` returned and the approval description with the active application key.
 */
export async function insertOperation(
  ctx: AppContext,
  db: Knex | Knex.Transaction,
  op: NewOperation,
): Promise<void> {
  const now = op.now ?? ctx.clock.now();
  await db("operations").insert({
    id: op.id,
    grant_id: op.grantId,
    user_id: op.userId,
    workspace_id: op.workspaceId,
    client_id: op.clientId,
    tool: op.tool,
    tool_scope: op.toolScope,
    state: op.state,
    arguments_sealed: ctx.sealer.seal(op.args, rowBinding("operations", "arguments_sealed", op.id)),
    accepted_sealed: op.accepted
      ? ctx.sealer.seal(op.accepted, rowBinding("operations", "accepted_sealed", op.id))
      : null,
    description_sealed: op.description
      ? ctx.sealer.seal(op.description, rowBinding("operations", "description_sealed", op.id))
      : null,
    key_id: ctx.sealer.keyId,
    request_id: op.requestId,
    credits_charged: op.accepted?.credits_charged ?? null,
    approval_expires_at: op.approvalExpiresAt ?? null,
    queued_at: op.state === "queued" ? now : null,
    // undefined (the column's default) unless tracing is on: the approval, the worker and the deliveries
    // continue the trace of this call.
    trace_parent: activeTraceparent(),
    created_at: now,
    updated_at: now,
  });
  // A queued operation is counted `queued` when its job is sent (./dispatch.ts).
  if (op.state === "approval_required") {
    countOperation(op.tool, op.state);
    countApprovalCreated(op.tool);
  }
}

/** Loads one operation by id (any owner), or undefined. Callers check ownership themselves. */
export async function loadOperation(
  db: Knex | Knex.Transaction,
  id: string,
): Promise<OperationRow | undefined> {
  if (!isUuid(id)) return undefined;
  return (await db("operations").where({ id }).first()) as OperationRow | undefined;
}

/** Opens the sealed approval description of `op` (review tools only). */
export function openDescription(ctx: AppContext, op: OperationRow): ApprovalDescription | undefined {
  return op.description_sealed
    ? ctx.sealer.open<ApprovalDescription>(
        op.description_sealed,
        rowBinding("operations", "description_sealed", op.id),
      )
    : undefined;
}

/**
 * The content the approval request of operation `operationId` bound (ApprovalDescription `content`, recorded
 * at the call), or undefined when there is none (no such operation, or a request that recorded no content).
 */
export async function approvedContentOf(
  ctx: AppContext,
  operationId: string | undefined,
): Promise<ApprovedContent | undefined> {
  const op = operationId ? await loadOperation(ctx.db, operationId) : undefined;
  return op ? openDescription(ctx, op)?.content : undefined;
}

/**
 * The approved content of each item of a request for several actions (ApprovalDescription `items`:
 * schedule_posts), in the items' order; [] when the request has no items.
 */
export async function approvedItemsOf(
  ctx: AppContext,
  operationId: string | undefined,
): Promise<Array<ApprovedContent | undefined>> {
  const op = operationId ? await loadOperation(ctx.db, operationId) : undefined;
  return (op ? (openDescription(ctx, op)?.items ?? []) : []).map((i) => i.content);
}

/**
 * The automation publish facts the approval request of operation `operationId` bound (ApprovalDescription
 * `publish`), or undefined when it recorded none (no such operation, or a request made without them).
 */
export async function approvedPublishOf(
  ctx: AppContext,
  operationId: string | undefined,
): Promise<ApprovalDescription["publish"]> {
  const op = operationId ? await loadOperation(ctx.db, operationId) : undefined;
  return op ? openDescription(ctx, op)?.publish : undefined;
}

/** The approval page URL of an operation (service spec 4.4). */
export function approvalUrl(ctx: AppContext, operationId: string): string {
  return `${ctx.config.publicBaseUrl}/settings/integrations/mcp/requests/${operationId}`;
}
