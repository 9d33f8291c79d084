/**
 * Comments and docs cite sources a reader can open, never a work item by number (scripts/check-citations.ts,
 * run by `npm run lint`): the check fails on a file whose comment cites one, naming file:line, and passes on
 * the repository's own tree.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { findCitations } from "../../scripts/check-citations.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SCRIPT = join(ROOT, "scripts/check-citations.ts");

/** Runs the check as `npm run lint` does, in a child node process. */
function runCheck(root: string): { code: number | null; stderr: string } {
  const out = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { code: out.status, stderr: out.stderr };
}

test("a comment citing a work item by number fails the check, naming file and line", (t) => {
  const root = mkdtempSync(join(tmpdir(), "citations-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "src"));
  // The number is joined at run time so that this test file itself passes the check.
  const cited = ["issue", "12"].join(" ");
  writeFileSync(join(root, "src/a.ts"), `export const a = 1;\n// The limit of ${cited}.\n`);
  writeFileSync(join(root, "src/b.ts"), "// See https://github.com/gitroomhq/postiz-app/issues/593.\n");
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs/notes.md"), `# Notes\n\nMeasured at ${["stop", "35"].join(" ")}.\n`);

  const failed = runCheck(root);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^src\/a\.ts:2: cites a work item \("issue\s12"\)/m);
  assert.match(failed.stderr, /^docs\/notes\.md:3: cites a work item \("stop\s35"\)/m);
  assert.doesNotMatch(failed.stderr, /b\.ts/, "a tracker URL is a source a reader can open");

  writeFileSync(join(root, "src/a.ts"), "export const a = 1;\n// The limit of service spec 8.\n");
  writeFileSync(join(root, "docs/notes.md"), "# Notes\n");
  const passed = runCheck(root);
  assert.equal(passed.code, 0, passed.stderr);
});

test("the repository's own tree cites no work item by number", () => {
  assert.deepEqual(findCitations(ROOT), []);
});
