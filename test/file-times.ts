/**
 * A node:test reporter that writes, for each test file, the summed durations of its top-level tests
 * (milliseconds; a file's import and set-up before its first test are not included) and its test count to the
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
  data?: { file?: string; nesting?: number; details?: { duration_ms?: number } };
}

/** The reporter: consumes the runner's events, writes `[{file, testMs, tests}]` at the end, prints nothing. */
export default async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files = new Map<string, { testMs: number; tests: number }>();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file || event.data?.nesting !== 0) continue;
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const entry = files.get(file) ?? { testMs: 0, tests: 0 };
    entry.tests += 1;
    entry.testMs += event.data.details?.duration_ms ?? 0;
    files.set(file, entry);
  }
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
