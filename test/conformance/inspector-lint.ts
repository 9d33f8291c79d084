/**
 * `npm run inspector:lint`: the MCP Inspector CLI's tool-schema portability lint (`--method tools/list
 * --strict`, which reports type lists, remote `$ref`s, untyped and boolean schemas on standard error) over the
 * real service's listing with every scope, in both protocol eras. Exit 0 when the Inspector reports no finding
 * at all (no error and no warning), 1 otherwise. test/mcp/listed-schema.portability.test.ts checks the same
 * rules inside `npm test`. Needs PostgreSQL and the npm registry (npx fetches the Inspector once).
 */
import { ERAS, inspector } from "./inspector-cli.ts";
import { startService } from "./service.ts";

async function main(): Promise<number> {
  const service = await startService("inspector_lint");
  let failed = 0;
  try {
    for (const era of ERAS) {
      const run = await inspector([
        `http://127.0.0.1:${service.appPort}/mcp`,
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${service.token}`,
        "--protocol-era",
        era,
        "--method",
        "tools/list",
        "--strict",
        "--format",
        "json",
      ]);
      const findings = run.err.split("\n").filter((l) => /^(Warning|Error): tool /.test(l));
      let tools = 0;
      try {
        tools = (JSON.parse(run.out) as { result: { tools: unknown[] } }).result.tools.length;
      } catch {
        // reported below as a failed run
      }
      if (run.code === 0 && findings.length === 0 && tools > 0)
        console.log(`inspector --strict ${era}: ${tools} tools, 0 errors, 0 warnings`);
      else {
        failed += 1;
        console.error(
          `inspector --strict ${era}: exit ${run.code}, ${findings.length} findings\n${run.err.slice(0, 4000)}`,
        );
      }
    }
  } finally {
    await service.close();
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`inspector:lint: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
