/**
 * A raw MCP-over-HTTP test client: sends one JSON-RPC message to /mcp with the headers of a revision and
 * validates every JSON-RPC response (and SSE notification) it gets against the official schema of that
 * revision (test/helpers/mcp-schema.ts). For protocol tests that need to break the rules, every header and
 * the `_meta` can be overridden or removed.
 */
import { randomUUID } from "node:crypto";
import { assertMcpNotification, assertMcpResponse, type McpRevision } from "./mcp-schema.ts";

export interface RpcOptions {
  /** Default 2026-07-28. */
  revision?: McpRevision;
  token?: string | undefined;
  id?: string | number;
  /** Header overrides; `undefined` removes a default header. */
  headers?: Record<string, string | undefined>;
  /** 2026-07-28 `_meta` (default: version, empty capabilities, client info); `false` sends none. */
  meta?: Record<string, unknown> | false;
  /** Skip schema validation (for responses that are deliberately not MCP, e.g. HTTP errors). */
  validate?: boolean;
}

export interface RpcResult {
  status: number;
  headers: Headers;
  /** Parsed JSON body (the final JSON-RPC message for SSE), or undefined. */
  body: any;
  /** SSE messages in order (notifications then the response), when the answer was a stream. */
  events: any[];
  text: string;
}

/** Sends `method` with `params` to `url` and returns the parsed answer (validated unless told otherwise). */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RpcOptions = {},
): Promise<RpcResult> {
  const revision = options.revision ?? "2026-07-28";
  const id = options.id ?? randomUUID();
  const current = revision === "2026-07-28";
  let finalParams = params;
  if (current && options.meta !== false) {
    const meta = options.meta ?? {
      "io.modelcontextprotocol/protocolVersion": revision,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "social-mcp-tests", version: "1.0.0" },
    };
    finalParams = { ...params, _meta: { ...meta, ...((params._meta as object | undefined) ?? {}) } };
  }
  const headers: Record<string, string | undefined> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": method === "initialize" && !current ? undefined : revision,
  };
  if (current) {
    headers["mcp-method"] = method;
    if (method === "tools/call" && typeof params.name === "string") headers["mcp-name"] = params.name;
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
  const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const res = await fetch(url, {
    method: "POST",
    headers: sent,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: finalParams }),
  });
  const result = await readAnswer(res);
  if (
    options.validate !== false &&
    result.body &&
    typeof result.body === "object" &&
    "jsonrpc" in result.body
  ) {
    assertMcpResponse(revision, method, result.body);
    for (const e of result.events.slice(0, -1)) assertMcpNotification(revision, e);
  }
  return result;
}

/** Posts a raw body (string) with the given headers; no validation. */
export async function postRaw(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<RpcResult> {
  return readAnswer(await fetch(url, { method: "POST", headers, body }));
}

async function readAnswer(res: Response): Promise<RpcResult> {
  const text = await res.text();
  const events: any[] = [];
  let body: any;
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    for (const block of text.split("\n\n")) {
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      if (data) events.push(JSON.parse(data));
    }
    body = events.at(-1);
  } else if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body, events, text };
}
