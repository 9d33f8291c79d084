/**
 * tools/list (MCP server/tools "Listing tools", service spec 5.9): only the tools the token's scopes allow,
 * in the registry's order (sorted by name), in pages of `pageSize` with opaque cursors. The serialized page
 * depends only on the scope set, so listing twice with the same scopes gives identical bytes; pages are
 * memoized per scope set (bounded), so the hot path does no filtering or serialization work. Each tool is
 * listed with its compact input and output schemas (listed-schema.ts); calls and results are validated
 * against the full ones.
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
}

export interface ToolsPage {
  tools: WireTool[];
  nextCursor?: string;
}

export interface ToolLister {
  /** @throws RpcError -32602 for a bad cursor. */
  list(scopes: ReadonlySet<string>, cursor: unknown): ToolsPage;
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
  const memo = new Map<string, WireTool[]>();
  const allowed = (scopes: ReadonlySet<string>, key: string): WireTool[] => {
    let list = memo.get(key);
    if (!list) {
      list = tools.filter((t) => scopes.has(t.scope)).map((t) => wire.get(t.name)!);
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(key, list);
    }
    return list;
  };
  return {
    list(scopes, cursor) {
      const key = [...scopes].sort().join(" ");
      let offset = 0;
      if (cursor !== undefined) {
        const decoded = typeof cursor === "string" ? cursors.decode(cursor, key) : undefined;
        if (decoded === undefined) throw new RpcError(RPC.invalidParams, "Invalid cursor");
        offset = decoded;
      }
      const list = allowed(scopes, key);
      if (offset > list.length) throw new RpcError(RPC.invalidParams, "Invalid cursor");
      const page: ToolsPage = { tools: list.slice(offset, offset + pageSize) };
      if (offset + pageSize < list.length) page.nextCursor = cursors.encode(offset + pageSize, key);
      return page;
    },
  };
}
