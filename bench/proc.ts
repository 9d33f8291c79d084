/** Process measurements the media benches share (Linux /proc). */
import { readdir, readFile } from "node:fs/promises";

/** Resident set size in bytes of `pid` and all its descendants (Linux /proc/<pid>/task/<tid>/children). */
export async function treeRss(pid: number): Promise<number> {
  let total = 0;
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    total += Number(/VmRSS:\s+([0-9]+) kB/.exec(status)?.[1] ?? 0) * 1024;
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      const kids = (await readFile(`/proc/${pid}/task/${tid}/children`, "utf8")).trim();
      for (const kid of kids ? kids.split(" ") : []) total += await treeRss(Number(kid));
    }
  } catch {
    // the process ended meanwhile
  }
  return total;
}
