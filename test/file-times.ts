/**
 * A node:test reporter that writes, for each test file, the summed durations of its top-level tests
 * (milliseconds; a file's import and set-up before its first test are not included) and its count of
 * top-level tests to the
 * JSON file named by TEST_FILE_TIMES, slowest first. `npm test` adds it beside the spec reporter when
 * TEST_FILE_TIMES is set; test/run.ts starts the files in the order of the committed copy
 * (test/file-times.json), and docs/testing.md explains how its table is made.
 *
 * @see https://nodejs.org/api/test.html#custom-reporters (events test:pass, test:fail)
 */
import { writeFileSync } from "node:fs";
import path from "node:path";

interface TestEvent {
  type: string;
  data?: { file?: string; name?: string; nesting?: number; details?: { duration_ms?: number } };
}

/** The reporter: consumes the runner's events, writes `[{file, testMs, tests}]` at the end, prints nothing. */
export default async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files = new Map<string, { testMs: number; tests: number }>();
  /** Tests one level down, per file they are written in: a hosted file's own top-level tests. */
  const nested = new Map<string, number>();
  const hostedFiles = new Set<string>();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const data = event.data;
    if (!data?.file) continue;
    if (data.nesting === 1) nested.set(data.file, (nested.get(data.file) ?? 0) + 1);
    if (data.nesting !== 0) continue;
    // In a host (test/host.ts) a file is one top-level suite named by its path, and its tests are one level
    // down; a file in its own process has its tests at the top level.
    const hosted = data.file.endsWith(`${path.sep}test${path.sep}host.ts`);
    const file = hosted ? data.name && path.resolve(data.name) : data.file;
    if (!file) continue;
    if (hosted) hostedFiles.add(file);
    const entry = files.get(file) ?? { testMs: 0, tests: 0 };
    entry.testMs += data.details?.duration_ms ?? 0;
    entry.tests += hosted ? 0 : 1;
    files.set(file, entry);
  }
  for (const file of hostedFiles) files.get(file)!.tests = nested.get(file) ?? 0;
  const rows = [...files]
    .map(([file, e]) => ({
      file: path.relative(process.cwd(), file),
      testMs: Math.round(e.testMs),
      tests: e.tests,
    }))
    .sort((a, b) => b.testMs - a.testMs || a.file.localeCompare(b.file));
  const out = process.env.TEST_FILE_TIMES;
  if (out) writeFileSync(out, `${JSON.stringify(rows, null, 2)}\n`);
  yield "";
}
