/**
 * Runs the MCP Inspector's command line (npm @modelcontextprotocol/inspector, with npx) against a service:
 * shared by `npm run inspector:apps` (the MCP Apps metadata of every tool) and `npm run inspector:lint` (the
 * `--strict` portability lint of tools/list). Needs the npm registry the first time (npx fetches it).
 */
import { spawn } from "node:child_process";

/** The Inspector release the checks were written against. */
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

/** The protocol eras the Inspector speaks: legacy (initialize) and modern (2026-07-28). */
export const ERAS = ["legacy", "modern"] as const;

/** Runs the Inspector CLI with `args`; resolves with its exit code, standard output and standard error. */
export function inspector(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["--yes", INSPECTOR, "--cli", ...args], { env: process.env });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString("utf8");
    });
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString("utf8");
    });
    child.on("exit", (code) => resolve({ code: code ?? 1, out, err }));
  });
}
