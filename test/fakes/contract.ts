/**
 * The contract check of the fakes (test only): every request a fake receives is checked against its operation
 * in the provider's published description (test/contracts/*.json, written by scripts/contracts.ts) before the
 * fake acts on it, and every answer against the operation's response schema (docs/testing.md "Provider
 * contracts").
 *
 * A request is checked for: its method and path (an operation the description does not have is a violation),
 * its path and query parameters (required ones present, unknown ones refused, values of the declared type,
 * enum and format), the header parameters the description names, its content type (one of the request body's
 * media types) and its body against the body schema (required properties, types, enums, formats,
 * `additionalProperties`). A violation is answered in the provider's real error shape (contract-errors.ts),
 * recorded, and fails the test that caused it (the fakes' `afterEach`), unless the test takes it with
 * `takeViolations()` to assert on it.
 *
 * Validators are compiled once per process (ajv), per operation, when first used; the descriptions are read
 * once per process.
 *
 * Provider specifics, each from the description's own format:
 * - Graph (graph.ts): operations by node type (`/{Page}/feed`), the fake naming the type of an id, parameters
 *   in query or form body, `fields` checked against the node's fields and edges;
 * - YouTube: `part` values among `x-part-values` (the resource's top-level properties);
 * - X: two descriptions (2026-07 `specs/openapi.json`, v2.159 `latest-openapi.json`); a request must be valid
 *   against one, and the answer is checked against the one it matched (`matched`);
 * - OpenAI: a top-level body key the schema does not name is refused (OpenAI answers "Unknown parameter").
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { checkGraphRequest, graphTemplatePath } from "./contract-graph.ts";
import type { HandOperation } from "./contract-hand.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type ProviderName =
  | "openai"
  | "pinterest"
  | "x"
  | "youtube"
  | "facebook"
  | "instagram"
  | "linkedin"
  | "tiktok";

/** One problem with a request or an answer. */
export interface Violation {
  provider: ProviderName;
  /** `METHOD /path` as received. */
  request: string;
  /** The operation id, when one matched. */
  operation?: string;
  where: "request" | "response";
  /** What kind of problem, for the provider's error shape. */
  kind:
    | "unknown_operation"
    | "unknown_parameter"
    | "missing_parameter"
    | "invalid_value"
    | "unknown_part"
    | "unknown_field"
    | "content_type"
    | "body";
  /** The parameter or body path concerned. */
  param?: string;
  value?: unknown;
  /** The values an enum allows, when that is what was broken. */
  allowed?: unknown[];
  message: string;
}

/** What the check needs of a request. */
export interface ContractRequest {
  method: string;
  /** The path on the provider's host, without the query (a Graph version prefix removed). */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** An operation, from a description or written by hand (contract-hand.ts). */
export interface Operation {
  id: string;
  /** The description it comes from (file name without `.json`, or `hand`). */
  doc: string;
  method: string;
  segments: string[];
  parameters: Parameter[];
  /** Media type -> body schema pointer (or inline schema); undefined when the operation takes no body. */
  body?: { required: boolean; content: Map<string, SchemaRef> };
  /** Status (or `default`) -> JSON answer schema; a status missing here is not checked. */
  responses: Map<string, SchemaRef | null>;
  /** OpenAI: unknown top-level body keys are refused. */
  closedBody?: boolean;
  /** Graph operations: the node type, the node type of an edge's items, the parameters. */
  graph?: { node: string; returns?: string; params: { properties: Record<string, any>; required: string[] } };
  /** Where a hand-written rule comes from. */
  source?: string;
}

interface Parameter {
  name: string;
  in: "query" | "path" | "header";
  required: boolean;
  schema: SchemaRef;
  explode: boolean;
  partValues?: string[];
}

/** A schema: a JSON pointer into a description, or an inline schema (hand-written operations). */
type SchemaRef = { doc: string; pointer: string } | { inline: object };

const CONTRACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "contracts");

interface LoadedDoc {
  name: string;
  doc: any;
  /** The path of the description's first server (`/v5` of `https://api.pinterest.com/v5`), "" for none. */
  basePath: string;
  ajv: Ajv;
  operations: Operation[];
}

const docs = new Map<string, LoadedDoc>();
const compiled = new Map<string, ValidateFunction>();

function newAjv(draft2020: boolean): Ajv {
  const options = {
    strict: false,
    allErrors: false,
    logger: false as const,
    validateFormats: true,
    verbose: true,
  };
  const ajv = draft2020 ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv as Ajv);
  return ajv as Ajv;
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The description `name` (test/contracts/{name}.json), read and indexed once per process. */
export function loadDoc(name: string): LoadedDoc {
  const have = docs.get(name);
  if (have) return have;
  const doc = JSON.parse(readFileSync(path.join(CONTRACTS, `${name}.json`), "utf8"));
  nullables(doc);
  const ajv = newAjv(String(doc.openapi).startsWith("3.1"));
  ajv.addSchema(doc, `${name}.json`);
  const operations: Operation[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const base = `#/paths/${escapePointer(p)}/${method}`;
      const parameters: Parameter[] = [];
      const all = [
        ...(item.parameters ?? []).map((x: any, i: number) => [
          x,
          `#/paths/${escapePointer(p)}/parameters/${i}`,
        ]),
        ...(op.parameters ?? []).map((x: any, i: number) => [x, `${base}/parameters/${i}`]),
      ];
      for (const [raw, pointer] of all) {
        let prm = raw;
        let ptr = pointer as string;
        if (prm.$ref) {
          ptr = prm.$ref;
          prm = resolve(doc, prm.$ref);
        }
        if (!["query", "path", "header"].includes(prm.in)) continue;
        parameters.push({
          name: prm.name,
          in: prm.in,
          required: Boolean(prm.required) || prm.in === "path",
          schema: { doc: name, pointer: `${ptr}/schema` },
          explode: prm.explode ?? (prm.style === undefined || prm.style === "form"),
          ...(prm["x-part-values"] ? { partValues: prm["x-part-values"] } : {}),
        });
      }
      let body: Operation["body"];
      let rb = op.requestBody;
      let rbPtr = `${base}/requestBody`;
      if (rb?.$ref) {
        rbPtr = rb.$ref;
        rb = resolve(doc, rb.$ref);
      }
      if (rb?.content) {
        const content = new Map<string, SchemaRef>();
        for (const type of Object.keys(rb.content))
          content.set(type, { doc: name, pointer: `${rbPtr}/content/${escapePointer(type)}/schema` });
        body = { required: Boolean(rb.required), content };
      }
      const responses = new Map<string, SchemaRef | null>();
      for (const [status, r0] of Object.entries<any>(op.responses ?? {})) {
        let r = r0;
        let rPtr = `${base}/responses/${escapePointer(status)}`;
        if (r.$ref) {
          rPtr = r.$ref;
          r = resolve(doc, r.$ref);
        }
        const json = Object.keys(r.content ?? {}).find((t) => t.includes("json"));
        responses.set(
          status,
          json ? { doc: name, pointer: `${rPtr}/content/${escapePointer(json)}/schema` } : null,
        );
      }
      operations.push({
        id: op.operationId ?? `${method} ${p}`,
        doc: name,
        method: method.toUpperCase(),
        segments: p.split("/").filter(Boolean),
        parameters,
        ...(body ? { body } : {}),
        responses,
        ...(op["x-graph-node"]
          ? {
              graph: {
                node: op["x-graph-node"],
                ...(op["x-graph-returns"] ? { returns: op["x-graph-returns"] } : {}),
                params: op["x-graph-params"],
              },
            }
          : {}),
      });
    }
  }
  const server = String(doc.servers?.[0]?.url ?? "");
  const basePath = /\{/.test(server) ? "" : new URL(server || "https://x").pathname.replace(/\/$/, "");
  const loaded = { name, doc, ajv, operations, basePath };
  docs.set(name, loaded);
  return loaded;
}

/**
 * Normalises a description for ajv, in place. OpenAPI 3.0's `nullable: true` beside a `$ref`, `allOf` or `enum` without `type` (which ajv's `nullable`
 * support needs): rewritten in place as `anyOf: [schema, {type: "null"}]`, the meaning OpenAPI gives it.
 */
function nullables(node: any): void {
  if (Array.isArray(node)) {
    for (const n of node) nullables(n);
    return;
  }
  if (!node || typeof node !== "object") return;
  for (const v of Object.values(node)) nullables(v);
  // A `oneOf` of enums is a union of values: Pinterest's metric types name IMPRESSION in both of theirs,
  // which `oneOf` read strictly would refuse.
  if (Array.isArray(node.oneOf) && node.oneOf.every((b: any) => Array.isArray(b?.enum))) {
    node.anyOf = node.oneOf;
    delete node.oneOf;
  }
  if (node.nullable === true && node.type === undefined) {
    const rest = { ...node };
    delete rest.nullable;
    for (const k of Object.keys(node)) delete node[k];
    node.anyOf = [rest, { type: "null" }];
  } else if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) {
    node.enum = [...node.enum, null];
  }
}

/** The value at JSON pointer `ref` (`#/a/b`) of `doc`. */
export function resolve(doc: any, ref: string): any {
  let node = doc;
  for (const part of ref.replace(/^#\//, "").split("/"))
    node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node;
}

const inlineAjv = newAjv(false);

/** The validator of `schema`, compiled once per process. */
function validator(schema: SchemaRef): ValidateFunction {
  const key = "inline" in schema ? JSON.stringify(schema.inline) : `${schema.doc}${schema.pointer}`;
  let v = compiled.get(key);
  if (!v) {
    v =
      "inline" in schema
        ? inlineAjv.compile(schema.inline)
        : loadDoc(schema.doc).ajv.compile({ $ref: `${schema.doc}.json${schema.pointer}` });
    compiled.set(key, v);
  }
  return v;
}

/** The schema object of `schema` ($refs at its top resolved). */
function schemaOf(schema: SchemaRef): any {
  if ("inline" in schema) return schema.inline;
  const doc = loadDoc(schema.doc).doc;
  let s = resolve(doc, schema.pointer);
  for (let i = 0; s?.$ref && i < 10; i++) s = resolve(doc, s.$ref);
  return s;
}

/** The property names a body schema declares at its top level (through $ref, allOf, anyOf, oneOf). */
function topLevelNames(s: any, doc: any, into = new Set<string>(), depth = 0): Set<string> {
  if (!s || depth > 8) return into;
  if (s.$ref) return topLevelNames(resolve(doc, s.$ref), doc, into, depth + 1);
  for (const k of Object.keys(s.properties ?? {})) into.add(k);
  for (const sub of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])])
    topLevelNames(sub, doc, into, depth + 1);
  return into;
}

function ajvMessage(v: ValidateFunction): {
  param?: string;
  message: string;
  keyword?: string;
  value?: unknown;
  allowed?: unknown[];
} {
  const e = v.errors?.[0];
  if (!e) return { message: "invalid" };
  const at = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  if (e.keyword === "required") {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    return {
      param: at ? `${at}.${missing}` : missing,
      message: `missing required property '${missing}'`,
      keyword: "required",
    };
  }
  if (e.keyword === "additionalProperties") {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    return {
      param: at ? `${at}.${extra}` : extra,
      message: `unknown property '${extra}'`,
      keyword: "additionalProperties",
    };
  }
  if (e.keyword === "enum")
    return {
      ...(at ? { param: at } : {}),
      message: `${at || "value"} must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`,
      keyword: "enum",
      value: e.data,
      allowed: (e.params as { allowedValues: unknown[] }).allowedValues,
    };
  return {
    ...(at ? { param: at } : {}),
    message: `${at || "value"} ${e.message ?? "is invalid"}`,
    keyword: e.keyword,
    value: e.data,
  };
}

/** A query or path value as the schema wants it (numbers, booleans, comma-separated arrays). */
function coerce(raw: string[], schema: any, explode: boolean): unknown {
  const type = Array.isArray(schema?.type) ? schema.type.find((t: string) => t !== "null") : schema?.type;
  if (type === "array") {
    const items = explode ? raw : raw.flatMap((r) => r.split(","));
    return items.map((i) => coerce([i], schema.items, true));
  }
  const v = raw[raw.length - 1]!;
  if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (type === "boolean" && (v === "true" || v === "false")) return v === "true";
  return v;
}

/** The media type of a content-type header, lower case, without parameters. */
const mediaType = (h: string | string[] | undefined) =>
  String(Array.isArray(h) ? h[0] : (h ?? ""))
    .split(";")[0]!
    .trim()
    .toLowerCase();

function typeAccepted(accepted: string[], got: string): string | undefined {
  return accepted.find(
    (a) => a === got || (a.endsWith("/*") && got.startsWith(a.slice(0, -1))) || a === "*/*",
  );
}

/** Parses a body of `type`: JSON, form-urlencoded or multipart (files become the string "(binary)"). */
async function parseBody(type: string, headers: ContractRequest["headers"], body: Buffer): Promise<unknown> {
  if (type.includes("json")) return JSON.parse(body.toString("utf8"));
  if (type === "application/x-www-form-urlencoded")
    return Object.fromEntries(new URLSearchParams(body.toString("utf8")));
  if (type === "multipart/form-data") {
    const form = await new Response(new Uint8Array(body), {
      headers: { "content-type": String(headers["content-type"]) },
    }).formData();
    const out: Record<string, unknown> = {};
    form.forEach((v, k) => {
      out[k] = typeof v === "string" ? v : "(binary)";
    });
    return out;
  }
  return undefined;
}

/** What the check found: the operation matched (and the description), or a violation. */
export interface CheckResult {
  operation?: Operation;
  /** Every description's operation the request is valid against (X has two descriptions). */
  valid?: Operation[];
  violation?: Omit<Violation, "provider" | "request" | "where">;
}

/** The operation of `ops` for `method path` and its path parameters. */
function match(
  ops: Operation[],
  method: string,
  p: string,
): { op: Operation; params: Record<string, string> } | undefined {
  const segs = p.split("/").filter(Boolean);
  for (const op of ops) {
    if (op.segments.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < segs.length && ok; i++) {
      const want = op.segments[i]!;
      const got = decodeURIComponent(segs[i]!);
      // A Graph path arrives with its id already replaced by the node type (`/{Page}/feed`): matched literally.
      if (/^\{.+\}$/.test(want) && !/^\{.+\}$/.test(got)) params[want.slice(1, -1)] = got;
      else if (want !== got) ok = false;
    }
    if (!ok) continue;
    if (op.method === method) return { op, params };
  }
  return undefined;
}

/** Checks `req` against one operation set (one description, or the hand-written table). */
async function checkAgainst(
  ops: Operation[],
  req: ContractRequest,
  p: string,
  extraQuery: string[],
): Promise<CheckResult> {
  const m = match(ops, req.method, p);
  if (!m)
    return {
      violation: { kind: "unknown_operation", message: `no operation ${req.method} ${p} in the description` },
    };
  const { op, params } = m;
  if (op.graph) {
    const v = await checkGraphRequest(op, req, params);
    return v ? { operation: op, violation: v } : { operation: op };
  }
  // Query parameters: unknown, required, values.
  const declared = new Set(op.parameters.filter((x) => x.in === "query").map((x) => x.name));
  for (const key of new Set(req.query.keys()))
    if (!declared.has(key) && !extraQuery.includes(key))
      return {
        operation: op,
        violation: { kind: "unknown_parameter", param: key, message: `unknown query parameter '${key}'` },
      };
  for (const prm of op.parameters) {
    let raw: string[];
    if (prm.in === "query") raw = req.query.getAll(prm.name);
    else if (prm.in === "path") raw = params[prm.name] === undefined ? [] : [params[prm.name]!];
    else {
      const h = req.headers[prm.name.toLowerCase()];
      raw = h === undefined ? [] : Array.isArray(h) ? h : [h];
    }
    if (raw.length === 0) {
      if (prm.required)
        return {
          operation: op,
          violation: {
            kind: "missing_parameter",
            param: prm.name,
            message: `missing required ${prm.in} parameter '${prm.name}'`,
          },
        };
      continue;
    }
    const schema = schemaOf(prm.schema);
    const value = coerce(raw, schema, prm.explode);
    const v = validator(prm.schema);
    if (!v(value)) {
      const e = ajvMessage(v);
      return {
        operation: op,
        violation: {
          kind: "invalid_value",
          param: prm.name,
          value: raw.join(","),
          ...(e.allowed ? { allowed: e.allowed } : {}),
          message: e.message.replace(/^value\b/, prm.name),
        },
      };
    }
    if (prm.partValues) {
      const unknown = raw.flatMap((r) => r.split(",")).find((part) => !prm.partValues!.includes(part.trim()));
      if (unknown !== undefined)
        return {
          operation: op,
          violation: { kind: "unknown_part", param: prm.name, value: unknown, message: `'${unknown}'` },
        };
    }
  }
  // Body: content type, schema, closed top level.
  const type = mediaType(req.headers["content-type"]);
  if (!op.body) {
    if (req.body.length > 0 && req.method !== "GET")
      return {
        operation: op,
        violation: { kind: "content_type", message: `${op.id} takes no request body` },
      };
    return { operation: op };
  }
  if (req.body.length === 0) {
    if (op.body.required)
      return { operation: op, violation: { kind: "body", message: `${op.id} requires a request body` } };
    return { operation: op };
  }
  const accepted = typeAccepted([...op.body.content.keys()], type);
  if (!accepted)
    return {
      operation: op,
      violation: {
        kind: "content_type",
        value: type,
        message: `content type '${type}' is not one of ${[...op.body.content.keys()].join(", ")}`,
      },
    };
  const schemaRef = op.body.content.get(accepted)!;
  let parsed: unknown;
  try {
    parsed = await parseBody(type, req.headers, req.body);
  } catch {
    return { operation: op, violation: { kind: "body", message: `the body is not valid ${type}` } };
  }
  if (parsed === undefined) return { operation: op };
  const schema = schemaOf(schemaRef);
  if (type !== "application/json" && parsed && typeof parsed === "object")
    parsed = coerceForm(parsed as any, schema, schemaRef);
  if (op.closedBody && parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    const names = topLevelNames(schema, "inline" in schemaRef ? {} : loadDoc(schemaRef.doc).doc);
    const extra = Object.keys(parsed).find((k) => !names.has(k));
    if (extra !== undefined)
      return {
        operation: op,
        violation: { kind: "unknown_parameter", param: extra, message: `Unknown parameter: '${extra}'.` },
      };
  }
  const v = validator(schemaRef);
  if (!v(parsed)) {
    const e = ajvMessage(v);
    const kind =
      e.keyword === "required"
        ? "missing_parameter"
        : e.keyword === "additionalProperties"
          ? "unknown_parameter"
          : "invalid_value";
    return {
      operation: op,
      violation: {
        kind,
        ...(e.param ? { param: e.param } : {}),
        ...(e.value !== undefined ? { value: e.value } : {}),
        ...(e.allowed ? { allowed: e.allowed } : {}),
        message: e.message,
      },
    };
  }
  return { operation: op };
}

/** Form and multipart fields arrive as strings: numbers and booleans as the schema's properties want them. */
function coerceForm(fields: Record<string, unknown>, schema: any, ref: SchemaRef): Record<string, unknown> {
  const doc = "inline" in ref ? {} : loadDoc(ref.doc).doc;
  const props: Record<string, any> = {};
  const collect = (s: any, depth = 0) => {
    if (!s || depth > 6) return;
    if (s.$ref) return collect(resolve(doc, s.$ref), depth + 1);
    Object.assign(props, s.properties ?? {});
    for (const sub of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) collect(sub, depth + 1);
  };
  collect(schema);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    let p = props[k];
    for (let i = 0; p?.$ref && i < 5; i++) p = resolve(doc, p.$ref);
    out[k] = typeof v === "string" && p && v !== "(binary)" ? coerce([v], p, true) : v;
  }
  return out;
}

/** The contract of one provider: its descriptions (tried in order) and hand-written operations. */
export class Contract {
  readonly provider: ProviderName;
  private readonly sets: Array<{ name: string; ops: Operation[]; basePath: string }>;
  /** Query parameters every operation of the provider takes (e.g. Google's `alt`, `fields`). */
  private readonly extraQuery: string[];

  /** Body fields a reference page requires that the description leaves optional, by operation id. */
  private readonly required: Record<string, { fields: string[]; source: string }>;

  constructor(
    provider: ProviderName,
    descriptions: string[],
    hand: HandOperation[] = [],
    options: {
      closedBody?: boolean;
      extraQuery?: string[];
      required?: Record<string, { fields: string[]; source: string }>;
    } = {},
  ) {
    this.required = options.required ?? {};
    this.provider = provider;
    this.extraQuery = options.extraQuery ?? [];
    this.sets = descriptions.map((d) => {
      const ops = loadDoc(d).operations.map((op) => (options.closedBody ? { ...op, closedBody: true } : op));
      return { name: d, ops, basePath: loadDoc(d).basePath };
    });
    if (hand.length > 0) this.sets.push({ name: "hand", ops: hand.map(handToOperation), basePath: "" });
  }

  /**
   * Checks a request. With several descriptions, the first the request is valid against wins (`operation.doc`
   * names it); when none accepts it, the violation found against the first one that has the operation.
   * `nodeOf` names the Graph node type of an id (Graph contracts only).
   */
  async check(req: ContractRequest, nodeOf?: (id: string) => string | undefined): Promise<CheckResult> {
    let p = req.path;
    if (nodeOf) {
      const templated = graphTemplatePath(p, nodeOf);
      if (templated === undefined) return {};
      p = templated;
    }
    let first: CheckResult | undefined;
    const valid: Operation[] = [];
    for (const set of this.sets) {
      const base = set.basePath && p.startsWith(`${set.basePath}/`) ? p.slice(set.basePath.length) : p;
      const r = await checkAgainst(set.ops, req, base, this.extraQuery);
      if (!r.violation) valid.push(r.operation!);
      else if (
        !first ||
        (first.violation?.kind === "unknown_operation" && r.violation.kind !== "unknown_operation")
      )
        first = r;
    }
    if (valid.length > 0) {
      const more = this.required[valid[0]!.id];
      const body = more && req.body.length > 0 ? safeJson(req.body) : undefined;
      const missing = more?.fields.find((f) => !body || typeof body !== "object" || !(f in body));
      if (more && missing)
        return {
          operation: valid[0]!,
          violation: {
            kind: "missing_parameter",
            param: missing,
            message: `missing required property '${missing}' (${more.source})`,
          },
        };
      return { operation: valid[0]!, valid };
    }
    return (
      first ?? { violation: { kind: "unknown_operation", message: `no description for ${req.method} ${p}` } }
    );
  }

  /** Checks an answer against the operations the request was valid against: one must accept it (JSON bodies of the statuses the description gives a schema for). */
  checkResponse(ops: Operation[], status: number, body: unknown): string | undefined {
    let problem: string | undefined;
    for (const op of ops) {
      const schema = op.responses.get(String(status)) ?? (status < 300 ? op.responses.get("2XX") : undefined);
      if (!schema || body === undefined) return undefined;
      const v = validator(schema);
      if (v(body)) return undefined;
      problem ??= `answer ${status} of ${op.id} (${op.doc}): ${ajvMessage(v).message}`;
    }
    return problem;
  }
}

function safeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

function handToOperation(h: HandOperation): Operation {
  const parameters: Parameter[] = Object.entries(h.query ?? {}).map(([name, q]) => ({
    name,
    in: "query",
    required: q.required ?? false,
    schema: { inline: q.schema ?? { type: "string" } },
    explode: true,
  }));
  for (const [name, q] of Object.entries(h.headers ?? {}))
    parameters.push({
      name,
      in: "header",
      required: q.required ?? true,
      schema: { inline: q.schema ?? { type: "string" } },
      explode: true,
    });
  const responses = new Map<string, SchemaRef | null>();
  for (const [status, s] of Object.entries(h.responses ?? {}))
    responses.set(status, s ? { inline: s } : null);
  return {
    id: h.id,
    doc: "hand",
    method: h.method,
    segments: h.path.split("/").filter(Boolean),
    parameters,
    ...(h.body
      ? {
          body: {
            required: h.bodyRequired ?? true,
            content: new Map(Object.entries(h.body).map(([t, s]) => [t, { inline: s } as SchemaRef])),
          },
        }
      : {}),
    responses,
    source: h.source,
  };
}
