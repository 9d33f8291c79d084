/**
 * prompts/list, prompts/get and completion/complete (MCP server/prompts, server/utilities/completion) over
 * the prompt catalog (./catalog.ts): a prompt exists for a token only when the token has every scope the
 * prompt needs. Bad requests are -32602 naming the prompt or argument: an unknown (or unreachable) prompt, a
 * missing required argument, a non-string argument, a completion of an argument the prompt does not have or
 * of a resource template (this server has none).
 */
import type { AppContext } from "../../context.ts";
import type { AuthContext } from "../../tool-contract.ts";
import { ownerOf } from "../../domain/owner.ts";
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

const caller = (ctx: AppContext, auth: AuthContext): PromptCaller => ({
  ctx,
  owner: ownerOf(auth),
  scopes: auth.scopes,
});

/**
 * prompts/get: the messages of prompt `name` with `args` (string values).
 * @throws RpcError -32602 for an unknown prompt, a missing or non-string argument, or an id naming no record.
 */
export async function getPrompt(
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
 * completion/complete for a prompt argument (`ref: {type: "ref/prompt", name}`).
 * @throws RpcError -32602 for a resource-template ref, an unknown prompt or argument, a non-string value.
 */
export async function completePrompt(
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
