/**
 * What a test host (test/host.ts) does once all its files have run: the process-wide resources that test
 * helpers share between the files of one host (one Chromium, test/helpers/browser.ts) are closed here. A file
 * in a process of its own never sets `hosted` and closes its resources in its own `after` hooks.
 */

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
