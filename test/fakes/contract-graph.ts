/**
 * The Graph API part of the contract check (contract.ts), from the converted Meta specs (scripts/contracts/
 * meta.ts): a path's first segment is an id whose node type the fake names, parameters come in the query or
 * the form body alike and keep Meta's types, and `fields` may name only the node's fields and edges, as Graph
 * answers "(#100) Tried accessing nonexisting field (x) on node type (N)"
 * (https://developers.facebook.com/docs/graph-api/guides/error-handling, code 100).
 */
import type { ContractRequest, Operation, Violation } from "./contract.ts";
import { loadDoc } from "./contract.ts";

/** Parameters every Graph call takes (https://developers.facebook.com/docs/graph-api/overview). */
const COMMON = new Set([
  "access_token",
  "appsecret_proof",
  "fields",
  "limit",
  "after",
  "before",
  "pretty",
  "locale",
]);

/** `/123/feed` -> `/{Page}/feed` when the fake knows 123 is a Page; undefined when it does not know the id. */
export function graphTemplatePath(p: string, nodeOf: (id: string) => string | undefined): string | undefined {
  const [, id, ...rest] = p.split("/");
  if (!id) return undefined;
  const node = nodeOf(decodeURIComponent(id));
  if (!node) return undefined;
  return `/{${node}}${rest.length > 0 ? `/${rest.join("/")}` : ""}`;
}

/** The top-level names of a `fields` value (`a,b.limit(0).summary(x),c{d,e}` -> a, b, c). */
export function fieldNames(fields: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of fields) {
    if (ch === "{" || ch === "(") depth += 1;
    if (ch === "}" || ch === ")") depth -= 1;
    if (ch === "," && depth === 0) {
      names.push(current);
      current = "";
    } else current += ch;
  }
  names.push(current);
  return names.map((n) => n.split(/[.{(]/)[0]!.trim()).filter(Boolean);
}

/** Whether `value` (a query or form string) is of Meta type `type` with `values` as its enum. */
function typeOk(type: string, value: string, values: string[] | undefined): boolean {
  const list = /^list(?:<(.+)>)?$/.exec(type);
  if (list) {
    let items: string[];
    try {
      const parsed = JSON.parse(value);
      items = Array.isArray(parsed)
        ? parsed.map((x) => (typeof x === "string" ? x : JSON.stringify(x)))
        : [value];
    } catch {
      items = value.split(",");
    }
    return items.every((i) => typeOk(list[1] ?? "string", i.trim(), values));
  }
  if (values) return values.includes(value);
  if (type === "bool") return ["true", "false", "1", "0"].includes(value);
  if (type === "int") return /^-?\d+$/.test(value);
  if (type === "unsigned int") return /^\d+$/.test(value);
  if (type === "float") return /^-?\d+(\.\d+)?$/.test(value);
  // A list of `Object` is Meta's loose type for lists of names too (`metric` of insights: a comma list).
  if (type === "Object" && value.length > 0 && !value.startsWith("{")) return true;
  if (type === "Object" || type === "map") {
    try {
      return typeof JSON.parse(value) === "object";
    } catch {
      return false;
    }
  }
  return true;
}

/** Checks a Graph request against `op`; a violation or undefined. */
export async function checkGraphRequest(
  op: Operation,
  req: ContractRequest,
  _params: Record<string, string>,
): Promise<Omit<Violation, "provider" | "request" | "where"> | undefined> {
  const g = op.graph!;
  const merged = new URLSearchParams(req.query);
  const type = String(req.headers["content-type"] ?? "");
  if (req.body.length > 0) {
    if (type.startsWith("application/x-www-form-urlencoded"))
      for (const [k, v] of new URLSearchParams(req.body.toString("utf8"))) merged.append(k, v);
    else if (type.startsWith("application/json")) {
      for (const [k, v] of Object.entries(JSON.parse(req.body.toString("utf8")) as Record<string, unknown>))
        merged.append(k, typeof v === "string" ? v : JSON.stringify(v));
    } else if (!type.startsWith("multipart/form-data"))
      return { kind: "content_type", value: type, message: `(#100) unsupported content type ${type}` };
  }
  // `name[0]`, `name[1]`: a list sent as indexed form fields (attached_media[0]={"media_fbid":...}).
  for (const key of [...new Set(merged.keys())]) {
    const m = /^(.+)\[\d+\]$/.exec(key);
    if (!m) continue;
    const items = merged.getAll(key);
    merged.delete(key);
    const list = JSON.parse(merged.get(m[1]!) ?? "[]") as unknown[];
    for (const i of items) {
      try {
        list.push(JSON.parse(i));
      } catch {
        list.push(i);
      }
    }
    merged.set(m[1]!, JSON.stringify(list));
  }
  for (const key of new Set(merged.keys())) {
    if (COMMON.has(key)) continue;
    const spec = g.params.properties[key];
    if (!spec)
      return {
        kind: "unknown_parameter",
        param: key,
        message: `(#100) Param ${key} is not a valid parameter of ${op.id}`,
      };
    const value = merged.get(key)!;
    if (!typeOk(spec["x-graph-type"], value, spec.enum))
      return {
        kind: "invalid_value",
        param: key,
        value,
        message: `(#100) Param ${key} must be ${spec.enum ? `one of {${spec.enum.join(", ")}}` : `a ${spec["x-graph-type"]}`}`,
      };
  }
  for (const key of g.params.required)
    if (!merged.has(key))
      return { kind: "missing_parameter", param: key, message: `(#100) The parameter ${key} is required` };
  const fields = merged.get("fields");
  if (fields) {
    const target = op.method === "GET" ? (g.returns ?? g.node) : g.node;
    const nodes = loadDoc(op.doc).doc.components["x-graph-nodes"] as Record<
      string,
      { fields: string[]; edges: string[] }
    >;
    const known = nodes[target] ?? loadDoc(op.doc).doc.components.schemas[target];
    const names = known
      ? new Set([...(known.fields ?? Object.keys(known.properties ?? {})), ...(known.edges ?? [])])
      : undefined;
    if (names) {
      const bad = fieldNames(fields).find((f) => !names.has(f) && f !== "id");
      if (bad !== undefined)
        return {
          kind: "unknown_field",
          param: "fields",
          value: bad,
          message: `(#100) Tried accessing nonexisting field (${bad}) on node type (${target})`,
        };
    }
  }
  return undefined;
}
