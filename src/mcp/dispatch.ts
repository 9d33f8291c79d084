/**
 * Method dispatch of the MCP endpoint for one authenticated JSON-RPC request.
 * 2026-07-28: `server/discover`, `tools/list`, `tools/call`; every result has `resultType` and the
 * server's identity in `_meta`; removed and unknown methods -> 404 / -32601.
 * Legacy (2025-11-25, 2025-06-18): `initialize` (never answered with 2026-07-28), `ping`, `tools/list`,
 * `tools/call`; results without `resultType`; unknown methods -> -32601.
 */
import type { AppContext } from "../context.ts";
import { type CallOutcome, callTool, type PrepaidBudget, type Runtime } from "../runtime/pipeline.ts";
import { callToolResult } from "../runtime/envelope.ts";
import type { AuthContext } from "../tool-contract.ts";
import { challenge403 } from "../oauth/challenge.ts";
import { type JsonRpcMessage, RPC, RpcError, resultResponse } from "./jsonrpc.ts";
import type { Reply } from "./reply.ts";
import { LEGACY_VERSIONS, META_SERVER_INFO, type Revision, SUPPORTED_VERSIONS } from "./revision.ts";
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from "./server-info.ts";
import type { ToolLister } from "./tools-list.ts";

/** Cache hints (SEP-2549): discovery is the same for everyone; tool lists vary with the token's scopes. */
export const DISCOVER_TTL_MS = 300_000;
export const TOOLS_LIST_TTL_MS = 300_000;

export interface Endpoint {
  ctx: AppContext;
  runtime: Runtime;
  lister: ToolLister;
}

const SERVER_META = { [META_SERVER_INFO]: { name: SERVER_INFO.name, version: SERVER_INFO.version } };

/** Sends `result` with HTTP 200; on 2026-07-28 with `resultType` and the server's identity in `_meta`. */
function sendResult(
  reply: Reply,
  id: string | number,
  current: boolean,
  result: Record<string, unknown>,
): void {
  reply.send(
    200,
    resultResponse(id, current ? { resultType: "complete", ...result, _meta: SERVER_META } : result),
  );
}

/**
 * Answers `msg` (a request with an id) on `reply`. `prepaid`: the call's budget unit when the admission
 * statement consumed it (src/mcp/admission.ts); tools/call hands it to the pipeline.
 * @throws RpcError for protocol faults (the caller puts them on the wire with their status).
 */
export async function dispatch(
  ep: Endpoint,
  msg: JsonRpcMessage & { id: string | number },
  revision: Revision,
  auth: AuthContext,
  reply: Reply,
  prepaid?: PrepaidBudget,
): Promise<void> {
  const current = revision.kind === "current";
  const params = msg.params ?? {};

  switch (msg.method) {
    case "server/discover":
      if (!current) break;
      return sendResult(reply, msg.id, current, {
        supportedVersions: [...SUPPORTED_VERSIONS],
        capabilities: SERVER_CAPABILITIES,
        instructions: INSTRUCTIONS,
        ttlMs: DISCOVER_TTL_MS,
        cacheScope: "public",
      });
    case "initialize": {
      if (current) break;
      const requested = params.protocolVersion;
      if (typeof requested !== "string")
        throw new RpcError(RPC.invalidParams, "params.protocolVersion is required");
      const version = (LEGACY_VERSIONS as readonly string[]).includes(requested)
        ? requested
        : LEGACY_VERSIONS[0];
      return sendResult(reply, msg.id, current, {
        protocolVersion: version,
        capabilities: SERVER_CAPABILITIES,
        serverInfo: SERVER_INFO,
        instructions: INSTRUCTIONS,
      });
    }
    case "ping":
      if (current) break;
      return sendResult(reply, msg.id, current, {});
    case "tools/list": {
      const page = ep.lister.list(auth.scopes, params.cursor);
      return sendResult(
        reply,
        msg.id,
        current,
        current ? { ...page, ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" } : { ...page },
      );
    }
    case "tools/call": {
      if (typeof params.name !== "string")
        throw new RpcError(RPC.invalidParams, "params.name must be a string");
      const outcome: CallOutcome = await callTool(ep.runtime, auth, params.name, params.arguments, {
        requestId: reply.requestId,
        signal: reply.abortSignal(),
        progress: reply.progress.bind(reply),
        prepaid,
      });
      if (outcome.kind === "unknown_tool")
        throw new RpcError(RPC.invalidParams, `Unknown tool: ${params.name.slice(0, 64)}`);
      if (outcome.kind === "insufficient_scope") {
        reply.refuse(403, challenge403(ep.ctx, outcome.scopes), {
          error: "insufficient_scope",
          error_description: `This tool needs the scope ${outcome.scopes.join(" ")}; a new consent is required`,
        });
        return;
      }
      return sendResult(reply, msg.id, current, callToolResult(outcome.envelope));
    }
  }
  throw new RpcError(RPC.methodNotFound, "Method not found", current ? 404 : 200);
}
