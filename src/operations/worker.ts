/** The operation worker (issue 5). Placeholder until the operations issue lands. */
import type { AppContext } from "../context.ts";

export interface StartedWorker {
  stop(): Promise<void>;
}

/** Starts consuming queued operations and the maintenance schedule. */
export async function startWorker(_ctx: AppContext): Promise<StartedWorker> {
  return { stop: async () => {} };
}
