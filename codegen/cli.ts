/**
 * The codegen command line (`npm run codegen [-- --check] [--source tools.yaml] [--root dir]`, see ./main.ts):
 * parses the arguments, runs the pipeline and reports through `out`, returning the exit code: 0 done or up
 * to date, 1 invalid tools.yaml or drift, 2 bad usage. It never exits the process itself, so the tests run
 * it in-process as well as through ./main.ts.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { writeFile } from "node:fs/promises";
import { readmeWithConfigTable } from "./config-table.ts";
import { REPO_ROOT } from "./format.ts";
import { CodegenError, formatIssue } from "./issues.ts";
import { checkOutputs, emitGenerated, emitMissingStubs, loadContext, writeOutputs } from "./pipeline.ts";

/** Where the command line writes: standard output (`log`) and standard error (`error`), one line a call. */
export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

/** Runs the command line with `argv` (without node and the script), reporting to `out`. @returns the exit code. */
export async function runCli(argv: string[], out: CliOutput = console): Promise<number> {
  try {
    return await run(argv, out);
  } catch (err) {
    if (err instanceof CodegenError) {
      out.error(`codegen: tools.yaml has ${err.issues.length} problem(s):`);
      for (const issue of err.issues) out.error(`  ${formatIssue(issue)}`);
    } else {
      out.error(`codegen: ${(err as Error).stack ?? err}`);
    }
    return 1;
  }
}

async function run(argv: string[], out: CliOutput): Promise<number> {
  let values: { check?: boolean; source?: string; root?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { check: { type: "boolean" }, source: { type: "string" }, root: { type: "string" } },
      strict: true,
    }));
  } catch (err) {
    out.error(`codegen: ${(err as Error).message}`);
    out.error("usage: npm run codegen [-- --check] [--source tools.yaml] [--root dir]");
    return 2;
  }
  const root = path.resolve(values.root ?? REPO_ROOT);
  const source = path.resolve(values.source ?? path.join(REPO_ROOT, "tools.yaml"));
  const ctx = await loadContext(source);
  const files = await emitGenerated(ctx);
  const readme = await readmeWithConfigTable(root);
  if (values.check) {
    const drift = await checkOutputs(root, files);
    if (readme && readme.current !== readme.wanted) drift.push({ path: readme.path, problem: "differs" });
    if (drift.length === 0) {
      out.log(`codegen: ${files.length} generated files are up to date (${ctx.tools.length} tools)`);
      return 0;
    }
    out.error(
      "codegen --check: generated files are out of date with tools.yaml (README.md: with src/config/):",
    );
    for (const d of drift) out.error(`  ${d.path} (${d.problem})`);
    out.error("Run `npm run codegen` and commit the result.");
    return 1;
  }
  const report = await writeOutputs(root, files, await emitMissingStubs(ctx, root));
  if (readme && readme.current !== readme.wanted) {
    await writeFile(path.join(root, readme.path), readme.wanted);
    report.written.push(readme.path);
  }
  for (const p of report.written) out.log(`codegen: wrote ${p}`);
  for (const p of report.removed) out.log(`codegen: removed stale ${p}`);
  for (const p of report.stubs) out.log(`codegen: created handler stub ${p}`);
  out.log(
    `codegen: ${ctx.tools.length} tools; ${report.written.length} written, ${report.unchanged.length} unchanged, ${report.stubs.length} stubs created`,
  );
  return 0;
}
