/**
 * CPU time of one test file in a host (test/host.ts), for `TEST_FILE_CPU=<file> npm test` (docs/testing.md
 * "Measuring"): the host's own CPU (process.cpuUsage) plus its descendants' (ffmpeg, the shared Chromium and
 * its renderers, spawned service processes), read from /proc/<pid>/stat (utime, stime, cutime, cstime, in
 * clock ticks of 1/100 s) over every live descendant plus this process's waited-for children. PostgreSQL's
 * backends are not descendants and are not counted. Linux only; elsewhere the descendants read as 0.
 */
import { appendFileSync, readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** `[ppid, utime + stime, cutime + cstime]` (ticks) of /proc/<pid>/stat, or undefined once it is gone. */
function stat(pid: string): [number, number, number] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command (field 2) may hold spaces: the fields after it start after its closing parenthesis.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
  } catch {
    return undefined;
  }
}

/** CPU seconds of this process's descendants: live ones (own and waited-for) and the ones it waited for. */
function descendantsSeconds(): number {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  const children = new Map<number, Array<{ pid: number; own: number; waited: number }>>();
  for (const pid of pids) {
    const s = stat(pid);
    if (!s) continue;
    const list = children.get(s[0]) ?? [];
    list.push({ pid: Number(pid), own: s[1], waited: s[2] });
    children.set(s[0], list);
  }
  let ticks = stat(String(process.pid))?.[2] ?? 0;
  const todo = [process.pid];
  while (todo.length > 0)
    for (const c of children.get(todo.pop()!) ?? []) {
      ticks += c.own + c.waited;
      todo.push(c.pid);
    }
  return ticks / TICKS_PER_SECOND;
}

/** Starts measuring a file; the returned function appends `{file, cpuS, nodeS, childrenS}` (JSON line) to `out`. */
export function measureFile(file: string, out: string): () => void {
  const own = process.cpuUsage();
  const children = descendantsSeconds();
  return () => {
    const used = process.cpuUsage(own);
    const nodeS = (used.user + used.system) / 1e6;
    const childrenS = Math.max(0, descendantsSeconds() - children);
    const round = (n: number) => Math.round(n * 10) / 10;
    appendFileSync(
      out,
      `${JSON.stringify({ file, cpuS: round(nodeS + childrenS), nodeS: round(nodeS), childrenS: round(childrenS) })}\n`,
    );
  };
}
