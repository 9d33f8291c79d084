/**
 * The tool pipeline (docs/spec/DESIGN.md section 3; docs/ARCHITECTURE.md "One tool call"), in one visible order:
 *   (authenticate: done by the endpoint) -> find tool -> scope -> validate input -> plan -> per-user budget
 *   -> idempotency (writes) -> review | queued | inline handler -> validate output -> envelope -> audit.
 * Every call that reaches the pipeline spends one unit of a per-user budget (service spec 8; docs/security.md
 * "Audit batches and budgets"): its tool's, also when it stops earlier (missing scope, invalid arguments,
 * plan), keeping its own answer; an unknown tool's name and an exact retry of a finished write (answered from
 * its idempotency record) spend a unit of the read budget. Protocol outcomes (unknown tool, missing scope)
 * are returned for the endpoint to put on the wire (JSON-RPC -32602, HTTP 403); every other outcome is an
 * envelope, `isError` when it carries an error.
 */
import { randomUUID } from "node:crypto";
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { ToolError } from "../errors.ts";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "../db/unavailable.ts";
import { checkPlan, consumeBudget, spendRefused } from "./call-budgets.ts";
import type { CallOptions, CallOutcome, Runtime } from "./runtime.ts";
import { startDeferred, startQueued, startReview } from "./paths.ts";
import { writeAudit } from "./audit.ts";
import { allIssues, explainIssues } from "./validation-messages.ts";
import { errorEnvelope, successEnvelope, toolErrorEnvelope, wireEnvelope } from "./envelope.ts";
import { peekIdempotent, runIdempotent } from "./idempotency.ts";
import { metricsEnabled, observeToolCall } from "../observability/metrics.ts";
import {
  failSpan,
  inSpan,
  type Span,
  SpanKind,
  SpanStatusCode,
  startSpan,
  tracer,
} from "../observability/tracing.ts";
import type {
  AuthContext,
  Budget,
  Envelope,
  RegisteredTool,
  SchemaIssue,
  ToolContext,
} from "../tool-contract.ts";

export { createRuntime, prepayableBudget } from "./runtime.ts";
export type { CallOptions, CallOutcome, PrepaidBudget, Runtime } from "./runtime.ts";

/** Thrown inside the idempotency transaction when the handler's output breaks the schema (rolls it back). */
class OutputMismatch extends Error {
  readonly issues: SchemaIssue[];
  constructor(issues: SchemaIssue[]) {
    super("tool output does not match its output schema");
    this.issues = issues;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks `rawArgs` against the tool's input schema: an object, no unknown argument (named), then the schema
 * (JSON pointers, each failure once).
 * @returns the arguments. @throws ToolError invalid_arguments / validation_failed.
 */
function validateArguments(tool: RegisteredTool, rawArgs: unknown): Record<string, unknown> {
  const args = rawArgs === undefined ? {} : rawArgs;
  if (!isObject(args)) throw new ToolError("invalid_arguments", "arguments must be an object");
  const known = isObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const unknown = Object.keys(args).filter((k) => !Object.hasOwn(known, k));
  if (unknown.length > 0) {
    const names = unknown.slice(0, 10).map((k) => JSON.stringify(k.slice(0, 64)));
    const allowed = Object.keys(known);
    throw new ToolError(
      "invalid_arguments",
      `unknown argument${unknown.length > 1 ? "s" : ""} ${names.join(", ")}; ${tool.name} takes ${
        allowed.length > 0 ? allowed.join(", ") : "no arguments"
      }`,
      { unknown_arguments: unknown.slice(0, 10).map((k) => k.slice(0, 64)), allowed_arguments: allowed },
    );
  }
  const issues = tool.validateInput(args);
  if (issues.length === 0) return args;
  // Plain words: the field and the rule, conditional requirements, allowed values, closest oneOf form.
  const details = explainIssues(tool.inputSchema, args, allIssues(tool.validateInput, args)).slice(0, 20);
  const first = details[0] ?? { message: "the arguments are invalid" };
  const more =
    details.length > 1
      ? ` (and ${details.length - 1} more problem${details.length > 2 ? "s" : ""}, see details)`
      : "";
  throw new ToolError("validation_failed", `${first.message}${more}`, details);
}

/**
 * Runs the tool's path and validates the envelope: review (approval_required) or queued (accept) tools
 * are writes (codegen/tool-rules.ts), so they always run in the idempotency transaction `trx`; inline
 * tools run in `trx` when they write, on the pool when they read.
 * @throws OutputMismatch when the envelope breaks the output schema (rolls `trx` back); ToolError.
 */
async function runPath(
  tool: RegisteredTool,
  tctx: ToolContext,
  args: Record<string, unknown>,
  trx: Knex.Transaction | undefined,
): Promise<Envelope> {
  let envelope: Envelope;
  if (tool.review || tool.queued) {
    if (!trx) throw new Error(`${tool.name}: review and queued tools run inside the idempotency transaction`);
    const c = { ...tctx, db: trx };
    const path = tool.review ? startReview : startQueued;
    envelope = tracer
      ? await inSpan("handler", undefined, () => path(c, tool, args, trx))
      : await path(c, tool, args, trx);
  } else {
    const c = trx ? { ...tctx, db: trx } : tctx;
    const output = tracer
      ? await inSpan("handler", undefined, () => tool.handler.execute(args, c))
      : await tool.handler.execute(args, c);
    // A deferrable tool that handed its work to the worker (src/tool-contract.ts DeferrableToolHandler).
    envelope =
      output.queue && tool.deferrable && trx
        ? await startDeferred(c as ToolContext & { db: Knex.Transaction }, tool, args, trx, output)
        : successEnvelope(tctx.requestId, output);
  }
  // validate output (inside the transaction: a mismatch rolls the effect back)
  const outIssues = tool.validateOutput(wireEnvelope(envelope));
  if (outIssues.length > 0) throw new OutputMismatch(outIssues);
  return envelope;
}

/** The envelope of a call that threw: ToolError keeps its code; anything else is logged and `internal_error`. */
function failureEnvelope(ctx: AppContext, tool: RegisteredTool, requestId: string, err: unknown): Envelope {
  if (err instanceof ToolError) return toolErrorEnvelope(requestId, err, ctx.config.publicBaseUrl);
  if (err instanceof OutputMismatch) {
    ctx.log.error(
      {
        requestId,
        tool: tool.name,
        issues: err.issues.slice(0, 10).map((i) => ({ path: i.instancePath, keyword: i.keyword })),
      },
      "tool output does not match its output schema",
    );
  } else {
    const e = err as { name?: unknown; code?: unknown; stack?: unknown };
    // The message and the stack's first line may hold values; log only the error's kind and frames.
    const frames = typeof e?.stack === "string" ? e.stack.split("\n").slice(1, 8).join("\n") : undefined;
    ctx.log.error(
      { requestId, tool: tool.name, errName: e?.name, errCode: e?.code, frames },
      "tool call failed",
    );
  }
  return errorEnvelope(requestId, "internal_error", `the service failed; request id ${requestId}`);
}

/**
 * Runs one tools/call for `auth`. Never throws for tool failures: ToolError becomes an `isError` envelope
 * with its code; anything else becomes `internal_error` (logged with the request id, never leaked).
 */
export async function callTool(
  rt: Runtime,
  auth: AuthContext,
  name: string,
  rawArgs: unknown,
  options: CallOptions,
): Promise<CallOutcome> {
  const started = performance.now();
  try {
    const outcome = tracer
      ? await traceCall(rt, auth, name, rawArgs, options)
      : await runCall(rt, auth, name, rawArgs, options);
    observeCall(rt, name, outcome, started);
    return outcome;
  } finally {
    // A unit consumed at admission that this call did not reach goes back before the call is answered.
    await options.prepaid?.release();
  }
}

/**
 * Counts a finished call in the metrics (src/observability/metrics.ts): the tool (`unknown` for a name not
 * in the catalog), the envelope's status (`rejected` for an unknown tool or a missing scope), the error
 * code, the time since `started` (`performance.now()`).
 */
function observeCall(rt: Runtime, name: string, outcome: CallOutcome, started: number): void {
  if (!metricsEnabled()) return;
  const seconds = (performance.now() - started) / 1000;
  if (outcome.kind === "result")
    observeToolCall(name, outcome.envelope.status, outcome.envelope.error?.code ?? "none", seconds);
  else if (outcome.kind === "insufficient_scope")
    observeToolCall(name, "rejected", "insufficient_scope", seconds);
  else observeToolCall(rt.tools.has(name) ? name : "unknown", "rejected", "unknown_tool", seconds);
}

/**
 * `runCall` inside the span `tools/call {tool}` (OpenTelemetry semantic conventions for MCP: `mcp.method.name`,
 * `gen_ai.tool.name`), whose children are the pipeline's stages (validate, budget, idempotency, handler,
 * audit), their SQL and outbound calls. Only while tracing is on.
 */
function traceCall(
  rt: Runtime,
  auth: AuthContext,
  name: string,
  rawArgs: unknown,
  options: CallOptions,
): Promise<CallOutcome> {
  const tool = rt.tools.has(name) ? name : "unknown";
  return inSpan(
    `tools/call ${tool}`,
    { "mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" },
    async (span) => {
      const outcome = await runCall(rt, auth, name, rawArgs, options);
      const envelope = outcome.kind === "result" ? outcome.envelope : undefined;
      span.setAttribute("social_mcp.status", envelope?.status ?? "rejected");
      const code = envelope?.error?.code ?? (outcome.kind === "result" ? undefined : outcome.kind);
      if (code) {
        span.setAttribute("error.type", code);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      if (envelope?.operation_id) span.setAttribute("social_mcp.operation.id", envelope.operation_id);
      return outcome;
    },
    undefined,
    SpanKind.SERVER,
  );
}

/** The audit row of a call that started at `started` (`performance.now()`) and ends with `envelope`. */
function auditCall(
  ctx: AppContext,
  requestId: string,
  auth: AuthContext,
  tool: RegisteredTool,
  args: unknown,
  started: number,
  envelope: Envelope,
): Promise<void> {
  return writeAudit(ctx, {
    requestId,
    auth,
    tool: tool.name,
    args,
    durationMs: performance.now() - started,
    envelope,
    effect: tool.access === "write",
  });
}

/** callTool without the give-back of an unused prepaid unit. */
const runCall: typeof callTool = async (rt, auth, name, rawArgs, options) => {
  const { ctx } = rt;
  const started = performance.now();
  const requestId = options.requestId ?? randomUUID();

  // find tool
  const tool = rt.tools.get(name);
  if (!tool) {
    await spendRefused(rt, auth, "read", options, requestId);
    return { kind: "unknown_tool" };
  }

  // scope
  if (!auth.scopes.has(tool.scope)) {
    await spendRefused(rt, auth, tool.budget, options, requestId);
    await auditCall(
      ctx,
      requestId,
      auth,
      tool,
      rawArgs,
      started,
      errorEnvelope(requestId, "insufficient_scope", `${tool.name} needs the scope ${tool.scope}`),
    );
    return { kind: "insufficient_scope", scopes: [tool.scope] };
  }

  let envelope: Envelope;
  // The stages as spans while tracing is on (`traceCall`); `stage` is the running one.
  let stage = tracer ? startSpan("validate") : undefined;
  try {
    let args: Record<string, unknown>;
    try {
      args = validateArguments(tool, rawArgs);
      await checkPlan(ctx, auth, tool);
    } catch (err) {
      await spendRefused(rt, auth, tool.budget, options, requestId);
      throw err;
    }
    if (stage) stage = nextStage(stage, "budget");
    // an exact retry of a finished write is answered from its record: it spends a read unit, not its
    // tool's budget (a client that lost the answer gets it even when its write budget is exhausted)
    const prior = tool.access === "write" ? await peekIdempotent(ctx, auth, tool, args) : undefined;
    if (prior) {
      await consumeBudget(rt, auth, "read", undefined);
      envelope = prior;
    } else {
      await consumeBudget(rt, auth, tool.budget, options.prepaid);
      if (stage) stage = nextStage(stage, undefined);
      const tctx: ToolContext = {
        app: ctx,
        auth,
        requestId,
        operationId: undefined,
        db: ctx.db,
        signal: options.signal,
        progress: options.progress,
      };
      // idempotency (writes) -> review | queued | inline
      if (tool.access === "write") {
        const idempotent = () =>
          runIdempotent(
            ctx,
            auth,
            tool,
            args,
            (trx) => runPath(tool, tctx, args, trx),
            (err) => failureEnvelope(ctx, tool, requestId, err),
          );
        envelope = tracer ? await inSpan("idempotency", undefined, idempotent) : await idempotent();
      } else envelope = await runPath(tool, tctx, args, undefined);
    }
    stage?.end();
  } catch (err) {
    if (stage) {
      failSpan(stage, err);
      stage.end();
    }
    if (isDatabaseUnavailable(err)) {
      ctx.log.warn({ requestId, tool: tool.name }, "tool call failed: database unavailable");
      // Nothing was committed (the idempotency record commits with the effect), so the same key and
      // arguments may be sent again; the audit row cannot be written either.
      const failed = errorEnvelope(
        requestId,
        "internal_error",
        `the service is briefly unavailable; retry with the same idempotency_key and arguments (request id ${requestId})`,
        { retryAfter: DATABASE_RETRY_AFTER_SECONDS, details: { retryable: true }, retry: "same_key" },
      );
      return { kind: "result", envelope: failed, isError: true };
    }
    envelope = failureEnvelope(ctx, tool, requestId, err);
  }
  const audit = tracer ? startSpan("audit") : undefined;
  await auditCall(ctx, requestId, auth, tool, rawArgs, started, envelope);
  audit?.end();
  return { kind: "result", envelope, isError: envelope.error !== undefined };
};

/** Ends the stage span `current` and starts the span of the next stage `name` (none when undefined). */
function nextStage(current: Span, name: string | undefined): Span | undefined {
  current.end();
  return name === undefined ? undefined : startSpan(name);
}
