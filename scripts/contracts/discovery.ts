/**
 * Google API Discovery document -> OpenAPI 3.0 for the methods the adapters call. The conversion follows the
 * Discovery format's own reference:
 * - a method's `httpMethod` + `flatPath` (under `rootUrl` + `servicePath`) is an operation; its `parameters`
 *   (`location` query or path, `required`, `enum`, `repeated`) and the document's global `parameters` are its
 *   parameters; `request.$ref` is the JSON body, `response.$ref` the 200 answer (none: 204 with no body);
 * - `mediaUpload` adds the upload operations: `POST /upload/{path}` (the metadata of a resumable or multipart
 *   upload, `uploadType` required) and `PUT /upload/{path}` (the bytes sent to the resumable session, of a
 *   type in `mediaUpload.accept`);
 * - schemas: `$ref: "Name"` -> `#/components/schemas/Name`, `type: "any"` -> any value, `format` int64 /
 *   uint64 stay strings (JSON carries 64-bit integers as strings in Google APIs), `additionalProperties` and
 *   `items` converted recursively; `annotations.required` lists the methods a property is required for.
 * - YouTube's `part` parameter names top-level properties of the method's resource ("The part parameter
 *   specifies a comma-separated list of one or more {resource} resource properties that the API response
 *   will include", e.g. https://developers.google.com/youtube/v3/docs/videos/insert); the converted parameter
 *   carries them as `x-part-values` (the resource schema's properties less `kind` and `etag`), which the
 *   fakes check as YouTube does (reason `unknownPart`).
 *
 * @see https://developers.google.com/discovery/v1/reference/apis
 */

/** The methods to convert, by Discovery id (e.g. `youtube.videos.insert`). */
export type Methods = string[];

function schema(d: any): any {
  if (!d || typeof d !== "object") return {};
  if (d.$ref) return { $ref: `#/components/schemas/${d.$ref}` };
  const out: any = {};
  if (d.description) out.description = d.description;
  switch (d.type) {
    case "any":
      break;
    case "integer":
      out.type = "integer";
      if (d.format) out.format = d.format;
      break;
    case "number":
      out.type = "number";
      break;
    case "string":
      out.type = "string";
      if (d.format === "date-time") out.format = "date-time";
      else if (d.format) out["x-format"] = d.format;
      if (d.enum) out.enum = d.enum;
      break;
    case "boolean":
      out.type = "boolean";
      break;
    case "array":
      out.type = "array";
      out.items = schema(d.items);
      break;
    case "object":
      out.type = "object";
      if (d.properties)
        out.properties = Object.fromEntries(Object.entries(d.properties).map(([k, v]) => [k, schema(v)]));
      if (d.additionalProperties) out.additionalProperties = schema(d.additionalProperties);
      break;
    default:
      if (d.type) out.type = d.type;
  }
  if (d.annotations?.required) out["x-required-for"] = d.annotations.required;
  if (d.readOnly) out.readOnly = true;
  return out;
}

function parameter(name: string, p: any): any {
  const s = schema({ ...p, description: undefined });
  return {
    name,
    in: p.location,
    ...(p.required ? { required: true } : {}),
    ...(p.description ? { description: p.description } : {}),
    ...(p.repeated ? { style: "form", explode: false, "x-repeated": true } : {}),
    schema: s,
  };
}

function methodsById(d: any): Map<string, any> {
  const found = new Map<string, any>();
  const walk = (resources: any) => {
    for (const r of Object.values<any>(resources ?? {})) {
      for (const m of Object.values<any>(r.methods ?? {})) found.set(m.id, m);
      walk(r.resources);
    }
  };
  walk(d.resources);
  return found;
}

/** The properties of a resource schema that `part` may name (top-level, less `kind` and `etag`). */
function partsOf(d: any, resource: string | undefined): string[] | undefined {
  if (!resource) return undefined;
  let s = d.schemas[resource];
  // A list answer (`{Resource}ListResponse`) lists `items` of the resource.
  if (s?.properties?.items?.items?.$ref) s = d.schemas[s.properties.items.items.$ref];
  if (!s?.properties) return undefined;
  return Object.keys(s.properties).filter((k) => k !== "kind" && k !== "etag");
}

/** Converts `methods` of Discovery document `d`; `source` goes to `info.x-source`. */
export function discoveryToOpenApi(d: any, methods: Methods, source: Record<string, string>): any {
  const byId = methodsById(d);
  const paths: Record<string, any> = {};
  const used = new Set<string>();
  const globals = Object.entries<any>(d.parameters ?? {}).map(([n, p]) => parameter(n, p));
  for (const id of methods) {
    const m = byId.get(id);
    if (!m) throw new Error(`${source.repository}: no method ${id}`);
    const parts = partsOf(d, m.request?.$ref ?? m.response?.$ref);
    const params = Object.entries<any>(m.parameters ?? {}).map(([n, p]) => {
      const out = parameter(n, p);
      if (n === "part" && parts) out["x-part-values"] = parts;
      return out;
    });
    const responses: Record<string, any> = m.response
      ? {
          "200": {
            description: "Successful response",
            content: { "application/json": { schema: { $ref: `#/components/schemas/${m.response.$ref}` } } },
          },
        }
      : { "204": { description: "Successful response (no body)" } };
    if (m.request) used.add(m.request.$ref);
    if (m.response) used.add(m.response.$ref);
    const op: any = {
      operationId: id,
      description: m.description,
      parameters: [...params, ...globals],
      responses,
    };
    if (m.request)
      op.requestBody = {
        content: { "application/json": { schema: { $ref: `#/components/schemas/${m.request.$ref}` } } },
      };
    const p = `/${m.flatPath ?? m.path}`;
    paths[p] = { ...paths[p], [m.httpMethod.toLowerCase()]: op };
    if (m.mediaUpload) {
      const up = `/upload/${m.flatPath ?? m.path}`;
      const uploadType = {
        name: "uploadType",
        in: "query",
        required: true,
        schema: { type: "string", enum: ["resumable", "multipart", "media"] },
      };
      paths[up] = paths[up] ?? {};
      paths[up].post = {
        ...op,
        operationId: `${id}.upload`,
        parameters: [...params, uploadType, ...globals.filter((g) => g.name !== "uploadType")],
        "x-media-upload": m.mediaUpload,
      };
      paths[up].put = {
        operationId: `${id}.uploadBytes`,
        description: "The bytes of a resumable upload, sent to the session URI the POST answered.",
        // The session URI keeps the POST's query and adds `upload_id`
        // (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol).
        parameters: [
          { name: "upload_id", in: "query", required: true, schema: { type: "string" } },
          ...params,
          uploadType,
          ...globals.filter((g) => g.name !== "uploadType"),
        ],
        requestBody: {
          content: Object.fromEntries(m.mediaUpload.accept.map((t: string) => [t, { schema: {} }])),
        },
        responses,
        "x-media-upload": m.mediaUpload,
      };
    }
  }
  // Every schema reachable from the used ones.
  const schemas: Record<string, any> = {};
  const queue = [...used];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (schemas[name]) continue;
    const s = d.schemas[name];
    if (!s) throw new Error(`${source.repository}: no schema ${name}`);
    schemas[name] = schema(s);
    JSON.stringify(s, (k, v) => {
      if (k === "$ref" && typeof v === "string" && !schemas[v]) queue.push(v);
      return v;
    });
  }
  return {
    openapi: "3.0.3",
    info: { title: d.title, version: `${d.version} (revision ${d.revision})`, "x-source": source },
    servers: [{ url: d.rootUrl.replace(/\/$/, "") }, { url: "https://www.googleapis.com" }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
