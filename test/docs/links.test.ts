/**
 * The repository stands alone: README.md and docs/ link only to files inside it, every repository path they
 * name exists, and no source, test or doc reads or links the workplace's shared folder outside the repository.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

const docs = [join(ROOT, "README.md"), ...walk(join(ROOT, "docs"), (p) => p.endsWith(".md"))];

test("markdown links of README.md and docs/ point at existing files inside the repository", () => {
  const bad: string[] = [];
  for (const file of docs) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = resolve(dirname(file), target.split("#")[0]!);
      if (relative(ROOT, path).startsWith("..") || !existsSync(path))
        bad.push(`${relative(ROOT, file)}: ${target}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("repository paths named in README.md and docs/ (outside docs/spec) exist", () => {
  const bad: string[] = [];
  for (const file of docs.filter((f) => !f.includes(`${join("docs", "spec")}`))) {
    // A line naming planned locations (the word "planned") may name folders that do not exist yet.
    const text = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => !/\bplanned\b/i.test(line))
      .join("\n");
    for (const m of text.matchAll(
      /`((?:src|test|docs|bench|codegen|generated|migrations)\/[^`\s*<>{}]*)`/g,
    )) {
      if (!existsSync(join(ROOT, m[1]!))) bad.push(`${relative(ROOT, file)}: ${m[1]}`);
    }
  }
  assert.deepEqual(bad, []);
});

/** The workplace folder beside the repository that nothing may read (spelled in parts so this file passes). */
const OUTSIDE = new RegExp(["\\.\\./", "shared\\b|/work/", "shared\\b"].join(""));

test("no code, test or doc reads or links the shared folder outside the repository", () => {
  const files = [
    ...docs,
    ...["src", "test", "codegen", "bench", "bin"].flatMap((d) =>
      existsSync(join(ROOT, d)) ? walk(join(ROOT, d), (p) => /\.(ts|js|cjs|md|json|yaml)$/.test(p)) : [],
    ),
  ];
  const hits = files.filter((f) => OUTSIDE.test(readFileSync(f, "utf8")));
  assert.deepEqual(
    hits.map((f) => relative(ROOT, f)),
    [],
  );
});
