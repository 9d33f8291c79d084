/**
 * Table-driven loader cases (given a tools.yaml, want exactly these error paths), starting from the valid
 * fixture and changing one thing, plus raw YAML cases. Every bad field must be reported, with its path.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse, stringify } from "yaml";
import { CodegenError } from "../../codegen/issues.ts";
import { loadTools } from "../../codegen/load.ts";
import { isBoundedPattern } from "../../codegen/schema-rules.ts";
import { FIXTURE_YAML } from "./fixture.ts";

const FIXTURE = readFileSync(FIXTURE_YAML, "utf8");

/** Tools of the fixture: [0] list_products (read), [1] delete_post (review), [2] generate_carousel (queued). */
type Doc = { version: number; definitions?: Record<string, unknown>; tools: Array<Record<string, any>> };

interface Case {
  name: string;
  /** Changes the parsed fixture, or gives the whole YAML text. */
  given: ((doc: Doc) => void) | string;
  /** Wanted issue paths, in order; `[]` = valid. */
  want: string[];
  /** Optional: a substring the first issue's message must contain. */
  message?: string;
}

const CASES: Case[] = [
  { name: "the fixture is valid", given: () => {}, want: [] },
  {
    name: "unknown tool field",
    given: (d) => {
      d.tools[0]!.reveiw = true;
    },
    want: ["tools[0].reveiw"],
    message: "unknown field",
  },
  {
    name: "missing fields, each reported",
    given: (d) => {
      delete d.tools[1]!.title;
      delete d.tools[1]!.budget;
    },
    want: ["tools[1].title", "tools[1].budget"],
    message: "is required",
  },
  {
    name: "bad group",
    given: (d) => {
      d.tools[0]!.group = "misc";
    },
    want: ["tools[0].group"],
  },
  {
    name: "bad name",
    given: (d) => {
      d.tools[0]!.name = "ListProducts";
    },
    want: ["tools[0].name"],
  },
  {
    name: "bad plan",
    given: (d) => {
      d.tools[0]!.plan = "enterprise";
    },
    want: ["tools[0].plan"],
  },
  {
    name: "unknown scope",
    given: (d) => {
      d.tools[0]!.scope = "read:everything";
    },
    want: ["tools[0].scope"],
    message: "unknown scope",
  },
  {
    name: "string without maxLength",
    given: (d) => {
      delete d.tools[0]!.input.properties.cursor.maxLength;
    },
    want: ["tools[0].input.properties.cursor"],
    message: "maxLength",
  },
  {
    name: "misspelt keyword is unknown, and the string is then unbounded",
    given: (d) => {
      const c = d.tools[0]!.input.properties.cursor;
      c.maxLenght = c.maxLength;
      delete c.maxLength;
    },
    want: ["tools[0].input.properties.cursor.maxLenght", "tools[0].input.properties.cursor"],
  },
  {
    name: "array without maxItems",
    given: (d) => {
      delete d.tools[0]!.output.properties.items.maxItems;
    },
    want: ["tools[0].output.properties.items"],
    message: "maxItems",
  },
  {
    name: "nested open object",
    given: (d) => {
      delete d.tools[0]!.output.properties.items.items.additionalProperties;
    },
    want: ["tools[0].output.properties.items.items.additionalProperties"],
  },
  {
    name: "required names an undeclared property",
    given: (d) => {
      d.tools[2]!.result.required.push("slides");
    },
    want: ["tools[2].result.required[3]"],
  },
  {
    name: "unbounded pattern needs maxLength; anchored bounded pattern does not",
    given: (d) => {
      d.tools[0]!.output.properties.items.items.properties.currency.pattern = "^[A-Z]+$";
    },
    want: ["tools[0].output.properties.items.items.properties.currency"],
  },
  {
    name: "invalid regular expression",
    given: (d) => {
      d.tools[2]!.input.properties.prompt.pattern = "([";
    },
    want: ["tools[2].input.properties.prompt.pattern", "tools[2].input"],
  },
  {
    name: "bad type name",
    given: (d) => {
      d.tools[1]!.result.properties.deleted.type = "bool";
    },
    want: ["tools[1].result.properties.deleted.type"],
  },
  {
    name: "root of input must be an object",
    given: (d) => {
      d.tools[0]!.input.type = "array";
    },
    want: ["tools[0].input.type", "tools[0].input", "tools[0].input", "tools[0].example"],
  },
  {
    name: "read tool with readOnlyHint false",
    given: (d) => {
      d.tools[0]!.annotations.readOnlyHint = false;
    },
    want: ["tools[0].annotations.readOnlyHint"],
  },
  {
    name: "write tool with readOnlyHint true",
    given: (d) => {
      d.tools[2]!.annotations.readOnlyHint = true;
    },
    want: ["tools[2].annotations.readOnlyHint"],
  },
  {
    name: "read tool cannot be queued (and then needs a result)",
    given: (d) => {
      d.tools[0]!.queued = true;
    },
    want: ["tools[0].queued", "tools[0].result"],
  },
  {
    name: "write tool without idempotency_key",
    given: (d) => {
      const t = d.tools[2]!;
      delete t.input.properties.idempotency_key;
      t.input.required = t.input.required.filter((r: string) => r !== "idempotency_key");
      delete t.example.idempotency_key;
    },
    want: ["tools[2].input.properties.idempotency_key"],
  },
  {
    name: "idempotency_key not required",
    given: (d) => {
      d.tools[1]!.input.required = ["post_id"];
    },
    want: ["tools[1].input.required"],
  },
  {
    name: "idempotency_key not a uuid",
    given: (d) => {
      d.tools[1]!.input.properties.idempotency_key = { type: "string", maxLength: 64 };
    },
    want: ["tools[1].input.properties.idempotency_key"],
  },
  {
    name: "delete tool without destructiveHint",
    given: (d) => {
      d.tools[1]!.annotations.destructiveHint = false;
    },
    want: ["tools[1].annotations.destructiveHint"],
  },
  {
    name: "review and queued together",
    given: (d) => {
      d.tools[1]!.queued = true;
    },
    want: ["tools[1].queued"],
  },
  {
    name: "queued without result",
    given: (d) => {
      delete d.tools[2]!.result;
    },
    want: ["tools[2].result"],
  },
  {
    name: "inline tool with a result",
    given: (d) => {
      d.tools[0]!.result = d.tools[0]!.output;
    },
    want: ["tools[0].result"],
  },
  {
    name: "inline tool without output",
    given: (d) => {
      delete d.tools[0]!.output;
    },
    want: ["tools[0].output"],
  },
  {
    name: "example that breaks its input schema, every field reported",
    given: (d) => {
      d.tools[2]!.example.slide_count = 40;
      d.tools[2]!.example.colour = "red";
    },
    want: ["tools[2].example.colour", "tools[2].example.slide_count"],
    message: "example",
  },
  {
    name: "duplicate names",
    given: (d) => {
      d.tools[1]!.name = "list_products";
    },
    want: ["tools[1].name"],
    message: "duplicate of tools[0].name",
  },
  {
    name: "problems in several tools are all reported, in order",
    given: (d) => {
      d.tools[0]!.scope = "nope";
      d.tools[2]!.budget = "huge";
      d.tools[1]!.input.properties.post_id = { type: "string" };
    },
    want: ["tools[0].scope", "tools[1].input.properties.post_id", "tools[2].budget"],
  },
  {
    name: "unknown version",
    given: (d) => {
      d.version = 2;
    },
    want: ["version"],
  },
  {
    name: "unknown top-level key",
    given: (d) => {
      (d as any).tool = [];
    },
    want: ["tool"],
  },
  { name: "no tools", given: "version: 1\ntools: []\n", want: ["tools"] },
  { name: "not a mapping", given: "- just a list\n", want: [""] },
  { name: "YAML syntax error", given: "version: 1\ntools: [\n", want: [""], message: "YAML" },
  {
    name: "YAML syntax error with a position",
    given: "version: 1\ntools:\n  - name: a\n   bad: [\n",
    want: ["", ""],
    message: "YAML line",
  },
  { name: "duplicate YAML key", given: "version: 1\nversion: 1\ntools: []\n", want: [""], message: "YAML" },
  {
    name: "a reference to a definition expands to it (keys beside $ref override)",
    given: (d) => {
      d.definitions = { page_limit: { type: "integer", minimum: 1, maximum: 50, description: "page size" } };
      d.tools[0]!.input.properties.limit = {
        $ref: "#/definitions/page_limit",
        description: "items per page",
      };
    },
    want: [],
  },
  {
    name: "an unknown definition is reported at its $ref",
    given: (d) => {
      d.definitions = { page_limit: { type: "integer", minimum: 1, maximum: 50 } };
      d.tools[0]!.input.properties.limit = { $ref: "#/definitions/page_size" };
    },
    want: ["tools[0].input.properties.limit.$ref", "definitions.page_limit"],
    message: 'unknown definition "page_size"',
  },
  {
    name: "a reference outside the definitions is reported",
    given: (d) => {
      d.tools[0]!.input.properties.limit = { $ref: "#/$defs/limit" };
    },
    want: ["tools[0].input.properties.limit.$ref"],
    message: "#/definitions/",
  },
  {
    name: "a definition that refers to itself is reported",
    given: (d) => {
      d.definitions = {
        a: { type: "array", maxItems: 2, items: { $ref: "#/definitions/b" } },
        b: { $ref: "#/definitions/a" },
      };
      d.tools[0]!.input.properties.limit = { $ref: "#/definitions/a" };
    },
    want: ["definitions.b.$ref"],
    message: "refers to itself",
  },
  {
    name: "an unused definition is reported",
    given: (d) => {
      d.definitions = { spare: { type: "string", maxLength: 10 } };
    },
    want: ["definitions.spare"],
    message: "never referenced",
  },
  {
    name: "an expanded definition is checked by the schema rules like inline schemas",
    given: (d) => {
      d.definitions = { label: { type: "string" } };
      d.tools[0]!.input.properties.label = { $ref: "#/definitions/label" };
    },
    want: ["tools[0].input.properties.label"],
    message: "maxLength",
  },
];

function issuesOf(text: string): Array<{ path: string; message: string }> {
  try {
    loadTools(text);
    return [];
  } catch (err) {
    if (err instanceof CodegenError) return err.issues;
    throw err;
  }
}

for (const c of CASES) {
  test(`loadTools: ${c.name}`, () => {
    let text: string;
    if (typeof c.given === "string") text = c.given;
    else {
      const doc = parse(FIXTURE) as Doc;
      c.given(doc);
      text = stringify(doc);
    }
    const issues = issuesOf(text);
    assert.deepEqual(
      issues.map((i) => i.path),
      c.want,
      issues.map((i) => `${i.path}: ${i.message}`).join("\n"),
    );
    if (c.message) assert.ok(issues[0]?.message.includes(c.message), issues[0]?.message);
  });
}

test("isBoundedPattern", () => {
  const table: Array<[string, boolean]> = [
    ["^[A-Z]{3}$", true],
    ["^[a-z0-9_]{1,64}$", true],
    ["^#[0-9a-f]{6}$", true],
    ["^\\+?[0-9]{1,15}$", true],
    ["^[A-Z]+$", false],
    ["^.*$", false],
    ["^[a-z]{2,}$", false],
    ["[A-Z]{3}", false],
  ];
  for (const [pattern, want] of table) assert.equal(isBoundedPattern(pattern), want, pattern);
});
