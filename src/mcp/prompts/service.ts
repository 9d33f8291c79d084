/**
 * prompts/list, prompts/get and completion/complete (MCP server/prompts, server/utilities/completion) over
 * the prompt catalog (./catalog.ts): a prompt exists for a token only when the token has every scope the
 * prompt needs. Bad requests are -32602 naming the prompt or argument: an unknown (or unreachable) prompt, a
 * missing required argument, a non-string argument, a completion of an argument the prompt does not have or
 * of a resource template (this server has none).
 * prompts/get and completion/complete read the caller's records, so each is metered like a read tool
 * (`metered`): it spends one unit of the user's read budget (service spec 8, the same counter as the read
 * tools') and writes one audit row (service spec 2.8: tool `prompts/get:{prompt}` or
 * `completion/complete:{prompt}`, argument names only). An exhausted budget is HTTP 429 with Retry-After.
 */
import { randomUUID } from "node:crypto";
import type { AppContext } from "../../context.ts";
import type { AuthContext } from "../../tool-contract.ts";
import { ownerOf } from "../../domain/owner.ts";
import { writeAudit } from "../../runtime/audit.ts";
import { createLimiter, type Limiter } from "../../runtime/rate-limit.ts";
import { isObject, RPC, RpcError } from "../jsonrpc.ts";
import { PROMPTS, type PromptSpec, promptByName } from "./catalog.ts";
import { type Completion, complete, type PromptCaller, type PromptMessage, WORKFLOWS } from "./workflows.ts";

/** One entry of prompts/list. */
export interface WirePrompt {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; title: string; description: string; required: boolean }>;
}

const allowed = (p: PromptSpec, scopes: ReadonlySet<string>) => p.scopes.every((s) => scopes.has(s));

const wire = (p: PromptSpec): WirePrompt => ({
  name: p.name,
  title: p.title,
  description: p.description,
  arguments: p.arguments.map((a) => ({
    name: a.name,
    title: a.title,
    description: a.description,
    required: a.required,
  })),
});

/** The prompts `scopes` allow, in catalog order. */
export function listPrompts(scopes: ReadonlySet<string>): WirePrompt[] {
  return PROMPTS.filter((p) => allowed(p, scopes)).map(wire);
}

function reachable(name: unknown, scopes: ReadonlySet<string>): PromptSpec {
  const p = promptByName(name);
  if (!p || !allowed(p, scopes))
    throw new RpcError(RPC.invalidParams, `Unknown prompt: ${String(name).slice(0, 64)}`);
  return p;
}

/** The read budget's limiter per context (the row keys are the read tools': `budget:read:{user}`). */
const readBudgets = new WeakMap<AppContext, Limiter>();

function readBudget(ctx: AppContext): Limiter {
  let limiter = readBudgets.get(ctx);
  if (!limiter) {
    limiter = createLimiter(ctx, "budget:read", ctx.config.budgets.read);
    readBudgets.set(ctx, limiter);
  }
  return limiter;
}

/** The audit code of a refused request: -32602 is invalid_arguments, anything else internal_error. */
const auditCode = (err: unknown) =>
  err instanceof RpcError && err.code === RPC.invalidParams ? "invalid_arguments" : "internal_error";

/**
 * Runs `work` as a metered read of `auth` (see the module comment): one unit of the read budget first, then
 * the work; one audit row either way, `method:{prompt}` with the argument names of `args`.
 * @throws RpcError HTTP 429 (Retry-After, `data.code` rate_limited, `data.retry_after` seconds) when the read
 * budget is exhausted; what `work` throws.
 */
async function metered<T>(
  ctx: AppContext,
  auth: AuthContext,
  requestId: string | undefined,
  method: "prompts/get" | "completion/complete",
  prompt: unknown,
  args: unknown,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  // A known prompt's name; a client's unknown one is not stored (audit rows hold no client text).
  const tool = `${method}:${promptByName(prompt)?.name ?? "unknown"}`;
  let error: { code: string } | undefined;
  try {
    const verdict = await readBudget(ctx).consume(auth.userId);
    if (!verdict.ok) {
      error = { code: "rate_limited" };
      throw new RpcError(
        RPC.internalError,
        `Too many requests: the read budget of this user is exhausted; retry after ${verdict.retryAfter} seconds`,
        429,
        { code: "rate_limited", retry_after: verdict.retryAfter },
        { "Retry-After": String(verdict.retryAfter) },
      );
    }
    return await work();
  } catch (err) {
    error ??= { code: auditCode(err) };
    throw err;
  } finally {
    await writeAudit(ctx, {
      requestId: requestId ?? randomUUID(),
      auth,
      tool,
      args,
      durationMs: performance.now() - started,
      envelope: { status: error ? "failed" : "succeeded", operation_id: undefined, error },
      effect: false,
    });
  }
}

const caller = (ctx: AppContext, auth: AuthContext): PromptCaller => ({
  ctx,
  owner: ownerOf(auth),
  scopes: auth.scopes,
});

/**
 * prompts/get: the messages of prompt `name` with `args` (string values), metered as a read of the caller
 * (`metered`; `requestId` names its audit row, a new one when undefined).
 * @throws RpcError -32602 for an unknown prompt, a missing or non-string argument, or an id naming no record;
 * HTTP 429 when the read budget is exhausted.
 */
export function getPrompt(
  ctx: AppContext,
  auth: AuthContext,
  name: unknown,
  args: unknown,
  requestId?: string,
): Promise<{ description: string; messages: PromptMessage[] }> {
  return metered(ctx, auth, requestId, "prompts/get", name, args, () => buildPrompt(ctx, auth, name, args));
}

async function buildPrompt(
  ctx: AppContext,
  auth: AuthContext,
  name: unknown,
  args: unknown,
): Promise<{ description: string; messages: PromptMessage[] }> {
  const p = reachable(name, auth.scopes);
  if (args !== undefined && !isObject(args))
    throw new RpcError(RPC.invalidParams, "Invalid params: arguments must be an object of strings");
  const values: Record<string, string> = {};
  for (const a of p.arguments) {
    const v = (args as Record<string, unknown> | undefined)?.[a.name];
    if (v === undefined || v === "") {
      if (a.required) throw new RpcError(RPC.invalidParams, `Missing required argument: ${a.name}`);
      continue;
    }
    if (typeof v !== "string" || v.length > 200)
      throw new RpcError(
        RPC.invalidParams,
        `Invalid params: ${a.name} must be a string of at most 200 characters`,
      );
    values[a.name] = v.trim();
  }
  return { description: p.description, messages: await WORKFLOWS[p.name](caller(ctx, auth), values) };
}

/**
 * completion/complete for a prompt argument (`ref: {type: "ref/prompt", name}`), metered as a read of the
 * caller (`metered`; the audit row names the completed argument).
 * @throws RpcError -32602 for a resource-template ref, an unknown prompt or argument, a non-string value;
 * HTTP 429 when the read budget is exhausted.
 */
export function completePrompt(
  ctx: AppContext,
  auth: AuthContext,
  params: Record<string, unknown>,
  requestId?: string,
): Promise<Completion> {
  const ref = isObject(params.ref) ? params.ref : {};
  const argument = isObject(params.argument) ? params.argument : {};
  const named = typeof argument.name === "string" ? { [argument.name]: true } : {};
  return metered(ctx, auth, requestId, "completion/complete", ref.name, named, () =>
    completion(ctx, auth, params),
  );
}

async function completion(
  ctx: AppContext,
  auth: AuthContext,
  params: Record<string, unknown>,
): Promise<Completion> {
  const ref = params.ref;
  const argument = params.argument;
  if (!isObject(ref) || !isObject(argument))
    throw new RpcError(RPC.invalidParams, "Invalid params: ref and argument are required");
  if (ref.type !== "ref/prompt")
    throw new RpcError(
      RPC.invalidParams,
      "Invalid params: this server has no resource templates to complete",
    );
  const p = reachable(ref.name, auth.scopes);
  const a = p.arguments.find((x) => x.name === argument.name);
  if (!a)
    throw new RpcError(
      RPC.invalidParams,
      `Invalid params: ${p.name} has no argument ${String(argument.name).slice(0, 64)}`,
    );
  if (typeof argument.value !== "string" || argument.value.length > 200)
    throw new RpcError(
      RPC.invalidParams,
      "Invalid params: argument.value must be a string of at most 200 characters",
    );
  if (!a.completes) return { values: [], total: 0, hasMore: false };
  return complete(caller(ctx, auth), a.completes, argument.value);
}
