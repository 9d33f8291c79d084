/**
 * Helpers for the codegen tests: run the pipeline on the small fixture into a temporary root that can be
 * type-checked (the rest of src/ and node_modules are symlinked in), and spawn the CLI.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import ts from "typescript";
import { runCli } from "../../codegen/cli.ts";
import { REPO_ROOT } from "../../codegen/format.ts";
import {
  emitGenerated,
  emitMissingStubs,
  loadContext,
  type OutputFile,
  writeOutputs,
} from "../../codegen/pipeline.ts";

export const FIXTURE_DIR = path.join(REPO_ROOT, "test/fixtures/codegen");
export const FIXTURE_YAML = path.join(FIXTURE_DIR, "tools.yaml");
export const EXPECTED_DIR = path.join(FIXTURE_DIR, "expected");

/** Everything codegen produces for `source` into an empty root: generated files and all stubs. */
export async function generateAll(source = FIXTURE_YAML): Promise<OutputFile[]> {
  const ctx = await loadContext(source);
  const empty = await tempDir();
  const files = [...(await emitGenerated(ctx)), ...(await emitMissingStubs(ctx, empty))];
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** A temporary directory removed after the file's tests. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-codegen-"));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A root with codegen's output for `source` (written by the pipeline), plus symlinks to the repo's other
 * src/ entries and node_modules, a package.json and a tsconfig.json like the repo's: a project tsc can check.
 */
export async function generatedProject(source = FIXTURE_YAML): Promise<string> {
  const root = await tempDir();
  const ctx = await loadContext(source);
  await writeOutputs(root, await emitGenerated(ctx), await emitMissingStubs(ctx, root));
  for (const entry of await readdir(path.join(REPO_ROOT, "src"))) {
    if (entry !== "tools") await symlink(path.join(REPO_ROOT, "src", entry), path.join(root, "src", entry));
  }
  await symlink(path.join(REPO_ROOT, "node_modules"), path.join(root, "node_modules"));
  await writeFile(path.join(root, "package.json"), '{"type":"module"}\n');
  const tsconfig = JSON.parse(await readFile(path.join(REPO_ROOT, "tsconfig.json"), "utf8"));
  tsconfig.include = ["generated", "src/tools"];
  await writeFile(path.join(root, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  return root;
}

/**
 * Type-checks the project at `root` (its tsconfig.json) with the TypeScript compiler in this process, as
 * `tsc --noEmit -p` would: every file of the program, or only the files of `only` (paths relative to `root`),
 * which spares checking the rest of src/ (the repository's own files, which `npm run lint` checks). @returns
 * one entry per error as tsc prints it without colours (`generated/registry.ts(12,3): error TS2322: ...` and
 * the lines of its explanation), empty when none.
 */
export function typeErrors(root: string, only?: string[]): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!parsed) throw new Error(`no tsconfig.json in ${root}`);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: { ...parsed.options, noEmit: true },
  });
  const diagnostics = only
    ? [
        ...program.getOptionsDiagnostics(),
        ...program.getGlobalDiagnostics(),
        ...only.flatMap((file) => {
          const source = program.getSourceFile(path.join(root, file));
          if (!source) throw new Error(`${file} is not in the program`);
          return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
        }),
      ]
    : ts.getPreEmitDiagnostics(program);
  const host = {
    getCanonicalFileName: (f: string) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  };
  return diagnostics.map((d) => ts.formatDiagnostics([d], host).trimEnd());
}

/** Runs a Node script (TypeScript, by Node 24's type stripping) and collects its exit code and output. */
export function run(
  args: string[],
  cwd = REPO_ROOT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/**
 * Runs the codegen command line in this process (codegen/cli.ts, what `codegen/main.ts` runs before it exits
 * with the code): the same code and output without a node start and codegen's imports (about 4 CPU-seconds
 * a run on the 2-core machines). The tests that check the process's exit codes use `runCodegen`.
 */
export async function runCodegenInProcess(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    log: (line) => {
      stdout += `${line}\n`;
    },
    error: (line) => {
      stderr += `${line}\n`;
    },
  });
  return { code, stdout, stderr };
}

/** Runs `codegen/main.ts` with `args` in a node process of its own. */
export function runCodegen(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run([path.join(REPO_ROOT, "codegen/main.ts"), ...args]);
}
