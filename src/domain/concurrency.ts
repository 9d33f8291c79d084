/**
 * Bounded concurrency for work that waits on a provider (docs/providers.md "Media stack: slides and images":
 * images generated in parallel, `AI_IMAGE_CONCURRENCY`). No dependency: a limiter is a counter and a FIFO of
 * waiting starts.
 * - `createLimiter(n)`: at most `n` turns at once (`acquire` / `run`), waiting ones served in arrival order;
 * - `mapWithConcurrency(items, n, fn)`: `fn` over every item, at most `n` at once, results in item order.
 *   After the first rejection no new item is started; the items already running are awaited (so that what
 *   they finish, e.g. a slide's checkpoint, is written) and then the first error is thrown.
 */

/** At most `limit` holders at once; the others wait their turn in arrival order. */
export interface Limiter {
  /** Waits for a turn. @returns the function that ends the turn (call it once, e.g. in `finally`). */
  acquire(): Promise<() => void>;
  /** Runs `fn` in a turn of its own. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** A limiter of `limit` (an integer >= 1) concurrent turns. @throws RangeError for another limit. */
export function createLimiter(limit: number): Limiter {
  checkLimit(limit);
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  const acquire = async () => {
    if (running < limit) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };
  return {
    acquire,
    async run(fn) {
      const end = await acquire();
      try {
        return await fn();
      } finally {
        end();
      }
    },
  };
}

function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer >= 1: ${limit}`);
}

/**
 * Maps `items` through `fn` (given the item and its index) with at most `limit` calls in flight.
 * @returns the results in the order of `items`.
 * @throws the first error of `fn`, once every call already started has settled; later items are not started.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  checkLimit(limit);
  const results = new Array<R>(items.length);
  let next = 0;
  let failed: { error: unknown } | undefined;
  const lane = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failed) throw failed.error;
  return results;
}
