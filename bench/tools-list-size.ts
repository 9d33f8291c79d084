/**
 * `npx tsx bench/tools-list-size.ts`: the byte size of a tools/list answer listing every tool (a token with
 * all scopes, one page), as the endpoint serializes it (src/mcp/tools-list.ts), next to the same listing
 * with each tool's full schemas (the full input schema and the full envelope schema as `outputSchema`, what
 * the service listed before listed-schema.ts), and where the bytes go; then the two budgets of DESIGN.md
 * section 3: what a model reads (each tool's name, description and input schema, summed) at most 36 KB, the
 * whole listing at most 80 KB (exit code 1 when either is exceeded). Also times building the listed schemas
 * of every tool and serializing the listing (milliseconds, mean of 200 runs after a warm-up). No database
 * needed.
 */
import { TOOLS } from "../generated/registry.ts";
import { listedInputSchema, listedOutputSchema } from "../src/mcp/listed-schema.ts";
import type { RegisteredTool } from "../src/tool-contract.ts";

type Pick = (t: RegisteredTool) => unknown;

const bytes = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));
const listing = (inputSchema: Pick, outputSchema: Pick) => ({
  tools: TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputSchema(t),
    outputSchema: outputSchema(t),
    annotations: t.annotations,
  })),
});

function timeMs(fn: () => unknown, runs = 200): number {
  fn();
  const start = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return (performance.now() - start) / runs;
}

const full = listing(
  (t) => t.inputSchema,
  (t) => t.outputSchema,
);
const listed = listing(listedInputSchema, listedOutputSchema);
const sum = (pick: Pick) => TOOLS.reduce((a, t) => a + bytes(pick(t)), 0);
const data = (t: RegisteredTool) => (listedOutputSchema(t).properties as Record<string, unknown>).data;
console.log(`tools: ${TOOLS.length}`);
console.log(`tools/list, full schemas:   ${bytes(full)} bytes`);
console.log(`tools/list, listed schemas: ${bytes(listed)} bytes`);
console.log(`  output schemas: ${sum((t) => t.outputSchema)} -> ${sum(listedOutputSchema)} bytes`);
console.log(`    of which data: ${sum(data)} bytes, envelope: ${sum(listedOutputSchema) - sum(data)} bytes`);
console.log(`  input schemas:  ${sum((t) => t.inputSchema)} -> ${sum(listedInputSchema)} bytes`);
console.log(`  descriptions:   ${sum((t) => t.description)} bytes`);
/**
 * What a model reads of the listing: each tool's name and description (UTF-8 bytes of the text) and input
 * schema (bytes of its JSON), summed.
 */
const text = (s: string) => Buffer.byteLength(s);
const modelRead = listed.tools.reduce(
  (n, t) => n + text(t.name) + text(t.description) + bytes(t.inputSchema),
  0,
);
const BUDGETS = { modelRead: 36_000, listing: 80_000 };
console.log(
  `what a model reads (names, descriptions, input schemas): ${modelRead} bytes (budget ${BUDGETS.modelRead})`,
);
console.log(`the whole listing: ${bytes(listed)} bytes (budget ${BUDGETS.listing})`);
if (modelRead > BUDGETS.modelRead || bytes(listed) > BUDGETS.listing) process.exitCode = 1;
console.log(
  `build listed schemas: ${timeMs(() => listing(listedInputSchema, listedOutputSchema)).toFixed(3)} ms; ` +
    `serialize one listing: full ${timeMs(() => JSON.stringify(full)).toFixed(3)} ms, ` +
    `listed ${timeMs(() => JSON.stringify(listed)).toFixed(3)} ms`,
);
