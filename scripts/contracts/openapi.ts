/**
 * Trimming of an OpenAPI 3.x description to the operations the adapters call: the chosen paths and methods,
 * every component they reach through `$ref` (transitively), and nothing else. Examples and the generators'
 * vendor extensions (`x-oaiMeta`, `x-codeSamples`, ...) are dropped; schemas, parameters, descriptions and
 * enums are kept verbatim.
 *
 * @see https://spec.openapis.org/oas/v3.1.0 (Reference Object, Components Object)
 */

/** The operations to keep: path -> lower-case methods. */
export type Keep = Record<string, string[]>;

/** Keys dropped anywhere in the kept tree: examples and code-generator metadata, never part of the contract. */
const DROPPED = new Set([
  "example",
  "examples",
  "x-oaiMeta",
  "x-codeSamples",
  "x-code-samples",
  "x-stainless",
]);

/** A deep copy of `node` without DROPPED keys. */
function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (!DROPPED.has(k)) out[k] = clean(v);
  return out;
}

/** Every local `$ref` (`#/components/{kind}/{name}`) under `node`. */
function refsIn(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) refsIn(n, found);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/")) found.add(v);
      else if (k === "mapping" && v && typeof v === "object") {
        // A discriminator's mapping names schemas by reference too.
        for (const m of Object.values(v))
          if (typeof m === "string" && m.startsWith("#/components/")) found.add(m);
      } else refsIn(v, found);
    }
  }
}

/**
 * The trimmed description: `doc` with only `keep`'s operations and the components they reach; `source` goes
 * to `info.x-source` (repository, path, commit, licence). Throws when a kept operation is missing.
 */
export function trimOpenApi(doc: any, keep: Keep, source: Record<string, string>): any {
  const paths: Record<string, any> = {};
  for (const [p, methods] of Object.entries(keep)) {
    const item = doc.paths?.[p];
    if (!item) throw new Error(`${source.repository}: no path ${p}`);
    const kept: Record<string, unknown> = {};
    if (item.parameters) kept.parameters = item.parameters;
    for (const m of methods) {
      if (!item[m]) throw new Error(`${source.repository}: no ${m.toUpperCase()} ${p}`);
      kept[m] = item[m];
    }
    paths[p] = clean(kept);
  }
  const components: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  const queue = new Set<string>();
  refsIn(paths, queue);
  while (queue.size > 0) {
    const [ref] = queue;
    queue.delete(ref!);
    if (seen.has(ref!)) continue;
    seen.add(ref!);
    const [, , kind, ...rest] = ref!.split("/");
    const name = rest.join("/").replace(/~1/g, "/").replace(/~0/g, "~");
    const target = doc.components?.[kind!]?.[name];
    if (target === undefined) throw new Error(`${source.repository}: unresolved ${ref}`);
    const copy = clean(target);
    components[kind!] = { ...components[kind!], [name]: copy };
    const more = new Set<string>();
    refsIn(copy, more);
    for (const r of more) if (!seen.has(r)) queue.add(r);
  }
  if (doc.components?.securitySchemes)
    components.securitySchemes = clean(doc.components.securitySchemes) as any;
  const sorted: Record<string, Record<string, unknown>> = {};
  for (const kind of Object.keys(components).sort()) {
    sorted[kind] = Object.fromEntries(
      Object.entries(components[kind]!).sort(([a], [b]) => a.localeCompare(b)),
    );
  }
  return {
    openapi: doc.openapi,
    info: { title: doc.info?.title, version: doc.info?.version, "x-source": source },
    servers: doc.servers,
    paths,
    components: sorted,
  };
}
