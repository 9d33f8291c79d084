/**
 * Group-commit batching of one statement (bench/README.md "Where the time goes"): an item waits only while
 * an earlier batch is running, then goes into the next run together with every item that arrived
 * meanwhile, so concurrent callers share one database round trip instead of queueing for one each. With no
 * batch running an item is sent at once: batching adds no wait when the endpoint is idle.
 *
 * Used by the audit rows (src/runtime/audit.ts: one multi-row insert per batch) and the /mcp admission
 * (src/mcp/admission.ts: one statement counts and authenticates every request of the batch).
 */

/** Submits items; each resolves with its own result from the run of its batch. */
export interface Batcher<I, O> {
  /**
   * Adds `item` to the next batch.
   * @returns the result `run` gave for it.
   * @throws the error `run` threw for its batch (every item of that batch gets it).
   */
  submit(item: I): Promise<O>;
}

interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Creates a batcher that runs `run` on at most `maxBatch` items at a time, one batch after the other.
 * `run` receives the items in submission order and must return one result per item, in the same order.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, maxBatch: number): Batcher<I, O> {
  const waiting: Array<Waiting<I, O>> = [];
  let running = false;
  const drain = async (): Promise<void> => {
    running = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.splice(0, maxBatch);
        try {
          const results = await run(batch.map((w) => w.item));
          if (results.length !== batch.length)
            throw new Error(`batch run returned ${results.length} results for ${batch.length} items`);
          for (const [i, w] of batch.entries()) w.resolve(results[i] as O);
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      running = false;
    }
  };
  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!running) void drain();
      });
    },
  };
}
