/**
 * Formats generated TypeScript with the project's own formatter (Biome, configured by biome.json at the
 * repository root), so generated code looks like hand-written code and formatting never causes drift.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (where biome.json lives). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const biomeBin = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");

/**
 * Formats `source` as if it were the file `virtualPath` (relative to the repo root; the file need not exist).
 * @throws when Biome rejects the source (a syntax error in an emitter's output).
 */
export function formatTs(source: string, virtualPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [biomeBin, "format", `--stdin-file-path=${virtualPath}`], {
      cwd: REPO_ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
      else
        reject(
          new Error(
            `biome format ${virtualPath} failed (exit ${code}): ${Buffer.concat(err).toString("utf8")}`,
          ),
        );
    });
    child.stdin.end(source);
  });
}
