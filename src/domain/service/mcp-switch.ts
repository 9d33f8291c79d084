/**
 * The MCP enabled flag (service spec 1.12 "MCP enabled by a flag", 3.1 "the MCP enabled flag is rechecked
 * before executing"), shared by every instance: the `mcp_enabled` row of `service_settings`, set by the
 * operator with `admin mcp enable|disable` (`admin mcp default` removes it), overrides the MCP_ENABLED
 * environment default (config `mcpEnabled`). So a worker started before the flag changed sees the change
 * at its next operation.
 *
 * - The worker's recheck before executing an operation reads the row every time (`readMcpEnabled`).
 * - The HTTP guards of /mcp and the OAuth routes ask `mcpEnabledNow`, which answers from a per-process copy
 *   refreshed in the background at most every REFRESH_SECONDS, so a change reaches every instance's
 *   endpoint within seconds without a database read per request.
 */
import type { AppContext } from "../../context.ts";
import type { Knex } from "../../db/knex.ts";

const KEY = "mcp_enabled";

/** How old the HTTP guards' copy of the flag may get, seconds. */
export const REFRESH_SECONDS = 2;

/** The flag: the row's value when set, else `fallback` (the environment default). */
export async function readMcpEnabled(db: Knex, fallback: boolean): Promise<boolean> {
  const row = await db("service_settings").where({ key: KEY }).first("value");
  return typeof row?.value === "boolean" ? row.value : fallback;
}

/**
 * Sets the flag for every instance (`enabled`), or removes the row so that each instance's MCP_ENABLED
 * applies again (`null`). @returns the stored value (null when removed).
 */
export async function setMcpEnabled(db: Knex, enabled: boolean | null, now: Date): Promise<boolean | null> {
  if (enabled === null) {
    await db("service_settings").where({ key: KEY }).delete();
    return null;
  }
  await db("service_settings")
    .insert({ key: KEY, value: JSON.stringify(enabled), updated_at: now })
    .onConflict("key")
    .merge();
  return enabled;
}

interface Copy {
  value: boolean;
  readAt: number;
  refreshing: boolean;
}
const copies = new WeakMap<AppContext, Copy>();

/**
 * The flag as this process last read it (the environment default before the first read); starts a
 * background refresh when the copy is older than REFRESH_SECONDS. Never throws, never waits: a failed
 * read keeps the last value.
 */
export function mcpEnabledNow(ctx: AppContext): boolean {
  let copy = copies.get(ctx);
  if (!copy) {
    copy = { value: ctx.config.mcpEnabled, readAt: 0, refreshing: false };
    copies.set(ctx, copy);
  }
  const now = Date.now();
  if (!copy.refreshing && now - copy.readAt >= REFRESH_SECONDS * 1000) {
    const c = copy;
    c.refreshing = true;
    readMcpEnabled(ctx.db, ctx.config.mcpEnabled).then(
      (value) => {
        c.value = value;
        c.readAt = Date.now();
        c.refreshing = false;
      },
      () => {
        c.readAt = Date.now();
        c.refreshing = false;
      },
    );
  }
  return copy.value;
}
