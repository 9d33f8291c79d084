/**
 * `npm run codegen`: turns tools.yaml into generated/ (tool-types.ts, registry.ts, catalog.json, guide.md),
 * bundles the MCP Apps views into generated/views/ (src/mcp/views/) and writes a handler stub for every tool
 * without one.
 * `npm run codegen -- --check`: writes nothing; exits 1 naming every generated file that differs from what
 * codegen would write now (stubs are not checked: they belong to their authors once written).
 *
 * Options: `--source <tools.yaml>` (default ./tools.yaml), `--root <dir>` (output root, default the repo).
 * Exit codes: 0 done or up to date, 1 invalid tools.yaml or drift, 2 bad usage.
 * The reference bundle (download.zip) is not a file here: src/web/reference/bundle.ts builds it
 * reproducibly from generated/catalog.json and generated/guide.md.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "./format.ts";
import { CodegenError, formatIssue } from "./issues.ts";
import { checkOutputs, emitGenerated, emitMissingStubs, loadContext, writeOutputs } from "./pipeline.ts";

async function main(argv: string[]): Promise<number> {
  let values: { check?: boolean; source?: string; root?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { check: { type: "boolean" }, source: { type: "string" }, root: { type: "string" } },
      strict: true,
    }));
  } catch (err) {
    console.error(`codegen: ${(err as Error).message}`);
    console.error("usage: npm run codegen [-- --check] [--source tools.yaml] [--root dir]");
    return 2;
  }
  const root = path.resolve(values.root ?? REPO_ROOT);
  const source = path.resolve(values.source ?? path.join(REPO_ROOT, "tools.yaml"));
  const ctx = await loadContext(source);
  const files = await emitGenerated(ctx);
  if (values.check) {
    const drift = await checkOutputs(root, files);
    if (drift.length === 0) {
      console.log(`codegen: ${files.length} generated files are up to date (${ctx.tools.length} tools)`);
      return 0;
    }
    console.error("codegen --check: generated files are out of date with tools.yaml:");
    for (const d of drift) console.error(`  ${d.path} (${d.problem})`);
    console.error("Run `npm run codegen` and commit the result.");
    return 1;
  }
  const report = await writeOutputs(root, files, await emitMissingStubs(ctx, root));
  for (const p of report.written) console.log(`codegen: wrote ${p}`);
  for (const p of report.removed) console.log(`codegen: removed stale ${p}`);
  for (const p of report.stubs) console.log(`codegen: created handler stub ${p}`);
  console.log(
    `codegen: ${ctx.tools.length} tools; ${report.written.length} written, ${report.unchanged.length} unchanged, ${report.stubs.length} stubs created`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof CodegenError) {
      console.error(`codegen: tools.yaml has ${err.issues.length} problem(s):`);
      for (const issue of err.issues) console.error(`  ${formatIssue(issue)}`);
    } else {
      console.error(`codegen: ${(err as Error).stack ?? err}`);
    }
    process.exit(1);
  },
);
