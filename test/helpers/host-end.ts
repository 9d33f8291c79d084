/**
 * What a test host (test/host.ts) does once all its files have run: the process-wide resources that test
 * helpers share between the files of one host (one Chromium, test/helpers/browser.ts) are closed here. A file
 * in a process of its own never sets `hosted` and closes its resources in its own `after` hooks.
 */
import { childrenByParent } from "./proc.ts";

/**
 * `hosted`: whether this process is a test host running several files one after another. `sharedChildren`:
 * the child processes the helpers keep for all the host's files (a shared Chromium), which the host's check
 * that each file closes its children (test/host.ts) does not count against the file that launched them.
 */
export const hostState = { hosted: false, sharedChildren: 0 };

const hooks: Array<() => Promise<void>> = [];

/** Registers `close` to run when the host has run its last file. */
export function atHostEnd(close: () => Promise<void>): void {
  hooks.push(close);
}

/** Runs the registered closes, in order; a failing one does not stop the others. */
export async function runHostEnd(): Promise<void> {
  for (const close of hooks.splice(0)) await close().catch(() => {});
}

/**
 * Lets a host end whatever its files left (test/host.ts calls it after `runHostEnd`): a file whose set-up ran
 * out of time is still pending and holds what it opened (servers, child processes such as a scale test's
 * cluster), and a file that did not close what it opened holds it too; either would keep the process alive,
 * and the run waiting for it, forever. Such a file has already failed by name. Its child processes are
 * killed (SIGKILL: nothing of them is needed) and every handle left is unref'd, so that node:test finishes
 * the host and reports as usual. After a clean run there is nothing to let go of.
 */
export function abandonLeftovers(): void {
  for (const { pid } of childrenByParent().get(process.pid) ?? []) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  const own = new Set<unknown>([process.stdin, process.stdout, process.stderr]);
  const handles = (
    process as unknown as { _getActiveHandles(): Array<{ unref?(): void }> }
  )._getActiveHandles();
  for (const handle of handles) if (!own.has(handle)) handle.unref?.();
}
