/** The operation queue on pg-boss (issue 5). Placeholder until the operations issue lands. */
import type { AppContext, OperationQueue } from "../context.ts";

export interface StartedQueue {
  queue: OperationQueue;
  stop(): Promise<void>;
}

/** Starts the queue client for `ctx` (does not consume jobs). */
export async function startQueue(_ctx: AppContext): Promise<StartedQueue> {
  return {
    queue: {
      dispatch: async () => {
        throw new Error("queue not available");
      },
    },
    stop: async () => {},
  };
}
