/**
 * A test host: one node:test process that runs many test files one after another, so that each file does not
 * pay its own process start and its own import of src/ and its libraries (about 1 CPU-second a file, a third
 * of the suite's CPU; docs/testing.md "Several files per process").
 *
 * test/run.ts starts `TEST_CONCURRENCY` hosts and hands them the files through a small HTTP queue
 * (`TEST_QUEUE_URL`: `POST /next` answers a file path, or 204 when none is left). A host wraps each file in one
 * top-level suite named by the file's path and imports the file while the suite is built. node:test finds a
 * test's parent through the async context, so the file's tests become the suite's tests and its top-level
 * `after` hooks (test/helpers/db.ts, app.ts) run when the suite ends: every file still owns its database,
 * app, port and browser, and closes them before the next file starts. Files that cannot share a process
 * (they hold process-wide state) say so with the line `// test-process: own` and run in their own process.
 *
 * One rule follows for helpers: a helper that caches a promise is an async function, so each caller awaits a
 * promise of its own. A top-level `await` of a promise made while another file ran continues in that file's
 * async context, and the tests and `after` hooks registered after it would go to that file's finished suite.
 * A file that leaves a server listening or a child process running fails a test named after it.
 *
 * @see https://nodejs.org/api/test.html (subtests, `after`)
 */
import { describe, test } from "node:test";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { measureFile } from "./helpers/file-cpu.ts";
import { abandonLeftovers, hostState, runHostEnd } from "./helpers/host-end.ts";

const queue = process.env.TEST_QUEUE_URL;
if (!queue) throw new Error("test/host.ts runs under test/run.ts (TEST_QUEUE_URL is not set)");

/** The next file of the run (relative to the repository), or undefined when none is left. */
async function next(): Promise<string | undefined> {
  const res = await fetch(`${queue}/next`, { method: "POST" });
  if (res.status === 204) return undefined;
  if (!res.ok) throw new Error(`test queue answered ${res.status}`);
  return res.text();
}

/** Listening servers and child processes this process holds now, by kind (process.getActiveResourcesInfo). */
function held(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo())
    if (kind === "TCPServerWrap" || kind === "PipeServerWrap" || kind === "ProcessWrap")
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/**
 * What the process holds beyond `before` (less the children the helpers share, which may have been started
 * since: `sharedBefore` of them were there before), waiting up to 2 s for closes that are still under way;
 * "" when nothing.
 */
async function leftOpen(before: Map<string, number>, sharedBefore: number): Promise<string> {
  const allowed = (kind: string) =>
    (before.get(kind) ?? 0) + (kind === "ProcessWrap" ? hostState.sharedChildren - sharedBefore : 0);
  const extra = () =>
    [...held()]
      .filter(([kind, n]) => n > allowed(kind))
      .map(([kind, n]) => `${n - allowed(kind)} ${kind}`)
      .join(", ");
  for (let waited = 0; waited < 2000 && extra(); waited += 50) await new Promise((r) => setTimeout(r, 50));
  return extra();
}

/**
 * How long a file's set-up (its import with the top-level awaits: databases, apps, clusters) may take, in
 * milliseconds (TEST_SETUP_TIMEOUT_MS, default 240 000). Its tests carry their own timeout (test/run.ts);
 * without this bound a set-up that never ends would hold its host, and so the whole run, without a word.
 */
const SETUP_TIMEOUT_MS = Number(process.env.TEST_SETUP_TIMEOUT_MS ?? 240_000);

/** `setUp`, or an error naming `file` once SETUP_TIMEOUT_MS passed. */
async function bounded(setUp: Promise<unknown>, file: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new Error(
          `${file}: its set-up (the import and its top-level awaits) did not finish in ${SETUP_TIMEOUT_MS / 1000} s; ` +
            `the process holds ${process.getActiveResourcesInfo().join(", ")}`,
        ),
      );
    }, SETUP_TIMEOUT_MS);
  });
  try {
    await Promise.race([setUp, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

hostState.hosted = true;
for (let file = await next(); file !== undefined; file = await next()) {
  const url = pathToFileURL(path.resolve(file)).href;
  const before = held();
  const sharedBefore = hostState.sharedChildren;
  const measured = process.env.TEST_FILE_CPU ? measureFile(file, process.env.TEST_FILE_CPU) : undefined;
  // A suite: its tests are collected while the file is imported (its top-level set-up included) and run only
  // then, one after another, as they would in a process of their own. The file's own tests carry the
  // per-test timeout and its set-up is bounded here; the suite itself has no timeout.
  await describe(file, { timeout: Number.POSITIVE_INFINITY }, async () => {
    await bounded(import(url), file);
  });
  // A file that leaves a server listening or a child running would keep this host alive after the run and
  // take ports and memory from the files after it. (Usually an `after` registered in the async context of
  // another file's promise: see docs/testing.md.)
  measured?.();
  const left = await leftOpen(before, sharedBefore);
  if (left)
    await test(`${file} closes what it opened`, () => {
      throw new Error(`${file} left ${left} open after its tests`);
    });
}
// What the files shared (one Chromium) goes last.
await runHostEnd();
// Anything still held was left by a file, which has failed for it by name (its set-up ran out of time, or it
// did not close what it opened): it must not keep the host, and so the run, from ending.
abandonLeftovers();
