/**
 * tools/list (MCP server/tools "Listing tools", service spec 5.9): only the tools the token's scopes allow,
 * in the registry's order (sorted by name), in pages of `pageSize` with opaque cursors. The serialized page
 * depends only on the scope set, so listing twice with the same scopes gives identical bytes; pages are
 * memoized per scope set (bounded), so the hot path does no filtering or serialization work. Each tool is
 * listed with its compact input and output schemas (listed-schema.ts); calls and results are validated
 * against the full ones. For a client that shows MCP Apps views (src/mcp/apps/client.ts) a tool whose results
 * a view shows also carries `_meta.ui.resourceUri` (MCP Apps spec 2026-01-26 "Resource Discovery") and the
 * older flat `_meta["ui/resourceUri"]` that hosts before it read, as the SDK's `registerAppTool` writes
 * both; other clients get exactly the listing they always got (the two listings are memoized apart).
 */
import type { RegisteredTool } from "../tool-contract.ts";
import type { CursorCodec } from "./cursor.ts";
import { RPC, RpcError } from "./jsonrpc.ts";
import { listedInputSchema, listedOutputSchema } from "./listed-schema.ts";

/** The wire form of one tool (the same for every revision). */
export interface WireTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: RegisteredTool["annotations"];
  /** MCP Apps: the view of the tool's results (clients that show views only). */
  _meta?: { ui: { resourceUri: string }; "ui/resourceUri": string };
}

export interface ToolsPage {
  tools: WireTool[];
  nextCursor?: string;
}

export interface ToolLister {
  /**
   * The page at `cursor` of the tools `scopes` allow; `views`: the client shows MCP Apps views.
   * @throws RpcError -32602 for a bad cursor.
   */
  list(scopes: ReadonlySet<string>, cursor: unknown, views?: boolean): ToolsPage;
}

const MAX_MEMO = 256;

/** Builds the lister over `tools` (sorted by name) with `pageSize` tools per page. */
export function createToolLister(
  tools: readonly RegisteredTool[],
  pageSize: number,
  cursors: CursorCodec,
): ToolLister {
  const wire = new Map<string, WireTool>(
    tools.map((t) => [
      t.name,
      {
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: listedInputSchema(t),
        outputSchema: listedOutputSchema(t),
        annotations: t.annotations,
      },
    ]),
  );
  const withView = new Map<string, WireTool>(
    tools.flatMap((t) => {
      const uri = t._meta?.ui.resourceUri;
      return uri
        ? [[t.name, { ...wire.get(t.name)!, _meta: { ui: { resourceUri: uri }, "ui/resourceUri": uri } }]]
        : [];
    }),
  );
  const memo = new Map<string, WireTool[]>();
  const allowed = (scopes: ReadonlySet<string>, key: string, views: boolean): WireTool[] => {
    let list = memo.get(key);
    if (!list) {
      list = tools
        .filter((t) => scopes.has(t.scope))
        .map((t) => (views ? withView.get(t.name) : undefined) ?? wire.get(t.name)!);
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(key, list);
    }
    return list;
  };
  return {
    list(scopes, cursor, views = false) {
      const key = `${[...scopes].sort().join(" ")}${views ? " +views" : ""}`;
      let offset = 0;
      if (cursor !== undefined) {
        const decoded = typeof cursor === "string" ? cursors.decode(cursor, key) : undefined;
        if (decoded === undefined) throw new RpcError(RPC.invalidParams, "Invalid cursor");
        offset = decoded;
      }
      const list = allowed(scopes, key, views);
      if (offset > list.length) throw new RpcError(RPC.invalidParams, "Invalid cursor");
      const page: ToolsPage = { tools: list.slice(offset, offset + pageSize) };
      if (offset + pageSize < list.length) page.nextCursor = cursors.encode(offset + pageSize, key);
      return page;
    },
  };
}
