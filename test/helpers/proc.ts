/**
 * This process's place in Linux's process table, read from /proc (test/helpers/file-cpu.ts measures its
 * descendants' CPU with it; test/helpers/host-end.ts stops the children a failed file left). Elsewhere than
 * Linux the table reads as empty. `alive` asks the system whether a process exists (any platform).
 */
import { readdirSync, readFileSync } from "node:fs";

/** One process of the table: its pid, its own CPU (`utime + stime`) and its waited-for children's (`cutime + cstime`), in clock ticks. */
export interface ProcessEntry {
  pid: number;
  own: number;
  waited: number;
}

/** `[ppid, utime + stime, cutime + cstime]` (ticks) of /proc/<pid>/stat, or undefined once it is gone. */
export function stat(pid: number): [number, number, number] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command (field 2) may hold spaces: the fields after it start after its closing parenthesis.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
  } catch {
    return undefined;
  }
}

/** Every live process by its parent's pid (empty where there is no /proc). */
export function childrenByParent(): Map<number, ProcessEntry[]> {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return new Map();
  }
  const children = new Map<number, ProcessEntry[]>();
  for (const pid of pids) {
    const s = stat(Number(pid));
    if (!s) continue;
    const list = children.get(s[0]) ?? [];
    list.push({ pid: Number(pid), own: s[1], waited: s[2] });
    children.set(s[0], list);
  }
  return children;
}

/** Whether process `pid` exists (signal 0: nothing is sent); one of another user's counts (EPERM). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
