/**
 * Which protocol revision a request speaks, and the 2026-07-28 request checks in their required order
 * (docs/spec/mcp-protocol.md "Revision 2026-07-28"; spec basic/transports "Standard headers", SEP-2243):
 *   1. `MCP-Protocol-Version` header missing            -> 400 / -32020
 *   2. a required `_meta` key missing                    -> 400 / -32602
 *   3. a header differs from the body or is malformed    -> 400 / -32020
 *   4. version unsupported                               -> 400 / -32022 {supported, requested}
 * (5. unknown or removed method -> 404 / -32601 is decided by the dispatcher.)
 * A request without the modern `_meta` whose header names a legacy revision (or that has no header at all)
 * is served as legacy (2025-11-25, 2025-06-18); one whose header names an unknown revision gets -32022.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isObject, type JsonRpcMessage, RPC, RpcError } from "./jsonrpc.ts";

export const CURRENT_VERSION = "2026-07-28";
/** Legacy revisions with the initialize handshake, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18"] as const;
/** Every revision the endpoint serves (server/discover `supportedVersions`). */
export const SUPPORTED_VERSIONS: readonly string[] = [CURRENT_VERSION, ...LEGACY_VERSIONS];

export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

export type Revision =
  | { kind: "current"; version: typeof CURRENT_VERSION }
  | { kind: "legacy"; version: string | undefined };

const isLegacy = (v: string | undefined): boolean =>
  v !== undefined && (LEGACY_VERSIONS as readonly string[]).includes(v);

// Visible ASCII and spaces only (RFC 9110 field-value, no obs-text).
const FIELD_VALUE = /^[\x20-\x7e]*$/;
const BASE64_WRAPPED = /^=\?base64\?(.*)\?=$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Reads one header: trims surrounding whitespace and decodes a `=?base64?...?=` value (SEP-2243).
 * @returns undefined when absent. @throws RpcError -32020 when the value has invalid characters or bad Base64.
 */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw.join(",") : raw).trim();
  if (!FIELD_VALUE.test(value))
    throw new RpcError(RPC.headerMismatch, `Header ${name} has invalid characters`, 400);
  const wrapped = BASE64_WRAPPED.exec(value);
  if (!wrapped) return value;
  const b64 = wrapped[1] ?? "";
  if (!BASE64.test(b64)) throw new RpcError(RPC.headerMismatch, `Header ${name} is not valid Base64`, 400);
  return Buffer.from(b64, "base64").toString("utf8");
}

/**
 * Decides the revision of `msg` and applies checks 1-4 for 2026-07-28 requests.
 * Legacy requests other than `initialize` must carry a legacy `MCP-Protocol-Version` (400 / -32020 if absent).
 * @throws RpcError with the status and code of the protocol notes.
 */
export function resolveRevision(headers: IncomingHttpHeaders, msg: JsonRpcMessage): Revision {
  const header = headerValue(headers, "mcp-protocol-version");
  const meta = msg.params?._meta;
  const metaVersion = isObject(meta) ? meta[META_VERSION] : undefined;
  // A dual-revision server serves an `initialize` as legacy, whatever `_meta` it carries; only a
  // 2026-07-28 header makes it a (removed) method of the current revision.
  if (msg.method === "initialize" && (header === undefined || isLegacy(header)))
    return { kind: "legacy", version: header };
  if (metaVersion === undefined && (header === undefined || isLegacy(header))) {
    if (header === undefined && msg.method !== "initialize" && msg.id !== undefined)
      throw new RpcError(
        RPC.headerMismatch,
        "The MCP-Protocol-Version header is required after initialization",
        400,
      );
    return { kind: "legacy", version: header };
  }
  if (isLegacy(header) && metaVersion === header) return { kind: "legacy", version: header };
  if (metaVersion === undefined && header !== CURRENT_VERSION) throw unsupported(header ?? "");
  // 2026-07-28 rules, in order.
  if (header === undefined)
    throw new RpcError(RPC.headerMismatch, "The MCP-Protocol-Version header is required", 400);
  if (!isObject(meta)) throw new RpcError(RPC.invalidParams, "params._meta is required", 400);
  if (typeof metaVersion !== "string")
    throw new RpcError(RPC.invalidParams, `params._meta["${META_VERSION}"] is required`, 400);
  if (!isObject(meta[META_CAPABILITIES]))
    throw new RpcError(
      RPC.invalidParams,
      `params._meta["${META_CAPABILITIES}"] is required (an object)`,
      400,
    );
  if (header !== metaVersion)
    throw new RpcError(RPC.headerMismatch, "The MCP-Protocol-Version header differs from params._meta", 400);
  const method = headerValue(headers, "mcp-method");
  if (method !== msg.method)
    throw new RpcError(RPC.headerMismatch, "The Mcp-Method header is missing or differs from the body", 400);
  if (msg.method === "tools/call") {
    const name = headerValue(headers, "mcp-name");
    if (name !== msg.params?.name)
      throw new RpcError(
        RPC.headerMismatch,
        "The Mcp-Name header is missing or differs from params.name",
        400,
      );
  }
  if (metaVersion !== CURRENT_VERSION) throw unsupported(metaVersion);
  return { kind: "current", version: CURRENT_VERSION };
}

function unsupported(requested: string): RpcError {
  return new RpcError(RPC.unsupportedVersion, "Unsupported protocol version", 400, {
    supported: [...SUPPORTED_VERSIONS],
    requested,
  });
}
