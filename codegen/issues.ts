/**
 * Problems found in tools.yaml, each tied to the path of the bad field in the form
 * `tools[3].input.properties.limit`, and the error that carries all of them at once.
 */

/** A path into the YAML document: property names and array indexes. */
export type Segment = string | number;

/** One bad field: where it is and what is wrong. */
export interface Issue {
  path: string;
  message: string;
}

/** Thrown by the loader when tools.yaml is invalid; `issues` lists every bad field, in document order. */
export class CodegenError extends Error {
  readonly issues: Issue[];
  constructor(issues: Issue[]) {
    super(`tools.yaml is invalid:\n${issues.map((i) => `  ${formatIssue(i)}`).join("\n")}`);
    this.issues = issues;
    this.name = "CodegenError";
  }
}

/** `tools[3].input.properties.limit: must have maxLength`. */
export function formatIssue(issue: Issue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** Renders segments as `tools[3].input.properties["odd-key"]`. */
export function pathOf(segments: readonly Segment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/**
 * Turns a JSON pointer (RFC 6901) into segments, using `value` to tell array indexes from property names.
 * @param pointer e.g. `/tools/3/input`; "" is the root.
 */
export function pointerToSegments(pointer: string, value: unknown): Segment[] {
  if (pointer === "") return [];
  const out: Segment[] = [];
  let node: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      out.push(Number(key));
      node = node[Number(key)];
    } else {
      out.push(key);
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return out;
}

/** A plain object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A validation error as TypeBox reports it. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: object;
  message: string;
}

/**
 * Turns TypeBox errors about `value` into issues under `prefix`: one per unknown field and per missing
 * required field; for a failed `anyOf`, only the summary at that path.
 */
export function schemaErrorsToIssues(
  errors: readonly SchemaError[],
  value: unknown,
  prefix: readonly Segment[],
  describe = "",
): Issue[] {
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath));
  const out: Issue[] = [];
  for (const e of errors) {
    const at = [...prefix, ...pointerToSegments(e.instancePath, value)];
    if (e.keyword === "additionalProperties") continue;
    if (anyOfPaths.has(e.instancePath) && e.keyword !== "anyOf") continue;
    if (e.keyword === "boolean" && e.schemaPath.endsWith("/additionalProperties")) {
      out.push({ path: pathOf(at), message: `${describe}unknown field` });
    } else if (e.keyword === "required") {
      const missing = (e.params as { requiredProperties?: string[] }).requiredProperties ?? [];
      for (const name of missing)
        out.push({ path: pathOf([...at, name]), message: `${describe}is required` });
    } else {
      out.push({ path: pathOf(at), message: `${describe}${e.message}` });
    }
  }
  return out;
}
