/**
 * Meta's Graph API specs (facebook/facebook-business-sdk-codegen `api_specs/specs/{Node}.json`, one file a
 * node type: `fields` [{name, type}] and `apis` [{method, endpoint, return, params [{name, required, type}]}],
 * with `enum_types.json` naming the values of every `*_enum_param` type) -> an OpenAPI 3.0 document of the
 * nodes and edges the adapters call.
 *
 * - A node `N` becomes the path `/{N}` (`GET` reads its fields, `POST` updates it, `DELETE` removes it, as the
 *   node's `apis` entries without an `endpoint` say) and an edge `e` becomes `/{N}/e`. The path parameter is
 *   named after the node type: the fakes know the type of every id they made and check a request against the
 *   operations of that type (`x-graph-node`).
 * - Parameters keep Meta's own types (`x-graph-type`: `string`, `bool`, `unsigned int`, `datetime`,
 *   `list<...>`, `map`, `Object`, enums) with the enum values resolved (`enum`); Graph takes them in the query
 *   or in the form body alike.
 * - `components.x-graph-nodes.{N}` lists the node's fields and its readable edges: what `fields=` may name
 *   (Graph: "(#100) Tried accessing nonexisting field (x) on node type (N)").
 * - A node's answer schema has its fields typed (`string`, `int`, `bool`, `datetime`, lists, other nodes as
 *   objects) and no other properties; an edge's answer is `{data: [node], paging}`; a create answers `{id}`.
 *
 * @see https://developers.facebook.com/docs/graph-api/overview (nodes, edges, fields)
 */

/** The node specs by type name (read on demand). */
export interface NodeSpecs {
  has(node: string): boolean;
  get(node: string): any;
}

export interface NodeKeep {
  /** The node type (its spec file name). */
  node: string;
  /** Methods of the node itself (`GET`, `POST`, `DELETE`). */
  self: string[];
  /** Edges: `"METHOD endpoint"`. */
  edges: string[];
  /**
   * Fields Graph serves that the codegen specs lack, each with the reference page that documents it (added
   * to the node's fields; `x-added-from` in the output names the page).
   */
  added?: Array<{ name: string; type: string; source: string }>;
  /** The node type an edge lists where the spec names a type it has no file for (edge -> node). */
  lists?: Record<string, string>;
}

/** Endpoint names of the codegen that differ from the path Graph serves (its IG-only spec drops the `_`). */
const ENDPOINT_PATH: Record<string, string> = { mediapublish: "media_publish" };

const PRIMITIVE: Record<string, any> = {
  string: { type: "string" },
  id: { type: "string" },
  int: { type: "integer" },
  "unsigned int": { type: "integer", minimum: 0 },
  float: { type: "number" },
  bool: { type: "boolean" },
  datetime: { type: "string" },
};

/**
 * The JSON Schema of a field of Meta type `t` in an answer. An integer id (`user_id`) may come as a string:
 * Graph sends 64-bit ids as strings (https://developers.facebook.com/docs/graph-api/overview, "Object IDs").
 */
function answerSchema(t: string, enums: Map<string, string[]>, name = ""): any {
  if ((t === "int" || t === "unsigned int") && /(^|_)id$/.test(name)) return { type: ["integer", "string"] };
  const list = /^list(?:<(.+)>)?$/.exec(t);
  if (list) return { type: "array", items: list[1] ? answerSchema(list[1], enums) : {} };
  if (PRIMITIVE[t]) return PRIMITIVE[t];
  if (enums.has(t)) return { type: "string" };
  return { description: `Meta type ${t}` };
}

/** A parameter of Meta type `t`, its enum values resolved (`list<E>` carries E's values). */
function paramType(t: string, enums: Map<string, string[]>): any {
  const inner = /^list<(.+)>$/.exec(t)?.[1];
  const values = enums.get(inner ?? t);
  return { "x-graph-type": t, ...(values ? { enum: values } : {}) };
}

/**
 * Converts the nodes of `keep`: `specs` maps a node type to its parsed spec file, `enumTypes` is
 * enum_types.json parsed; `server` the Graph host (`https://graph.facebook.com/{version}`).
 */
export function metaToOpenApi(
  specs: NodeSpecs,
  enumTypes: Array<{ name: string; values: string[] }>,
  keep: NodeKeep[],
  server: string,
  source: Record<string, string>,
): any {
  const enums = new Map(enumTypes.map((e) => [e.name, e.values]));
  for (const k of keep)
    for (const a of k.added ?? []) {
      const spec = specs.get(k.node);
      if (spec && !spec.fields.some((f: any) => f.name === a.name))
        spec.fields.push({ name: a.name, type: a.type, "x-added-from": a.source });
    }
  const paths: Record<string, any> = {};
  const nodes: Record<string, { fields: string[]; edges: string[] }> = {};
  const schemas: Record<string, any> = {};
  const nodeSchema = (n: string) => {
    const spec = specs.get(n);
    if (!spec) return { type: "object" };
    if (!schemas[n]) {
      schemas[n] = { type: "object" };
      const props: Record<string, any> = {};
      for (const f of spec.fields) props[f.name] = answerSchema(f.type, enums, f.name);
      for (const a of spec.apis) if (a.method === "GET" && a.endpoint) props[a.endpoint] = {};
      schemas[n] = { type: "object", properties: props, additionalProperties: false };
    }
    return { $ref: `#/components/schemas/${n}` };
  };
  for (const k of keep) {
    const spec = specs.get(k.node);
    if (!spec) throw new Error(`${source.repository}: no node ${k.node}`);
    nodes[k.node] = {
      fields: spec.fields.map((f: any) => f.name),
      edges: spec.apis.filter((a: any) => a.method === "GET" && a.endpoint).map((a: any) => a.endpoint),
    };
    const want = [
      ...k.self.map((m) => ({ method: m, endpoint: undefined as string | undefined })),
      ...k.edges.map((e) => {
        const [method, endpoint] = e.split(" ");
        return { method: method!, endpoint };
      }),
    ];
    for (const w of want) {
      const api = spec.apis.find(
        (a: any) => a.method === w.method && (a.endpoint ?? undefined) === w.endpoint,
      );
      if (!api)
        throw new Error(`${source.repository}: no ${w.method} ${w.endpoint ?? "(node)"} on ${k.node}`);
      const segment = w.endpoint ? (ENDPOINT_PATH[w.endpoint] ?? w.endpoint) : undefined;
      const p = `/{${k.node}}${segment ? `/${segment}` : ""}`;
      const listed = w.endpoint ? k.lists?.[w.endpoint] : undefined;
      const returns = listed ?? (api.return && specs.has(api.return) ? api.return : undefined);
      const params: Record<string, any> = {};
      const required: string[] = [];
      for (const prm of api.params ?? []) {
        params[prm.name] = paramType(prm.type, enums);
        if (prm.required) required.push(prm.name);
      }
      let answer: any;
      if (w.method === "GET" && !w.endpoint) answer = nodeSchema(k.node);
      else if (w.method === "GET")
        answer = {
          type: "object",
          required: ["data"],
          properties: {
            data: { type: "array", items: returns ? nodeSchema(returns) : {} },
            paging: { type: "object" },
            summary: { type: "object" },
          },
        };
      else if (w.method === "DELETE")
        answer = { type: "object", required: ["success"], properties: { success: { type: "boolean" } } };
      else answer = { type: "object", properties: { id: { type: "string" } } };
      paths[p] = paths[p] ?? {};
      paths[p][w.method.toLowerCase()] = {
        operationId: `${k.node}.${w.method.toLowerCase()}${w.endpoint ? `.${w.endpoint}` : ""}`,
        "x-graph-node": k.node,
        ...(returns && w.method === "GET" && w.endpoint ? { "x-graph-returns": returns } : {}),
        "x-graph-params": { properties: params, required },
        responses: { "200": { description: "OK", content: { "application/json": { schema: answer } } } },
      };
    }
  }
  return {
    openapi: "3.0.3",
    info: {
      title: "Meta Graph API (converted from the Business SDK codegen specs)",
      version: server,
      "x-source": source,
    },
    servers: [{ url: server }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      "x-graph-nodes": nodes,
    },
  };
}
