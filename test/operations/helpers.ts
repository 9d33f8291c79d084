/**
 * Helpers of the operations tests: in-test tools (real RegisteredTool objects with TypeBox-compiled
 * validators), a connection's AuthContext, calls through the real pipeline, browser sessions and polling.
 */
import { randomUUID } from "node:crypto";
import type { AppContext } from "../../src/context.ts";
import { setToolLookup } from "../../src/operations/tools.ts";
import { callTool, createRuntime, type Runtime } from "../../src/runtime/pipeline.ts";
import type { AuthContext, BoundToolHandler, Envelope, RegisteredTool } from "../../src/tool-contract.ts";
import type { Scope } from "../../src/scopes.ts";
import type { TestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { validator } from "../helpers/validator.ts";

export { browserSession } from "../helpers/browser.ts";

export interface ToolSpec {
  name: string;
  scope: Scope;
  review?: boolean;
  queued?: boolean;
  /** Default "write" (with a required `idempotency_key`). */
  access?: "read" | "write";
  /** Extra input properties besides `idempotency_key` (JSON Schema). */
  properties?: Record<string, unknown>;
  required?: string[];
  handler: BoundToolHandler;
}

/** A real RegisteredTool for `spec` (by default a write tool, budget `write`; strict input schema). */
export function makeTool(spec: ToolSpec): RegisteredTool {
  const write = (spec.access ?? "write") === "write";
  const inputSchema = {
    type: "object",
    additionalProperties: false,
    properties: {
      ...(write ? { idempotency_key: { type: "string", format: "uuid" } } : {}),
      ...spec.properties,
    },
    required: [...(write ? ["idempotency_key"] : []), ...(spec.required ?? [])],
  };
  const outputSchema = { type: "object", required: ["request_id", "status"] };
  return {
    name: spec.name,
    title: `Test ${spec.name.replaceAll("_", " ")}`,
    group: "content",
    description: "test tool",
    scope: spec.scope,
    access: write ? "write" : "read",
    review: spec.review ?? false,
    queued: spec.queued ?? false,
    deferrable: false,
    budget: write ? "write" : "read",
    credits: "none",
    plan: null,
    annotations: {
      title: `Test ${spec.name.replaceAll("_", " ")}`,
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    inputSchema,
    outputSchema,
    validateInput: validator(inputSchema),
    validateOutput: validator(outputSchema),
    handler: spec.handler,
  };
}

/** Makes the app's worker and approval pages see `tools` (and only them). */
export function useTools(app: TestApp, tools: RegisteredTool[]): Runtime {
  const byName = new Map(tools.map((t) => [t.name, t]));
  setToolLookup(app.ctx, (name) => byName.get(name));
  return createRuntime(app.ctx, tools);
}

export interface Who {
  user_id: string;
  workspace_id: string;
  email: string;
  password: string;
}

/** A connection (grant + token record) for `who` with `scopes`, as the pipeline's AuthContext. */
export async function connection(app: TestApp, who: Who, scopes: string[]): Promise<AuthContext> {
  const c = await connect(app, who, scopes);
  return {
    userId: who.user_id,
    workspaceId: who.workspace_id,
    grantId: c.grantId,
    clientId: c.clientId,
    scopes: new Set(scopes),
    tokenId: c.jti,
  };
}

/** Calls `name` through the real tool pipeline; returns the envelope. */
export async function call(
  rt: Runtime,
  auth: AuthContext,
  name: string,
  args: Record<string, unknown>,
): Promise<Envelope> {
  const out = await callTool(rt, auth, name, args, {
    signal: new AbortController().signal,
    progress: () => {},
  });
  if (out.kind !== "result") throw new Error(`tool call ended with ${out.kind}`);
  return out.envelope;
}

/** Posts an approval decision like the approval form does. */
export async function postDecision(
  app: Pick<TestApp, "url">,
  operationId: string,
  session: { cookie: string; csrf: string },
  decision: "approve" | "decline",
  csrf = session.csrf,
): Promise<Response> {
  return fetch(`${app.url}/settings/integrations/mcp/requests/${operationId}`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf_token: csrf, decision }).toString(),
  });
}

/**
 * Polls `read` every `intervalMs` (default 50 ms) until `done(value)` or `timeoutMs` (then throws with the
 * last value).
 */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > until) throw new Error(`timed out waiting; last value ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
    last = await read();
  }
  return last;
}

/** The state of operation `id`. */
export async function stateOf(ctx: AppContext, id: string): Promise<string | undefined> {
  const row = await ctx.db("operations").where({ id }).first("state");
  return row?.state;
}

/** A fresh idempotency key. */
export const key = (): string => randomUUID();
