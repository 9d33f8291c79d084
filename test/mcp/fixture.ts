/**
 * Test fixtures for the MCP endpoint: small RegisteredTool objects (validators compiled with TypeBox
 * `Compile`, exactly as the generated registry does) and a second HTTP listener serving `mcpEndpoint` (with the fast lane, src/app.ts) over
 * those tools on the test app's database, with its own resource URL (tokens are minted for it).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import express from "express";
import type { AppContext } from "../../src/context.ts";
import { withFastLane } from "../../src/app.ts";
import { mcpEndpoint } from "../../src/mcp/routes.ts";
import type { RegisteredTool, ToolContext, ToolMeta, ToolOutput } from "../../src/tool-contract.ts";
import type { TestApp } from "../helpers/app.ts";
import { connect, type TestConnection } from "../helpers/tokens.ts";
import { validator } from "../helpers/validator.ts";

const STATES = [
  "approval_required",
  "approved",
  "queued",
  "running",
  "succeeded",
  "failed",
  "dispatch_failed",
  "denied",
  "outcome_unknown",
];

/** The full envelope schema around a `data` schema (docs/tools-yaml.md "The envelope output schema"). */
export function envelopeSchema(data: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    required: ["request_id", "status"],
    properties: {
      request_id: { type: "string", format: "uuid" },
      status: { type: "string", enum: STATES },
      data,
      operation_id: { type: "string", format: "uuid" },
      approval_url: { type: "string", format: "uri" },
      credits_charged: { type: "integer", minimum: 0 },
      error: {
        type: "object",
        additionalProperties: false,
        required: ["code", "message", "request_id"],
        properties: {
          code: { type: "string" },
          message: { type: "string" },
          request_id: { type: "string", format: "uuid" },
          retry_after: { type: "integer" },
          details: {},
        },
      },
    },
  };
}

/** Builds a RegisteredTool; `execute` is the inline handler. */
export function fixtureTool(
  meta: Partial<ToolMeta> & { name: string; data?: Record<string, unknown> },
  execute: (input: any, ctx: ToolContext) => Promise<ToolOutput>,
): RegisteredTool {
  const inputSchema = meta.inputSchema ?? {
    type: "object",
    additionalProperties: false,
    properties: {},
    required: [],
  };
  const outputSchema = envelopeSchema(meta.data ?? { type: "object" });
  return {
    title: meta.name.replaceAll("_", " "),
    group: "account",
    description: `Fixture tool ${meta.name}.`,
    scope: "read:profile",
    access: "read",
    review: false,
    queued: false,
    deferrable: false,
    budget: "read",
    credits: "none",
    plan: null,
    annotations: {
      title: meta.name.replaceAll("_", " "),
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    ...meta,
    inputSchema,
    outputSchema,
    validateInput: validator(inputSchema),
    validateOutput: validator(outputSchema),
    handler: { execute },
  };
}

export interface FixtureEndpoint {
  /** The MCP endpoint URL (also the resource URL of `ctx`). */
  url: string;
  ctx: AppContext;
  connect(who: { user_id: string; workspace_id: string }, scopes: string[]): Promise<TestConnection>;
}

/** Serves `mcpEndpoint(ctx', {tools})` (router and fast lane) on a new loopback port; closed after the file's tests. */
export async function startFixtureEndpoint(
  app: TestApp,
  tools: readonly RegisteredTool[],
): Promise<FixtureEndpoint> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/mcp`;
  const ctx: AppContext = { ...app.ctx, config: { ...app.ctx.config, resourceUrl: url } };
  const mcp = mcpEndpoint(ctx, { tools });
  const ex = express();
  ex.disable("x-powered-by");
  ex.use(mcp.router);
  server.on("request", withFastLane(ctx, ex, mcp));
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url, ctx, connect: (who, scopes) => connect({ ...app, ctx }, who, scopes) };
}
