/**
 * The README's configuration table is generated from the settings areas' schemas (codegen/config-table.ts,
 * src/config/): the committed README.md holds exactly the generated table, every variable `loadConfig`
 * reads is in it with a description, and `npm run codegen -- --check` fails, naming README.md, when the
 * table was edited by hand; `npm run codegen` puts it back.
 */
import assert from "node:assert/strict";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { CONFIG_TABLE_END, CONFIG_TABLE_START, configTable } from "../../codegen/config-table.ts";
import { REPO_ROOT } from "../../codegen/format.ts";
import { CONFIG_AREAS, EnvSchema } from "../../src/config/index.ts";
import { FIXTURE_YAML, generatedProject, runCodegenInProcess } from "./fixture.ts";

test("README.md holds the table generated from src/config/, one row for each variable", async () => {
  const readme = await readFile(path.join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END) + CONFIG_TABLE_END.length;
  assert.ok(start > 0 && end > start, "the marker lines are in README.md");
  assert.equal(readme.slice(start, end), configTable());
  for (const name of Object.keys(EnvSchema.properties))
    assert.match(readme.slice(start, end), new RegExp(`\`${name}\``), `${name} is in the table`);
  for (const area of CONFIG_AREAS) assert.ok(readme.includes(`**${area.title}**`), area.title);
});

test("every variable's schema has a description (the table's meaning column)", () => {
  const missing = Object.entries(EnvSchema.properties)
    .filter(([, s]) => !(s as { description?: string }).description)
    .map(([name]) => name);
  assert.deepEqual(missing, []);
});

test("--check fails naming README.md after a hand edit of the table, and codegen restores it", async () => {
  const root = await generatedProject();
  await copyFile(path.join(REPO_ROOT, "README.md"), path.join(root, "README.md"));
  const args = ["--source", FIXTURE_YAML, "--root", root];
  const clean = await runCodegenInProcess([...args, "--check"]);
  assert.equal(clean.code, 0, clean.stderr);

  const file = path.join(root, "README.md");
  const original = await readFile(file, "utf8");
  await writeFile(file, original.replace("| `PORT` | `3000` |", "| `PORT` | `8080` |"));
  const edited = await runCodegenInProcess([...args, "--check"]);
  assert.equal(edited.code, 1);
  assert.match(edited.stderr, /^ {2}README\.md \(differs\)$/m);

  const fixed = await runCodegenInProcess(args);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(await readFile(file, "utf8"), original);
});
