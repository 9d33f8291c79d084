/**
 * The operation queue (service spec 3.1, DESIGN.md section 3): a pg-boss producer that sends one job per
 * dispatch of an operation to the `operations` queue, and one per carousel render to `carousel-render`.
 * Consuming is src/operations/worker.ts.
 */
import type { AppContext, OperationQueue } from "../context.ts";
import { withTraceparent } from "../observability/tracing.ts";
import { createBoss, ensureQueues, markBossStarted, OPERATIONS_QUEUE, RENDER_QUEUE } from "./boss.ts";

export interface StartedQueue {
  queue: OperationQueue;
  stop(): Promise<void>;
}

/**
 * Starts the queue client for `ctx` (does not consume jobs): installs or migrates the `pgboss` schema and
 * creates the queues. A job's data also carries the `traceparent` of the span that sent it while tracing is
 * on (src/observability/tracing.ts).
 * `queue.dispatch(operationId)` resolves with the pg-boss job id and rejects when the queue is unavailable
 * (the caller records `dispatch_failed`, src/domain/operations/dispatch.ts).
 * @throws when Postgres is unreachable at start.
 */
export async function startQueue(ctx: AppContext): Promise<StartedQueue> {
  const boss = createBoss(ctx, "producer");
  await boss.start();
  markBossStarted(ctx, boss);
  await ensureQueues(ctx, boss);
  let stopped = false;
  return {
    queue: {
      async dispatch(operationId: string): Promise<string> {
        if (stopped) throw new Error("queue stopped");
        const id = await boss.send(OPERATIONS_QUEUE, withTraceparent({ operation_id: operationId }));
        if (!id) throw new Error("queue refused the job");
        return id;
      },
      async dispatchRender(runId: string): Promise<string> {
        if (stopped) throw new Error("queue stopped");
        const id = await boss.send(RENDER_QUEUE, withTraceparent({ run_id: runId }));
        if (!id) throw new Error("queue refused the job");
        return id;
      },
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await boss.stop({ graceful: false, close: true });
    },
  };
}
