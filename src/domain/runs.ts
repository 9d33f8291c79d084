/**
 * Statuses of generation runs (carousel runs and automation runs, service spec 2.7): a run is `queued`,
 * then `running`, then `succeeded` or `failed`.
 */
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
