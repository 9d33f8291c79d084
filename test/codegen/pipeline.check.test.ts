/**
 * `npm run codegen -- --check` through the real CLI, on a temporary copy (never the real tree): up to date
 * -> exit 0; a hand edit, a deleted or a stray generated file -> exit 1 naming the file. And `npm run codegen`
 * never overwrites an existing handler. The exit codes 0, 1 and 2 are checked through `node codegen/main.ts`;
 * the other cases run the same command line in this process (codegen/cli.ts).
 */
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { FIXTURE_YAML, generatedProject, runCodegen, runCodegenInProcess } from "./fixture.ts";

test("--check passes on fresh output and fails, naming the file, after a hand edit", async () => {
  const root = await generatedProject();
  const ok = await runCodegen(["--source", FIXTURE_YAML, "--root", root, "--check"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /up to date \(3 tools\)/);

  const guide = path.join(root, "generated/guide.md");
  await writeFile(
    guide,
    (await readFile(guide, "utf8")).replace("developer guide", "developer guide (edited)"),
  );
  const edited = await runCodegen(["--source", FIXTURE_YAML, "--root", root, "--check"]);
  assert.equal(edited.code, 1);
  assert.match(edited.stderr, /generated\/guide\.md \(differs\)/);
  assert.doesNotMatch(edited.stderr, /registry\.ts/);
});

test("--check reports a missing and an unexpected generated file", async () => {
  const root = await generatedProject();
  await rm(path.join(root, "generated/registry.ts"));
  await writeFile(path.join(root, "generated/old-tool-types.ts"), "export {};\n");
  const r = await runCodegenInProcess(["--source", FIXTURE_YAML, "--root", root, "--check"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /generated\/registry\.ts \(missing\)/);
  assert.match(r.stderr, /generated\/old-tool-types\.ts \(unexpected\)/);
});

test("codegen rewrites generated files, removes stale ones and never touches an existing handler", async () => {
  const root = await generatedProject();
  const handler = path.join(root, "src/tools/products/list_products.ts");
  const mine = "// a real handler\nexport const handler = { async execute() { return { data: {} }; } };\n";
  await writeFile(handler, mine);
  await rm(path.join(root, "src/tools/content/delete_post.ts"));
  await writeFile(path.join(root, "generated/catalog.json"), "{}\n");
  await writeFile(path.join(root, "generated/stale.md"), "old\n");

  const r = await runCodegenInProcess(["--source", FIXTURE_YAML, "--root", root]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /wrote generated\/catalog\.json/);
  assert.match(r.stdout, /removed stale generated\/stale\.md/);
  assert.match(r.stdout, /created handler stub src\/tools\/content\/delete_post\.ts/);
  assert.doesNotMatch(r.stdout, /list_products\.ts/);
  assert.equal(await readFile(handler, "utf8"), mine);

  const check = await runCodegenInProcess(["--source", FIXTURE_YAML, "--root", root, "--check"]);
  assert.equal(check.code, 0, check.stderr);
});

test("an invalid tools.yaml fails with every bad field and its path", async () => {
  const root = await generatedProject();
  const bad = path.join(root, "bad.yaml");
  const text = (await readFile(FIXTURE_YAML, "utf8"))
    .replace("scope: read:products", "scope: read:everything")
    .replace("cursor: { type: string, maxLength: 512,", "cursor: { type: string,");
  await writeFile(bad, text);
  const r = await runCodegenInProcess(["--source", bad, "--root", root, "--check"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /tools\[0\]\.scope: unknown scope "read:everything"/);
  assert.match(r.stderr, /tools\[0\]\.input\.properties\.cursor: a string must have maxLength/);
});

test("bad usage exits 2", async () => {
  const r = await runCodegen(["--frobnicate"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /usage: npm run codegen/);
});
