/**
 * JSON-RPC 2.0 shapes and the MCP protocol error codes this endpoint emits (docs/specification 2026-07-28
 * basic/index and docs/spec/mcp-protocol.md). Codes -32000..-32019 are legacy and never emitted.
 */

export type JsonRpcId = string | number;

/** JSON-RPC error codes used on the wire. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** HeaderMismatch: a required header is missing, malformed or differs from the body (2026-07-28). */
  headerMismatch: -32020,
  /** MissingRequiredClientCapability (2026-07-28). */
  missingCapability: -32021,
  /** UnsupportedProtocolVersion, with `data: {supported, requested}` (2026-07-28). */
  unsupportedVersion: -32022,
} as const;

/** A parsed JSON-RPC request (has an id) or notification (no id). */
export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * A protocol failure: becomes a JSON-RPC error response with HTTP `status` (and `headers`, e.g. a 429's
 * Retry-After). `message` is a short, safe sentence; `data` is structured detail (never secrets or argument
 * values).
 */
export class RpcError extends Error {
  readonly code: number;
  readonly status: number;
  readonly data?: unknown;
  readonly headers?: Record<string, string> | undefined;
  constructor(
    code: number,
    message: string,
    status: number = 200,
    data?: unknown,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.code = code;
    this.status = status;
    this.data = data;
    this.headers = headers;
    this.name = "RpcError";
  }
}

/** Builds an error response object; `id` is echoed from the request (null when it could not be read). */
export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown) {
  return {
    jsonrpc: "2.0" as const,
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/** Builds a result response object. */
export function resultResponse(id: JsonRpcId, result: Record<string, unknown>) {
  return { jsonrpc: "2.0" as const, id, result };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks that `body` is ONE JSON-RPC request or notification (arrays, responses and malformed objects are
 * refused with -32600 and HTTP 400).
 * @throws RpcError
 */
export function parseMessage(body: unknown): JsonRpcMessage {
  if (Array.isArray(body))
    throw new RpcError(RPC.invalidRequest, "Batches are not supported: send one JSON-RPC message", 400);
  if (!isObject(body) || body.jsonrpc !== "2.0")
    throw new RpcError(RPC.invalidRequest, "Not a JSON-RPC 2.0 message", 400);
  if (!("method" in body)) {
    const what = "result" in body || "error" in body ? "Responses are not accepted here" : "Missing method";
    throw new RpcError(RPC.invalidRequest, what, 400);
  }
  if (typeof body.method !== "string" || body.method.length === 0)
    throw new RpcError(RPC.invalidRequest, "method must be a non-empty string", 400);
  if ("id" in body) {
    const id = body.id;
    const okId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
    if (!okId) throw new RpcError(RPC.invalidRequest, "id must be a string or a number", 400);
  }
  if ("params" in body && body.params !== undefined && !isObject(body.params))
    throw new RpcError(RPC.invalidRequest, "params must be an object", 400);
  return body as unknown as JsonRpcMessage;
}

export { isObject };
