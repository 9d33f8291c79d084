/**
 * `npx tsx bench/tools-list-size.ts`: the byte size of a tools/list answer listing every tool (a token with
 * all scopes, one page), as the endpoint serializes it (src/mcp/tools-list.ts), next to the same listing
 * with each tool's full envelope schema as `outputSchema` (what the service listed before listed-schema.ts),
 * and where the bytes go. Also times building and serializing the listing. No database needed.
 */
import { TOOLS } from "../generated/registry.ts";
import { listedOutputSchema } from "../src/mcp/listed-schema.ts";
import type { RegisteredTool } from "../src/tool-contract.ts";

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));
const listing = (outputSchema: (t: RegisteredTool) => unknown) => ({
  tools: TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
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

const full = listing((t) => t.outputSchema);
const listed = listing(listedOutputSchema);
const sum = (pick: (t: RegisteredTool) => unknown) => TOOLS.reduce((a, t) => a + bytes(pick(t)), 0);
console.log(`tools: ${TOOLS.length}`);
console.log(`tools/list, full envelope outputSchema:  ${bytes(full)} bytes`);
console.log(`tools/list, listed outputSchema:         ${bytes(listed)} bytes`);
console.log(`  output schemas: ${sum((t) => t.outputSchema)} -> ${sum(listedOutputSchema)} bytes`);
console.log(`  input schemas:  ${sum((t) => t.inputSchema)} bytes`);
console.log(`  descriptions:   ${sum((t) => t.description)} bytes`);
console.log(
  `serialize one listing: full ${timeMs(() => JSON.stringify(full)).toFixed(3)} ms, listed ${timeMs(() => JSON.stringify(listed)).toFixed(3)} ms`,
);
