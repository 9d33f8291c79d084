/**
 * Plain-word validation errors (service spec 7 `validation_failed`: "the field, the rule"). Turns the
 * TypeBox issues of one input (JSON Schema 2020-12 keywords, TypeBox/Ajv issue shape: `keyword`,
 * `instancePath`, `schemaPath` = the schema node, `params`) into issues an agent can act on:
 *  - every message names the field (`configuration.type`, `social_account_ids[0]`) and the rule;
 *  - `required`: one issue per missing field, pointing at that field;
 *  - `if`/`then` failures say which field is required when which condition holds
 *    ("cta_asset_id is required when configuration.type is \"ugc-video\""), never `must match "then" schema`;
 *  - `enum`/`const` list the allowed values (also as `allowed_values`);
 *  - a nullable field (`anyOf: [X, {type: "null"}]`): its X branch's messages, "or null" after a wrong type;
 *  - `oneOf`/`anyOf`: the branch with the fewest failures (ties: the branch whose first `const` property
 *    matches the value, then schema order) is reported with its own issues, named "form N of M"; a
 *    combinator whose branches each only require one field says "one of a, b, c is required".
 * Never echoes argument values (they may be captions or prompts); only schema facts.
 */
import { Settings } from "typebox/system";
import type { SchemaIssue, Validator } from "../tool-contract.ts";

/** Issues collected at most when explaining (TypeBox stops at 8 by default, which can hide a oneOf branch). */
const MAX_ISSUES = 200;

/**
 * Runs `validate` on `value` again with TypeBox collecting up to 200 issues instead of 8, so that every
 * `oneOf` branch and conditional is seen. Synchronous: the setting is restored before anything else runs.
 */
export function allIssues(validate: Validator, value: unknown): SchemaIssue[] {
  const previous = Settings.Get().maxErrors;
  Settings.Set({ maxErrors: MAX_ISSUES });
  try {
    return validate(value);
  } finally {
    Settings.Set({ maxErrors: previous });
  }
}

/** One plain-word issue: `instancePath` (JSON pointer), the schema `keyword`, the message, allowed values. */
export interface ExplainedIssue {
  instancePath: string;
  keyword: string;
  message: string;
  allowed_values?: unknown[];
}

type Schema = Record<string, unknown>;

const COMBINATOR = /\/(oneOf|anyOf)\/(\d+)(?=\/|$)/;

/** `configuration.type`, `social_account_ids[0]`; the root is "the arguments". */
export function fieldName(pointer: string): string {
  if (!pointer) return "the arguments";
  let out = "";
  for (const raw of pointer.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

const childPointer = (base: string, name: string) =>
  `${base}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** The schema node at `schemaPath` ("#/allOf/2/then"), or undefined. */
function nodeAt(root: Schema, schemaPath: string): Schema | undefined {
  let node: unknown = root;
  for (const raw of schemaPath.replace(/^#/, "").split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node && typeof node === "object" ? (node as Schema) : undefined;
}

/** The value at `pointer` inside `value`, or undefined. */
function valueAt(value: unknown, pointer: string): unknown {
  let v = value;
  for (const raw of pointer.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

const show = (v: unknown) => JSON.stringify(v);
const list = (vs: unknown[]) => vs.map(show).join(", ");
const backquote = (pointer: string) => `\`${fieldName(pointer)}\``;

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  null: "null",
};

/** The plain message of one issue that is not a combinator or a conditional. */
function plain(issue: SchemaIssue): ExplainedIssue[] {
  const f = backquote(issue.instancePath);
  const p = issue.params ?? {};
  const one = (message: string, extra: Partial<ExplainedIssue> = {}): ExplainedIssue[] => [
    { instancePath: issue.instancePath, keyword: issue.keyword, message, ...extra },
  ];
  switch (issue.keyword) {
    case "required": {
      const names = (p.requiredProperties ?? (p.missingProperty ? [p.missingProperty] : [])) as string[];
      return names.map((n) => {
        const at = childPointer(issue.instancePath, n);
        return { instancePath: at, keyword: "required", message: `${backquote(at)} is required` };
      });
    }
    case "enum": {
      const allowed = (p.allowedValues ?? []) as unknown[];
      return one(`${f} must be one of: ${list(allowed)}`, { allowed_values: allowed });
    }
    case "const":
      return one(`${f} must be ${show(p.allowedValue)}`, { allowed_values: [p.allowedValue] });
    case "type": {
      const types = (Array.isArray(p.type) ? p.type : [p.type]) as string[];
      return one(`${f} must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(" or ")}`);
    }
    case "minLength":
      return one(`${f} must be at least ${p.limit} character${p.limit === 1 ? "" : "s"} long`);
    case "maxLength":
      return one(`${f} must be at most ${p.limit} characters long`);
    case "minItems":
      return one(`${f} must hold at least ${p.limit} item${p.limit === 1 ? "" : "s"}`);
    case "maxItems":
      return one(`${f} must hold at most ${p.limit} items`);
    case "minProperties":
      return one(`${f} must hold at least ${p.limit} field${p.limit === 1 ? "" : "s"}`);
    case "maxProperties":
      return one(`${f} must hold at most ${p.limit} fields`);
    case "uniqueItems":
      return one(`${f} must not hold the same item twice`);
    case "minimum":
      return one(`${f} must be at least ${p.limit}`);
    case "maximum":
      return one(`${f} must be at most ${p.limit}`);
    case "exclusiveMinimum":
      return one(`${f} must be greater than ${p.limit}`);
    case "exclusiveMaximum":
      return one(`${f} must be less than ${p.limit}`);
    case "multipleOf":
      return one(`${f} must be a multiple of ${p.multipleOf}`);
    case "format":
      return one(`${f} must be a valid ${p.format}`);
    case "pattern":
      return one(`${f} must match the pattern ${p.pattern}`);
    case "additionalProperties": {
      const extra = (p.additionalProperties ??
        (p.additionalProperty ? [p.additionalProperty] : [])) as string[];
      return extra.map((n) => {
        const at = childPointer(issue.instancePath, n);
        return {
          instancePath: at,
          keyword: "additionalProperties",
          message: `${backquote(at)} is not a field of ${issue.instancePath ? f : "the arguments"}`,
        };
      });
    }
    default:
      return one(`${f} ${issue.message}`);
  }
}

/** "kind is \"video\"" for `{properties: {kind: {const: video}}, required: [kind]}` (nested objects too). */
function describeCondition(cond: Schema, base: string): string[] {
  const out: string[] = [];
  const props = (cond.properties ?? {}) as Record<string, Schema>;
  for (const [name, sub] of Object.entries(props)) {
    const at = childPointer(base, name);
    if (sub && "const" in sub) out.push(`${backquote(at)} is ${show(sub.const)}`);
    else if (sub && Array.isArray(sub.enum)) out.push(`${backquote(at)} is one of ${list(sub.enum)}`);
    else if (sub && typeof sub === "object") out.push(...describeCondition(sub, at));
  }
  if (out.length === 0)
    for (const name of (cond.required ?? []) as string[])
      out.push(`${backquote(childPointer(base, name))} is given`);
  return out;
}

/** Pointers of the fields `then` requires (nested `properties.required` included). */
function requiredPaths(then: Schema, base: string): string[] {
  const out = ((then.required ?? []) as string[]).map((n) => childPointer(base, n));
  for (const [name, sub] of Object.entries((then.properties ?? {}) as Record<string, Schema>))
    if (sub && typeof sub === "object") out.push(...requiredPaths(sub, childPointer(base, name)));
  return out;
}

/** An `if`/`then` failure in words: the missing fields and the condition that made them required. */
function conditional(issue: SchemaIssue, schema: Schema, value: unknown): ExplainedIssue[] {
  const node = nodeAt(schema, issue.schemaPath);
  const failing = (issue.params?.failingKeyword as string | undefined) ?? "then";
  const branch = node?.[failing] as Schema | undefined;
  const cond = node?.if as Schema | undefined;
  if (!node || !branch || !cond)
    return plain({ ...issue, message: "breaks a conditional rule of the schema" });
  const when = describeCondition(cond, issue.instancePath);
  const whenText = when.length > 0 ? when.join(" and ") : "the condition of this tool's schema holds";
  const condition = failing === "then" ? whenText : `not (${whenText})`;
  const missing = requiredPaths(branch, issue.instancePath).filter((p) => valueAt(value, p) === undefined);
  if (missing.length === 0)
    return [
      {
        instancePath: issue.instancePath,
        keyword: "if",
        message: `${backquote(issue.instancePath)} breaks the rule that applies when ${condition}`,
      },
    ];
  return missing.map((p) => ({
    instancePath: p,
    keyword: "required",
    message: `${backquote(p)} is required when ${condition}`,
  }));
}

/** Short name of a combinator branch: its title, or its description up to the first "(" / ".". */
function branchLabel(branch: Schema | undefined, index: number, total: number): string {
  const form = `form ${index + 1} of ${total}`;
  const text =
    typeof branch?.title === "string"
      ? branch.title
      : typeof branch?.description === "string"
        ? branch.description
        : "";
  const short = text
    .split(/[(.;:]/)[0]!
    .trim()
    .slice(0, 60);
  return short ? `${form} (${short})` : form;
}

/** 1 when the branch's first `const` property equals the value's (the usual discriminator), else 0. */
function discriminatorMatch(branch: Schema | undefined, value: unknown): number {
  const props = (branch?.properties ?? {}) as Record<string, Schema>;
  for (const [name, sub] of Object.entries(props)) {
    if (sub && "const" in sub) {
      const v = value && typeof value === "object" ? (value as Record<string, unknown>)[name] : undefined;
      return v === sub.const ? 1 : 0;
    }
  }
  return 0;
}

/**
 * Explains `issues` (from validating `value` against `schema`). Issues of `oneOf`/`anyOf` branches are
 * replaced by the closest branch's explained issues; the rest are explained one by one. Duplicates go.
 */
export function explainIssues(
  schema: Schema,
  value: unknown,
  issues: readonly SchemaIssue[],
): ExplainedIssue[] {
  const out = explain(
    schema,
    value,
    issues.filter((i) => i.keyword !== "boolean"),
    "",
  );
  const seen = new Set<string>();
  return out.filter((d) => {
    const k = `${d.instancePath}\u0000${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The longest common prefix of JSON pointers, segment by segment. */
function commonPointer(pointers: string[]): string {
  if (pointers.length === 0) return "";
  let common = pointers[0]!.split("/");
  for (const p of pointers.slice(1)) {
    const segs = p.split("/");
    let n = 0;
    while (n < common.length && n < segs.length && common[n] === segs[n]) n++;
    common = common.slice(0, n);
  }
  return common.join("/");
}

function explain(schema: Schema, value: unknown, issues: SchemaIssue[], within: string): ExplainedIssue[] {
  const out: ExplainedIssue[] = [];
  // Group branch issues by their outermost combinator site below `within`.
  const sites = new Map<string, { kind: string; branches: Map<number, SchemaIssue[]> }>();
  const direct: SchemaIssue[] = [];
  for (const issue of issues) {
    const rest = issue.schemaPath.slice(within.length);
    const m = COMBINATOR.exec(rest);
    if (!m) {
      direct.push(issue);
      continue;
    }
    const site = within + rest.slice(0, m.index);
    const entry = sites.get(site) ?? { kind: m[1]!, branches: new Map() };
    const index = Number(m[2]);
    entry.branches.set(index, [...(entry.branches.get(index) ?? []), issue]);
    sites.set(site, entry);
  }
  for (const issue of direct) {
    if ((issue.keyword === "oneOf" || issue.keyword === "anyOf") && sites.has(issue.schemaPath)) continue;
    if (issue.keyword === "oneOf" || issue.keyword === "anyOf") {
      out.push({
        instancePath: issue.instancePath,
        keyword: issue.keyword,
        message: `${backquote(issue.instancePath)} must match ${issue.keyword === "oneOf" ? "exactly one" : "at least one"} of the allowed forms`,
      });
      continue;
    }
    if (issue.keyword === "if") out.push(...conditional(issue, schema, value));
    else out.push(...plain(issue));
  }
  for (const [site, { kind, branches }] of sites) {
    const node = nodeAt(schema, site);
    const all = (node?.[kind] ?? []) as Schema[];
    const total = Math.max(all.length, ...[...branches.keys()].map((i) => i + 1));
    const own = direct.find((i) => i.schemaPath === site && (i.keyword === "oneOf" || i.keyword === "anyOf"));
    const at = own?.instancePath ?? commonPointer([...branches.values()].flat().map((i) => i.instancePath));
    // Every branch only asks for one field ("anyOf: [{required: [a]}, {required: [b]}]"): "one of a, b is required".
    const onlyRequired = [...branches.values()].every(
      (b) =>
        b.length === 1 &&
        b[0]!.keyword === "required" &&
        ((b[0]!.params?.requiredProperties ?? []) as string[]).length === 1,
    );
    if (onlyRequired && branches.size === total) {
      const names = [...branches.values()].flatMap((b) =>
        b.flatMap((i) =>
          ((i.params?.requiredProperties ?? []) as string[]).map((n) =>
            fieldName(childPointer(i.instancePath, n)),
          ),
        ),
      );
      out.push({
        instancePath: at,
        keyword: kind,
        message: `one of ${[...new Set(names)].map((n) => `\`${n}\``).join(", ")} is required`,
      });
      continue;
    }
    // A nullable field (`anyOf: [X, {type: "null"}]`, codegen/nullable.ts): explained as X, "or null" added
    // to a wrong type, never as "none of the allowed forms".
    const nullIndex = all.findIndex((b) => b?.type === "null" && Object.keys(b).length === 1);
    if (all.length === 2 && nullIndex !== -1) {
      const xIndex = 1 - nullIndex;
      const xIssues = branches.get(xIndex) ?? [];
      for (const d of explain(schema, value, xIssues, `${site}/${kind}/${xIndex}`))
        out.push(d.keyword === "type" ? { ...d, message: `${d.message} or null` } : d);
      continue;
    }
    const subject = valueAt(value, at);
    const ranked = [...branches.entries()].sort(
      ([ia, a], [ib, b]) =>
        a.length - b.length ||
        discriminatorMatch(all[ib], subject) - discriminatorMatch(all[ia], subject) ||
        ia - ib,
    );
    const [index, branchIssues] = ranked[0]!;
    const prefix = `${site}/${kind}/${index}`;
    const inner = explain(schema, value, branchIssues, prefix);
    const label = branchLabel(all[index], index, total);
    for (const d of inner)
      out.push({
        ...d,
        message: `${backquote(at)} matches none of the ${total} allowed forms; closest is ${label}: ${d.message}`,
      });
  }
  return out;
}
