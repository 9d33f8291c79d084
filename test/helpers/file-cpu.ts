/**
 * CPU time of one test file in a host (test/host.ts), for `TEST_FILE_CPU=<file> npm test` (docs/testing.md
 * "Measuring"): the host's own CPU (process.cpuUsage) plus its descendants' (ffmpeg, the shared Chromium and
 * its renderers, spawned service processes), read from /proc/<pid>/stat (utime, stime, cutime, cstime, in
 * clock ticks of 1/100 s) over every live descendant plus this process's waited-for children. PostgreSQL's
 * backends are not descendants and are not counted. Linux only; elsewhere the descendants read as 0.
 */
import { appendFileSync } from "node:fs";
import { childrenByParent, stat } from "./proc.ts";

const TICKS_PER_SECOND = 100;

/** CPU seconds of this process's descendants: live ones (own and waited-for) and the ones it waited for. */
function descendantsSeconds(): number {
  const children = childrenByParent();
  let ticks = stat(process.pid)?.[2] ?? 0;
  const todo = [process.pid];
  while (todo.length > 0)
    for (const c of children.get(todo.pop()!) ?? []) {
      ticks += c.own + c.waited;
      todo.push(c.pid);
    }
  return ticks / TICKS_PER_SECOND;
}

/**
 * Starts measuring a file; the returned function appends `{file, cpuS, nodeS, childrenS, host, startMs, endMs}`
 * (JSON line) to `out`: CPU-seconds, the host's pid, and the file's start and end (Unix milliseconds), from
 * which the run's timeline is drawn (which hosts were busy when, and how long the run's tail was).
 */
export function measureFile(file: string, out: string): () => void {
  const startMs = Date.now();
  const own = process.cpuUsage();
  const children = descendantsSeconds();
  return () => {
    const used = process.cpuUsage(own);
    const nodeS = (used.user + used.system) / 1e6;
    const childrenS = Math.max(0, descendantsSeconds() - children);
    const round = (n: number) => Math.round(n * 10) / 10;
    appendFileSync(
      out,
      `${JSON.stringify({ file, cpuS: round(nodeS + childrenS), nodeS: round(nodeS), childrenS: round(childrenS), host: process.pid, startMs, endMs: Date.now() })}\n`,
    );
  };
}
