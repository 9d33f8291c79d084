/**
 * `npm test`: picks a PostgreSQL (DATABASE_URL if set, else 127.0.0.1:5432 if reachable, else an embedded
 * one), migrates a template database once, then runs every test file with node:test on Node 24's own type
 * stripping (the sources are erasable TypeScript, tsconfig `erasableSyntaxOnly`; no transpiler in the test
 * processes). Each file clones the template into its own fresh database (test/helpers/db.ts).
 *
 * Usage: npm test [-- <file or glob> ...]
 */
import { spawn } from "node:child_process";
import { existsSync, globSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { PgBoss } from "pg-boss";
import { startEmbeddedPostgres } from "../src/db/embedded.ts";
import { createDb, migrate } from "../src/db/knex.ts";
import { BOSS_SCHEMA } from "../src/operations/boss.ts";
import { summarize } from "./fakes/contract-tally.ts";
import { memoryTablespace } from "./tablespace.ts";

/** Whether a PostgreSQL listens at `url`; false only when nothing does (connection refused, no such host). @throws the error of a server that answers but refuses or is too slow. */
async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch (err) {
    // Only "nothing listens there" means no server: a server that answers with an error (too many clients,
    // say, while other runs share it) or is slow on a loaded machine is not replaced by an embedded one.
    const code = (err as { code?: string }).code;
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EADDRNOTAVAIL") return false;
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Where test/file-times.ts's table of the last measured run is kept (committed; docs/testing.md). */
const TIMES = "test/file-times.json";

/**
 * The files in the order the runner starts them: the slowest of the last measured run first (a new file, not
 * in the table yet, counts as slow), so that no long file starts last and holds the run's end alone.
 */
function slowestFirst(files: string[]): string[] {
  const times = new Map<string, number>();
  if (existsSync(TIMES))
    for (const row of JSON.parse(readFileSync(TIMES, "utf8")) as Array<{ file: string; testMs: number }>)
      times.set(row.file, row.testMs);
  const cost = (f: string) => times.get(f) ?? Number.MAX_SAFE_INTEGER;
  return [...files].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b));
}

/** The spec reporter, plus the per-file times reporter (test/file-times.ts) when TEST_FILE_TIMES names a file. */
function reporters(): string[] {
  if (!process.env.TEST_FILE_TIMES) return [];
  return [
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=./test/file-times.ts",
    "--test-reporter-destination=stdout",
  ];
}

/** The line by which a test file asks for a process of its own instead of a shared host (test/host.ts). */
const OWN_PROCESS = /^\/\/ test-process: own\b/m;

/** Whether `file` holds process-wide state and so runs in its own process (docs/testing.md). */
function ownProcess(file: string): boolean {
  return OWN_PROCESS.test(readFileSync(file, "utf8").slice(0, 4000));
}

/**
 * The queue the hosts take files from: `POST /next` answers the next file's path (text/plain) or 204 when
 * none is left. Serving them one at a time, slowest first, keeps every host busy to the end of the run.
 */
async function fileQueue(files: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const left = [...files];
  const server = http.createServer((req, res) => {
    const file = req.method === "POST" && req.url === "/next" ? left.shift() : undefined;
    if (file === undefined) res.writeHead(204).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * `count` one-line files that each start a host (node --test runs a path once, however often it is named).
 * They live in a temporary folder, removed after the run.
 */
async function hostStubs(count: number): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-test-hosts-"));
  const host = pathToFileURL(path.resolve("test/host.ts")).href;
  const files: string[] = [];
  for (let i = 1; i <= count; i++) {
    const file = path.join(dir, `host-${i}.test.mjs`);
    await writeFile(file, `import ${JSON.stringify(host)};\n`);
    files.push(file);
  }
  return { dir, files };
}

async function main(): Promise<number> {
  let adminUrl = process.env.DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    const local = "postgres://postgres@127.0.0.1:5432/postgres";
    if (await reachable(local)) adminUrl = local;
    else {
      const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-pg-"));
      const embedded = await startEmbeddedPostgres(dir, 54330, "postgres");
      adminUrl = embedded.url;
      stop = embedded.stop;
      console.log(`test: using embedded PostgreSQL in ${dir}`);
    }
  }
  const template = `smcp_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // How the files clone the template (test/helpers/db.ts): FILE_COPY (PostgreSQL 15 and later; the default
  // there is WAL_LOG) copies its few megabytes as files instead of writing every page through the WAL: on the
  // memory tablespace below 0.016 against 0.025 CPU-seconds of PostgreSQL for a clone and its drop, on the
  // root file system 0.35 against 0.38 (docs/testing.md).
  const version = Number((await admin.query("show server_version_num")).rows[0].server_version_num);
  const strategy = version >= 150000 ? "file_copy" : "";
  // The template, and so every clone, in a tablespace on tmpfs when the server can have one (./tablespace.ts).
  const tablespace = await memoryTablespace(admin, adminUrl);
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}${tablespace ? ` tablespace "${tablespace.name}"` : ""}`);
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  const db = createDb(url.toString(), 2);
  await migrate(db);
  await db.destroy();
  // pg-boss's own schema too (the queues stay to each app, whose settings they carry): about 0.2 s of
  // PostgreSQL's CPU for each of the hundred-odd test apps with a queue.
  const boss = new PgBoss({
    connectionString: url.toString(),
    schema: BOSS_SCHEMA,
    migrate: true,
    supervise: false,
    schedule: false,
  });
  boss.on("error", () => {});
  await boss.start();
  await boss.stop({ graceful: false, close: true });

  const files = process.argv.slice(2);
  const targets = slowestFirst(files.length > 0 ? globSync(files) : globSync("test/**/*.test.ts"));
  const own = targets.filter(ownProcess);
  const shared = targets.filter((f) => !ownProcess(f));
  // Three hosts on the 2-core machines (with the page walks, five processes): four kept the cores as busy but
  // cost about 30 CPU-seconds more a run (483 against 445-452) and finished later (docs/testing.md "Keeping
  // tests green on a loaded machine").
  const concurrency = Number(process.env.TEST_CONCURRENCY ?? "3");
  const queue = await fileQueue(shared);
  const hosts = await hostStubs(Math.min(concurrency, shared.length));
  // The fakes' contract checks append their counts here (test/fakes/contract-tally.ts), printed at the end.
  const tally = path.join(hosts.dir, "contract-tally.jsonl");
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--test",
        // Every process at once: the hosts and the own-process files. node's runner starts the files in its
        // own order (the hosts' temporary folder first), so with a limit the page walks, 20-odd seconds each,
        // started only when the hosts had finished and ran alone at the end.
        `--test-concurrency=${Math.max(1, own.length + hosts.files.length)}`,
        "--test-timeout=300000",
        ...reporters(),
        ...own,
        ...hosts.files,
      ],
      {
        stdio: "inherit",
        env: {
          ...process.env,
          // V8's code cache for every module the test processes load (all of src/ in each of them).
          NODE_COMPILE_CACHE:
            process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), "smcp-test-compile-cache"),
          TEST_ADMIN_DATABASE_URL: adminUrl,
          TEST_TEMPLATE_DATABASE: template,
          TEST_TEMPLATE_STRATEGY: strategy,
          TEST_QUEUE_URL: queue.url,
          TEST_CONTRACT_TALLY: tally,
          LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
        },
      },
    );
    child.on("exit", (c) => resolve(c ?? 1));
  });
  await queue.close();
  if (existsSync(tally)) {
    const lines = summarize(readFileSync(tally, "utf8").split("\n"));
    console.log(
      `provider contracts (test/contracts, docs/testing.md):\n${lines.map((l) => `  ${l}`).join("\n")}`,
    );
  }
  await rm(hosts.dir, { recursive: true, force: true });
  await admin.query(`drop database if exists ${template}`).catch(() => {});
  await tablespace?.drop();
  await admin.end();
  if (stop) await stop();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`test: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
