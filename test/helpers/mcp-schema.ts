/**
 * Validates MCP wire messages against the official JSON Schemas in test/fixtures/mcp-schema/<revision>/
 * (ajv; draft-07 for 2025-06-18, 2020-12 for later revisions). Usable by every test that talks to /mcp:
 *
 *   assertMcpResponse("2026-07-28", "tools/list", body)   // throws with ajv's errors when invalid
 *   mcpSchemaErrors("2025-11-25", "InitializeResult", result)   // [] when valid
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv as Ajv07, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export type McpRevision = "2026-07-28" | "2025-11-25" | "2025-06-18";

/** The official schemas copied into test/fixtures/mcp-schema (see its README for their source). */
const SCHEMA_DIR = fileURLToPath(new URL("../fixtures/mcp-schema", import.meta.url));
const addFormats = addFormatsModule as unknown as (ajv: unknown) => void;

const compiled = new Map<
  McpRevision,
  { ajv: Ajv07 | Ajv2020; defs: string; cache: Map<string, ValidateFunction> }
>();

function load(revision: McpRevision) {
  let entry = compiled.get(revision);
  if (!entry) {
    const schema = JSON.parse(readFileSync(`${SCHEMA_DIR}/${revision}/schema.json`, "utf8"));
    const draft07 = revision === "2025-06-18";
    const ajv = draft07
      ? new Ajv07({ strict: false, allErrors: true })
      : new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const id = `mcp-${revision}`;
    ajv.addSchema({ ...schema, $id: id }, id);
    entry = { ajv, defs: `${id}#/${draft07 ? "definitions" : "$defs"}/`, cache: new Map() };
    compiled.set(revision, entry);
  }
  return entry;
}

/** Errors of `value` against definition `def` (e.g. "CallToolResult") of `revision`'s schema; [] when valid. */
export function mcpSchemaErrors(revision: McpRevision, def: string, value: unknown): string[] {
  const entry = load(revision);
  let validate = entry.cache.get(def);
  if (!validate) {
    validate = entry.ajv.getSchema(entry.defs + def);
    if (!validate) throw new Error(`no definition ${def} in the ${revision} schema`);
    entry.cache.set(def, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${def}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

const RESULT_DEFS: Record<string, string> = {
  initialize: "InitializeResult",
  ping: "EmptyResult",
  "server/discover": "DiscoverResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
};

const ERROR_DEFS_2026: Record<number, string> = {
  [-32020]: "HeaderMismatchError",
  [-32021]: "MissingRequiredClientCapabilityError",
  [-32022]: "UnsupportedProtocolVersionError",
};
const ERROR_OBJECT_DEFS_2026: Record<number, string> = {
  [-32700]: "ParseError",
  [-32600]: "InvalidRequestError",
  [-32601]: "MethodNotFoundError",
  [-32602]: "InvalidParamsError",
  [-32603]: "InternalError",
};

/**
 * Asserts that `body` is a valid JSON-RPC response of `revision` to a `method` request: the envelope
 * (result or error response) and, for results, the method's result type; for 2026-07-28 errors, the
 * specific error definition of the code.
 */
export function assertMcpResponse(revision: McpRevision, method: string, body: unknown): void {
  const errors: string[] = [];
  const msg = body as { result?: unknown; error?: { code?: number } };
  if (msg && typeof msg === "object" && "error" in msg) {
    const responseDef = revision === "2025-06-18" ? "JSONRPCError" : "JSONRPCErrorResponse";
    errors.push(...mcpSchemaErrors(revision, responseDef, body));
    const code = msg.error?.code ?? 0;
    if (revision === "2026-07-28") {
      const full = ERROR_DEFS_2026[code];
      if (full) errors.push(...mcpSchemaErrors(revision, full, body));
      const obj = ERROR_OBJECT_DEFS_2026[code];
      if (obj) errors.push(...mcpSchemaErrors(revision, obj, msg.error));
    }
  } else {
    const responseDef = revision === "2025-06-18" ? "JSONRPCResponse" : "JSONRPCResultResponse";
    errors.push(...mcpSchemaErrors(revision, responseDef, body));
    const def = RESULT_DEFS[method];
    if (def && !(revision === "2026-07-28" && method === "ping"))
      errors.push(...mcpSchemaErrors(revision, def, msg?.result));
  }
  assert.deepEqual(
    errors,
    [],
    `response to ${method} is not valid MCP ${revision}: ${JSON.stringify(body).slice(0, 2000)}`,
  );
}

/** Asserts that `message` (e.g. an SSE event) is a valid server notification of `revision`. */
export function assertMcpNotification(revision: McpRevision, message: unknown): void {
  const method = (message as { method?: string })?.method;
  const def = method === "notifications/progress" ? "ProgressNotification" : "JSONRPCNotification";
  assert.deepEqual(mcpSchemaErrors(revision, def, message), [], `notification is not valid MCP ${revision}`);
}
