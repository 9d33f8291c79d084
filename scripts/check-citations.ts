/**
 * Comments and docs cite sources a reader can open: a section of the service spec (docs/spec/), an RFC, a
 * provider's reference URL or a docs/ heading, never a work item by its number. This check fails on
 * "issue" or "stop" followed by a number (`issue N`, `issue N.M`, `issues N and M`, `stop #N`) in the folders and
 * files below, naming each file:line. A link to another project's tracker is written as its URL
 * (`https://github.com/gitroomhq/postiz-app/issues/593`), which does not match.
 *
 * Usage: `node scripts/check-citations.ts [root]` (run by `npm run lint`); exit 0 when clean, 1 with the
 * offending lines on stderr.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The folders and files checked, relative to the repository root. */
export const CHECKED = [
  "src",
  "codegen",
  "docs",
  "bench",
  "test",
  "scripts",
  "migrations",
  "deploy",
  "bin",
  "README.md",
  "tools.yaml",
];

/** File names read as text; anything else (images, fonts, vendored JSON descriptions) is skipped. */
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|yaml|yml|html|css|sh|txt)$|^Dockerfile$/;

/** A work item cited by number: the word, optional `#`, a number (with an optional `.N` part). */
export const WORK_ITEM = /\b(?:issues?|stops?)\s+#?\d+(?:\.\d+)?\b/i;

/** One offending line. */
export interface Citation {
  /** Path relative to the root, `/`-separated. */
  file: string;
  /** 1-based line number. */
  line: number;
  /** The matched words, e.g. `issue N`. */
  match: string;
}

function walk(path: string, out: string[]): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      walk(join(path, name), out);
    }
  } else if (TEXT.test(path.split("/").pop()!)) {
    out.push(path);
  }
}

/**
 * Every line under `root`'s checked folders and files that cites a work item by number.
 * @param root the repository root (absolute or relative to the working directory)
 * @param entries the folders and files to read, relative to `root` (default {@link CHECKED})
 */
export function findCitations(root: string, entries: readonly string[] = CHECKED): Citation[] {
  const files: string[] = [];
  for (const entry of entries) walk(join(root, entry), files);
  const found: Citation[] = [];
  for (const file of files.sort()) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((text, i) => {
      const m = WORK_ITEM.exec(text);
      if (m) found.push({ file: relative(root, file).split("\\").join("/"), line: i + 1, match: m[0] });
    });
  }
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? ".");
  const found = findCitations(root);
  for (const c of found) {
    process.stderr.write(
      `${c.file}:${c.line}: cites a work item ("${c.match}"); cite the spec section, RFC, provider URL or docs/ heading instead\n`,
    );
  }
  process.exitCode = found.length > 0 ? 1 : 0;
}
