/**
 * Method dispatch of the MCP endpoint for one authenticated JSON-RPC request.
 * 2026-07-28: `server/discover`, `tools/list`, `tools/call`, `resources/list`, `resources/templates/list`,
 * `resources/read`, `prompts/list`, `prompts/get`, `completion/complete`; every result has `resultType` and
 * the server's identity in `_meta`; lists and reads carry cache hints (SEP-2549); removed and unknown methods
 * -> 404 / -32601.
 * Legacy (2025-11-25, 2025-06-18): `initialize` (never answered with 2026-07-28), `ping` and the same
 * methods; results without `resultType`; unknown methods -> -32601.
 * A client that shows MCP Apps views (./apps/client.ts) also gets the views' `_meta` in tools/list and view
 * data in tool results (`_meta["social-mcp/view"]`, ./apps/view-data.ts); a legacy one declared them at
 * initialize, whose answer then carries the `Mcp-Session-Id` that says so.
 */
import type { AppContext } from "../context.ts";
import { type CallOutcome, callTool, type PrepaidBudget, type Runtime } from "../runtime/pipeline.ts";
import { callToolResult } from "../runtime/envelope.ts";
import type { AuthContext } from "../tool-contract.ts";
import { challenge403 } from "../oauth/challenge.ts";
import { type JsonRpcMessage, RPC, RpcError, resultResponse } from "./jsonrpc.ts";
import type { Reply } from "./reply.ts";
import { LEGACY_VERSIONS, META_SERVER_INFO, type Revision, SUPPORTED_VERSIONS } from "./revision.ts";
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO, serverIdentity } from "./server-info.ts";
import { logError } from "../log.ts";
import type { ToolLister } from "./tools-list.ts";
import { type ClientFeatures, declaresViews, type ViewSessions } from "./apps/client.ts";
import type { ResourceCatalog } from "./apps/resources.ts";
import { buildViewData } from "./apps/view-data.ts";
import { completePrompt, getPrompt, listPrompts } from "./prompts/service.ts";
import { VIEW_META_KEY } from "./views/catalog.ts";

/** Cache hints (SEP-2549): discovery is the same for everyone; tool lists vary with the token's scopes. */
export const DISCOVER_TTL_MS = 300_000;
export const TOOLS_LIST_TTL_MS = 300_000;
/** Resources and prompts change only with a release (and vary with the token's scopes). */
export const CATALOG_TTL_MS = 300_000;

export interface Endpoint {
  ctx: AppContext;
  runtime: Runtime;
  lister: ToolLister;
  /** The views as resources (resources/list, resources/read). */
  resources: ResourceCatalog;
  /** Legacy session ids of clients that show views. */
  viewSessions: ViewSessions;
}

const SERVER_META = { [META_SERVER_INFO]: { name: SERVER_INFO.name, version: SERVER_INFO.version } };

/**
 * Sends `result` with HTTP 200; on 2026-07-28 with `resultType` and the server's identity in `_meta` (beside
 * the result's own `_meta`, if any). `headers`: extra response headers.
 */
function sendResult(
  reply: Reply,
  id: string | number,
  current: boolean,
  result: Record<string, unknown>,
  headers?: Record<string, string>,
): void {
  const meta = result._meta as Record<string, unknown> | undefined;
  reply.send(
    200,
    resultResponse(
      id,
      current
        ? { resultType: "complete", ...result, _meta: meta ? { ...SERVER_META, ...meta } : SERVER_META }
        : result,
    ),
    headers,
  );
}

/** Resources and prompts fit in one page: any cursor is one this server never gave. @throws RpcError -32602. */
function firstPage(params: Record<string, unknown>): void {
  if (params.cursor !== undefined) throw new RpcError(RPC.invalidParams, "Invalid cursor");
}

/** Cache hints of a list or read (2026-07-28 only): the answer depends on the token's scopes. */
const privateHints = (current: boolean) =>
  current ? { ttlMs: CATALOG_TTL_MS, cacheScope: "private" as const } : {};

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
  client: ClientFeatures = { views: false },
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
        _meta: { [META_SERVER_INFO]: serverIdentity(ep.ctx.config.publicBaseUrl) },
      });
    case "initialize": {
      if (current) break;
      const requested = params.protocolVersion;
      if (typeof requested !== "string")
        throw new RpcError(RPC.invalidParams, "params.protocolVersion is required");
      const version = (LEGACY_VERSIONS as readonly string[]).includes(requested)
        ? requested
        : LEGACY_VERSIONS[0];
      // A client that shows views gets a session id saying so (./apps/client.ts); others none, as before.
      const headers = declaresViews(params.capabilities)
        ? { "Mcp-Session-Id": ep.viewSessions.mint() }
        : undefined;
      return sendResult(
        reply,
        msg.id,
        current,
        {
          protocolVersion: version,
          capabilities: SERVER_CAPABILITIES,
          serverInfo: serverIdentity(ep.ctx.config.publicBaseUrl),
          instructions: INSTRUCTIONS,
        },
        headers,
      );
    }
    case "ping":
      if (current) break;
      return sendResult(reply, msg.id, current, {});
    case "tools/list": {
      const page = ep.lister.list(auth.scopes, params.cursor, client.views);
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
      const result: Record<string, unknown> = callToolResult(outcome.envelope);
      if (client.views) {
        const view = await buildViewData(ep.ctx, params.name, params.arguments, outcome.envelope, auth).catch(
          (err: unknown) => {
            // Class and code only (service spec 7 rule 7): the message and stack can carry user data.
            const fields = { requestId: reply.requestId, tool: params.name };
            logError(ep.ctx.log, err, fields, "view data of a tool result could not be built");
            return undefined;
          },
        );
        if (view) result._meta = { [VIEW_META_KEY]: view };
      }
      return sendResult(reply, msg.id, current, result);
    }
    case "resources/list":
      firstPage(params);
      return sendResult(reply, msg.id, current, {
        resources: ep.resources.list(auth.scopes),
        ...privateHints(current),
      });
    case "resources/templates/list":
      firstPage(params);
      return sendResult(reply, msg.id, current, { resourceTemplates: [], ...privateHints(current) });
    case "resources/read":
      return sendResult(reply, msg.id, current, {
        contents: ep.resources.read(params.uri, auth.scopes),
        ...privateHints(current),
      });
    case "prompts/list":
      firstPage(params);
      return sendResult(reply, msg.id, current, {
        prompts: listPrompts(auth.scopes),
        ...privateHints(current),
      });
    case "prompts/get":
      return sendResult(
        reply,
        msg.id,
        current,
        await getPrompt(ep.ctx, auth, params.name, params.arguments, reply.requestId),
      );
    case "completion/complete":
      return sendResult(reply, msg.id, current, {
        completion: await completePrompt(ep.ctx, auth, params, reply.requestId),
      });
  }
  throw new RpcError(RPC.methodNotFound, "Method not found", current ? 404 : 200);
}
