/**
 * Per-workspace media storage quota by plan (operator-configurable: STORAGE_QUOTA_<PLAN>_BYTES, see
 * src/config/media.ts): the bytes of a workspace's live media assets may not exceed the quota of the workspace
 * owner's plan. Checked when an upload is recorded, under a lock of the workspace row so that two
 * concurrent uploads cannot both pass.
 */
import type { Knex } from "../../db/knex.ts";
import { userPlan } from "../account/accounts.ts";
import type { Plan } from "../account/plans.ts";

/** Refused: recording `bytes` more would exceed the workspace's quota. The message is safe to show. */
export class StorageQuotaError extends Error {
  override name = "StorageQuotaError";
  readonly plan: Plan;
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly bytes: number;
  constructor(plan: Plan, usedBytes: number, quotaBytes: number, bytes: number) {
    super(
      `This workspace's media storage is full for the ${plan} plan: ${formatBytes(usedBytes)} of ${formatBytes(quotaBytes)} used, and the file is ${formatBytes(bytes)}; delete media or upgrade the plan`,
    );
    this.plan = plan;
    this.usedBytes = usedBytes;
    this.quotaBytes = quotaBytes;
    this.bytes = bytes;
  }
}

/** Bytes as a short human string (binary units). */
export function formatBytes(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Bytes of the workspace's live (not deleted) media assets. */
export async function workspaceStorageBytes(db: Knex, workspaceId: string): Promise<number> {
  const row = await db("media_assets")
    .where({ workspace_id: workspaceId })
    .whereNull("deleted_at")
    .sum({ total: "bytes" })
    .first();
  return Number(row?.total ?? 0);
}

/**
 * Locks the workspace row and checks that `bytes` more fit in its quota. Call inside the transaction that
 * records the asset.
 * @param quotas bytes per plan (config `media.storageQuotaBytes`).
 * @throws StorageQuotaError when they do not fit; Error for an unknown workspace.
 */
export async function assertStorageRoom(
  trx: Knex.Transaction,
  workspaceId: string,
  bytes: number,
  quotas: Record<Plan, number>,
): Promise<void> {
  const ws = await trx("workspaces").where({ id: workspaceId }).forUpdate().first("owner_user_id");
  if (!ws) throw new Error("unknown workspace");
  const plan = await userPlan(trx, ws.owner_user_id);
  const used = await workspaceStorageBytes(trx, workspaceId);
  if (used + bytes > quotas[plan]) throw new StorageQuotaError(plan, used, quotas[plan], bytes);
}
