/**
 * The node flags of each kind of process agree wherever a process is started: `serve` and `all` (package.json
 * `start`, deploy/Dockerfile's ENTRYPOINT, the `serve` services of deploy/compose.yaml, bench/load.ts's
 * `ours`) run with a young generation sized for the HTTP path, `worker` (deploy/compose.yaml's workers, the
 * media and sync benches) with the 2 MB one that keeps the renders' memory down (bench/README.md
 * "bench:load" and "Media: images in parallel").
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import YAML from "yaml";
import { SERVE_NODE_FLAGS } from "../../bench/load-targets.ts";
import { WORKER_NODE_FLAGS } from "../../bench/proc.ts";

const root = new URL("../../", import.meta.url);
const read = (file: string) => readFile(new URL(file, root), "utf8");

/** The flags between `node` and `src/main.ts` of an argv. */
function flagsOf(argv: string[]): string[] {
  assert.equal(argv[0], "node", argv.join(" "));
  const main = argv.indexOf("src/main.ts");
  assert.ok(main > 0, argv.join(" "));
  return argv.slice(1, main);
}

/** The semi-space size (MB) a flag list sets. */
function semiSpace(flags: string[]): number | undefined {
  const flag = flags.find((f) => f.startsWith("--max-semi-space-size="));
  return flag === undefined ? undefined : Number(flag.split("=")[1]);
}

test("serve and all run with the HTTP path's young generation everywhere they are started", async () => {
  const pkg = JSON.parse(await read("package.json")) as { scripts: Record<string, string> };
  const start = /exec (node .*src\/main\.ts) all$/.exec(pkg.scripts.start!)?.[1];
  assert.ok(start, pkg.scripts.start);
  assert.deepEqual(flagsOf(start.split(" ")), SERVE_NODE_FLAGS);
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(await read("deploy/Dockerfile"))?.[1];
  assert.ok(entrypoint);
  assert.deepEqual(flagsOf(JSON.parse(entrypoint)), SERVE_NODE_FLAGS);
  const compose = YAML.parse(await read("deploy/compose.yaml"), { merge: true });
  for (const name of ["serve-1", "serve-2"]) assert.equal(compose.services[name].entrypoint, undefined, name);
  assert.ok((semiSpace(SERVE_NODE_FLAGS) ?? 32) >= 16, "the HTTP path needs at least 16 MB semi-spaces");
});

test("workers run with the 2 MB young generation that keeps the renders' memory down", async () => {
  const compose = YAML.parse(await read("deploy/compose.yaml"), { merge: true });
  for (const name of ["worker-1", "worker-2"]) {
    const s = compose.services[name];
    assert.deepEqual(s.command, ["worker"], name);
    assert.deepEqual(flagsOf(s.entrypoint), WORKER_NODE_FLAGS, name);
  }
  assert.equal(semiSpace(WORKER_NODE_FLAGS), 2);
  const pkg = JSON.parse(await read("package.json")) as { scripts: Record<string, string> };
  for (const flag of WORKER_NODE_FLAGS) assert.ok(pkg.scripts["bench:media"]!.includes(`'${flag}'`));
});
