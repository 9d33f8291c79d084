/**
 * Shared schema definitions of tools.yaml (docs/tools-yaml.md "Definitions"): shapes written once under
 * `definitions:` and referenced by name with `$ref: "#/definitions/<name>"`. Codegen expands every reference
 * before the rules run, so the catalog, the registry and the types see plain schemas (the output is the same
 * as if each shape were written out). Keys written beside a `$ref` are applied on top of the definition
 * (for example a field-specific `description`). Definitions may reference other definitions.
 */
import { type Issue, isRecord, pathOf, type Segment } from "./issues.ts";

/** The reference prefix: `#/definitions/<name>` (a JSON pointer into tools.yaml). */
export const DEFINITION_REF = "#/definitions/";

const NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Expands definitions into plain schemas; collects an issue for every reference that does not resolve. */
export class DefinitionExpander {
  readonly issues: Issue[] = [];
  private readonly used = new Set<string>();
  private readonly expanded = new Map<string, unknown>();
  private readonly definitions: Record<string, unknown>;

  constructor(definitions: Record<string, unknown>) {
    this.definitions = definitions;
    for (const [name, schema] of Object.entries(definitions)) {
      if (!NAME.test(name))
        this.issues.push({ path: pathOf(["definitions", name]), message: `name must match ${NAME.source}` });
      if (!isRecord(schema))
        this.issues.push({ path: pathOf(["definitions", name]), message: "must be a JSON Schema object" });
    }
  }

  /** `value` with every `$ref` to a definition replaced by a copy of it; `at` is its path (for issues). */
  expand(value: unknown, at: readonly Segment[], resolving: readonly string[] = []): unknown {
    if (Array.isArray(value)) return value.map((v, i) => this.expand(v, [...at, i], resolving));
    if (!isRecord(value)) return value;
    const { $ref: ref, ...rest } = value;
    const siblings = Object.fromEntries(
      Object.entries(rest).map(([k, v]) => [k, this.expand(v, [...at, k], resolving)]),
    );
    if (ref === undefined) return siblings;
    const name = this.nameOf(ref, [...at, "$ref"], resolving);
    if (name === undefined) return siblings;
    return { ...(this.definition(name, resolving) as Record<string, unknown>), ...siblings };
  }

  /** Issues for definitions no schema references (a definition exists to be shared). */
  unused(): Issue[] {
    return Object.keys(this.definitions)
      .filter((name) => !this.used.has(name))
      .map((name) => ({ path: pathOf(["definitions", name]), message: "is never referenced" }));
  }

  private nameOf(ref: unknown, at: Segment[], resolving: readonly string[]): string | undefined {
    const fail = (message: string) => {
      this.issues.push({ path: pathOf(at), message });
      return undefined;
    };
    if (typeof ref !== "string" || !ref.startsWith(DEFINITION_REF))
      return fail(`must be "${DEFINITION_REF}<name>" (only tools.yaml definitions can be referenced)`);
    const name = ref.slice(DEFINITION_REF.length);
    if (!Object.hasOwn(this.definitions, name) || !isRecord(this.definitions[name])) {
      const known = Object.keys(this.definitions).sort().join(", ") || "none";
      return fail(`unknown definition ${JSON.stringify(name)} (definitions: ${known})`);
    }
    if (resolving.includes(name))
      return fail(
        `definition ${JSON.stringify(name)} refers to itself (${[...resolving, name].join(" -> ")})`,
      );
    this.used.add(name);
    return name;
  }

  private definition(name: string, resolving: readonly string[]): unknown {
    if (!this.expanded.has(name))
      this.expanded.set(
        name,
        this.expand(this.definitions[name], ["definitions", name], [...resolving, name]),
      );
    return structuredClone(this.expanded.get(name));
  }
}
