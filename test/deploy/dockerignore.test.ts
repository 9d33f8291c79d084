/**
 * The image of deploy/Dockerfile holds no local state (README "Running more than one instance"):
 * `.dockerignore` keeps the development keys and the embedded database (`.data`), environment files
 * (`.env*`), installed packages and the git history out of the build context, judged with Docker's own
 * matching rules (@balena/dockerignore); what the service needs at run time stays in. The Dockerfile and
 * .ci/run install the same ffmpeg (Debian's package, docs/ffmpeg.md).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { test } from "node:test";
import { promisify } from "node:util";
import type { Ignore } from "@balena/dockerignore";

/** The CommonJS export of @balena/dockerignore (its types declare an ES default). */
const ignore = createRequire(import.meta.url)("@balena/dockerignore") as () => Ignore;

const root = new URL("../../", import.meta.url);
const read = (file: string) => readFile(new URL(file, root), "utf8");

test(".dockerignore keeps dev keys, the local database, env files, node_modules and .git out of the image", async () => {
  const filter = ignore().add(await read(".dockerignore"));
  const local = [
    ".data/keys.json",
    ".data/postgres/PG_VERSION",
    ".data/postgres/base/1/1259",
    ".data/media/ab/cd.jpg",
    ".env",
    ".env.local",
    ".env.production",
    "deploy/.env",
    "node_modules/pg/package.json",
    "node_modules/.bin/tsx",
    ".git/HEAD",
    ".git/objects/ab/cdef",
    "server.log",
  ];
  for (const file of local) assert.equal(filter.ignores(file), true, `${file} must not reach the image`);
  const tracked = (
    await promisify(execFile)("git", ["ls-files"], { cwd: root.pathname, maxBuffer: 16 * 1024 * 1024 })
  ).stdout
    .split("\n")
    .filter(Boolean);
  const needed = tracked.filter((f) =>
    /^(package\.json|package-lock\.json|tsconfig\.json|tools\.yaml|(src|generated|migrations|bin)\/)/.test(f),
  );
  assert.ok(needed.length > 100, String(needed.length));
  const dropped = needed.filter((f) => filter.ignores(f));
  assert.deepEqual(dropped, [], "what the service runs from is in the image");
});

test("the Dockerfile copies the context after npm ci and installs Debian's ffmpeg, as .ci/run does", async () => {
  const dockerfile = await read("deploy/Dockerfile");
  assert.match(dockerfile, /apt-get install -y --no-install-recommends ffmpeg/);
  assert.match(dockerfile, /RUN npm ci --omit=dev[^\n]*\nCOPY \. \./);
  assert.doesNotMatch(dockerfile, /curl|wget|ADD https?:/, "nothing downloaded from elsewhere");
  const ci = await read(".ci/run");
  assert.match(ci, /apt-get install -y -qq chromium ffmpeg/);
});
