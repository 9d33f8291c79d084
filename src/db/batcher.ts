/**
 * Group-commit batching of one statement (bench/README.md "Where the time goes"): the items submitted in
 * one turn of the event loop go together (the run starts in the loop's check phase, `setImmediate`, after
 * that turn's I/O callbacks: requests whose database answers arrived together move on together), and
 * the items submitted while `maxInFlight` runs are under way wait for one of them to end, then go together
 * in the next. Concurrent callers share one database round trip instead of queueing for one each; an item
 * submitted while the process is idle waits only for the end of the current turn.
 *
 * Used by the /mcp admission (src/mcp/admission.ts: one statement counts and authenticates every request
 * of the batch), batched reads (src/db/batched-read.ts) and the audit rows (src/runtime/audit.ts: one
 * multi-row insert per batch).
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
 * Runs under way at once by default: two, so that a batch can start while the previous one's answer is
 * still being handled (measured against one and three in bench/README.md).
 */
export const DEFAULT_IN_FLIGHT = 2;

/**
 * Creates a batcher that runs `run` on at most `maxBatch` items at a time, with at most `maxInFlight`
 * runs under way. `run` receives the items in submission order and must return one result per item, in
 * the same order.
 */
export function createBatcher<I, O>(
  run: (items: I[]) => Promise<O[]>,
  maxBatch: number,
  maxInFlight = DEFAULT_IN_FLIGHT,
): Batcher<I, O> {
  const waiting: Array<Waiting<I, O>> = [];
  let inFlight = 0;
  let scheduled = false;
  const settle = (batch: Array<Waiting<I, O>>, results: O[]) => {
    if (results.length !== batch.length) {
      const err = new Error(`batch run returned ${results.length} results for ${batch.length} items`);
      for (const w of batch) w.reject(err);
    } else for (const [i, w] of batch.entries()) w.resolve(results[i] as O);
  };
  const start = (batch: Array<Waiting<I, O>>): void => {
    inFlight++;
    run(batch.map((w) => w.item)).then(
      (results) => {
        inFlight--;
        settle(batch, results);
        launch();
      },
      (err: unknown) => {
        inFlight--;
        for (const w of batch) w.reject(err);
        launch();
      },
    );
  };
  const launch = (): void => {
    scheduled = false;
    while (waiting.length > 0 && inFlight < maxInFlight) start(waiting.splice(0, maxBatch));
  };
  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!scheduled && inFlight < maxInFlight) {
          scheduled = true;
          setImmediate(launch);
        }
      });
    },
  };
}
