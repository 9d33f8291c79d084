/**
 * The codegen pipeline: load -> resolve -> emit (one emitter per output) -> format; then write, or check
 * against what is on disk. Output order does not matter: every emitter is a pure function of the context.
 * Nothing here prints; main.ts reports.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CodegenContext, resolveContext } from "./context.ts";
import { emitCatalog } from "./emit/catalog.ts";
import { emitGuide } from "./emit/guide.ts";
import { emitNetworkRules } from "./emit/guide-networks.ts";
import { emitServerJson } from "./emit/server-json.ts";
import { emitRegistry } from "./emit/registry.ts";
import { emitStub } from "./emit/stubs.ts";
import { emitToolTypes } from "./emit/tool-types.ts";
import { emitViews } from "./emit/views.ts";
import { formatTs } from "./format.ts";
import { loadTools } from "./load.ts";

/** A file codegen produces, with its path relative to the output root (POSIX separators). */
export interface OutputFile {
  path: string;
  content: string;
}

/** The directory every run rewrites completely. */
export const GENERATED_DIR = "generated";

/** Reads and validates `source` (a tools.yaml path). @throws CodegenError listing every bad field. */
export async function loadContext(source: string): Promise<CodegenContext> {
  return resolveContext(loadTools(await readFile(source, "utf8")));
}

/**
 * Emits and formats everything under generated/: what tools.yaml gives, and the MCP Apps views bundled from
 * src/mcp/views/ (emit/views.ts). Deterministic: the same context and sources give the same bytes.
 */
export async function emitGenerated(ctx: CodegenContext): Promise<OutputFile[]> {
  const ts = async (name: string, source: string | Promise<string>): Promise<OutputFile> => ({
    path: `${GENERATED_DIR}/${name}`,
    content: await formatTs(await source, `codegen-output/${name}`),
  });
  const files = await Promise.all([
    ts("tool-types.ts", emitToolTypes(ctx)),
    ts("registry.ts", emitRegistry(ctx)),
    { path: `${GENERATED_DIR}/catalog.json`, content: emitCatalog(ctx) },
    { path: `${GENERATED_DIR}/guide.md`, content: emitGuide(ctx) },
    { path: `${GENERATED_DIR}/network-rules.md`, content: emitNetworkRules(ctx.provenance) },
    { path: `${GENERATED_DIR}/server.json`, content: emitServerJson(ctx.provenance) },
  ]);
  for (const view of await emitViews(ctx))
    files.push({ path: `${GENERATED_DIR}/${view.path}`, content: view.content });
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Stubs for the tools whose handler file does not exist under `root`. */
export async function emitMissingStubs(ctx: CodegenContext, root: string): Promise<OutputFile[]> {
  const missing = ctx.tools.filter((t) => !existsSync(path.join(root, t.handlerPath)));
  return Promise.all(
    missing.map(async (t) => ({ path: t.handlerPath, content: await formatTs(emitStub(t), t.handlerPath) })),
  );
}

async function listGenerated(root: string): Promise<string[]> {
  const dir = path.join(root, GENERATED_DIR);
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

/** What a write did, paths relative to the root. */
export interface WriteReport {
  written: string[];
  unchanged: string[];
  removed: string[];
  stubs: string[];
}

/**
 * Writes `files` under `root` (only those whose bytes changed), removes stale files under generated/, and
 * creates `stubs` (never overwriting an existing file).
 */
export async function writeOutputs(
  root: string,
  files: OutputFile[],
  stubs: OutputFile[],
): Promise<WriteReport> {
  const report: WriteReport = { written: [], unchanged: [], removed: [], stubs: [] };
  const wanted = new Set(files.map((f) => f.path));
  for (const stale of await listGenerated(root)) {
    if (!wanted.has(stale)) {
      await rm(path.join(root, stale));
      report.removed.push(stale);
    }
  }
  for (const f of files) {
    const target = path.join(root, f.path);
    const current = existsSync(target) ? await readFile(target, "utf8") : undefined;
    if (current === f.content) {
      report.unchanged.push(f.path);
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, f.content);
    report.written.push(f.path);
  }
  for (const s of stubs) {
    const target = path.join(root, s.path);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await writeFile(target, s.content, { flag: "wx" });
      report.stubs.push(s.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return report;
}

/** One difference found by `--check`. */
export interface Drift {
  path: string;
  problem: "differs" | "missing" | "unexpected";
}

/** Compares `files` with what is under `root`; stale files under generated/ count as drift. Stubs are not checked. */
export async function checkOutputs(root: string, files: OutputFile[]): Promise<Drift[]> {
  const drift: Drift[] = [];
  const wanted = new Set(files.map((f) => f.path));
  for (const f of files) {
    const target = path.join(root, f.path);
    if (!existsSync(target)) drift.push({ path: f.path, problem: "missing" });
    else if ((await readFile(target, "utf8")) !== f.content) drift.push({ path: f.path, problem: "differs" });
  }
  for (const p of await listGenerated(root))
    if (!wanted.has(p)) drift.push({ path: p, problem: "unexpected" });
  return drift.sort((a, b) => (a.path < b.path ? -1 : 1));
}
