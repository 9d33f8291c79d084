/**
 * The requests part of the MCP settings page (service spec 4.4 `GET /settings/integrations/mcp`):
 * per connection of a user, its pending approval requests and its recent operations with their
 * states. Rendering is the settings page's (src/web/); this returns plain data, every text still unescaped.
 */
import type { AppContext } from "../context.ts";
import {
  approvalUrl,
  type OperationRow,
  type OperationState,
  openDescription,
} from "../domain/operations/store.ts";
import { toolLookup } from "./tools.ts";

export interface RequestSummary {
  operation_id: string;
  tool: string;
  /** The tool's title (falls back to its name). */
  title: string;
  /** The approval description's one-sentence summary (review tools), else undefined. */
  summary: string | undefined;
  state: OperationState;
  error_code: string | null;
  created_at: Date;
  updated_at: Date;
  approval_expires_at: Date | null;
  /** The approval page; the place to approve or decline while `state` is `approval_required`. */
  url: string;
}

export interface ConnectionRequests {
  grant_id: string;
  client_name: string | null;
  revoked: boolean;
  /** `approval_required` and not expired, oldest first. */
  pending: RequestSummary[];
  /** Everything else, newest first, at most `recentLimit`. */
  recent: RequestSummary[];
}

/**
 * Pending and recent requests of `userId`, grouped by connection (connections with no operations are
 * omitted). `recentLimit` bounds the recent list per connection (default 20).
 */
export async function listRequestsForUser(
  ctx: AppContext,
  userId: string,
  options: { recentLimit?: number } = {},
): Promise<ConnectionRequests[]> {
  const limit = options.recentLimit ?? 20;
  const now = ctx.clock.now();
  const rows = (await ctx.db
    .select("o.*", "c.client_name", "g.revoked_at as grant_revoked_at")
    .from(
      ctx
        .db("operations")
        .select("*", ctx.db.raw("row_number() over (partition by grant_id order by created_at desc) as rn"))
        .where({ user_id: userId })
        .as("o"),
    )
    .join("oauth_grants as g", "g.id", "o.grant_id")
    .leftJoin("oauth_clients as c", "c.client_id", "o.client_id")
    .where((q) =>
      q
        .where("o.rn", "<=", limit + 50)
        .orWhere((p) => p.where("o.state", "approval_required").where("o.approval_expires_at", ">", now)),
    )
    .orderBy("o.created_at", "desc")) as Array<
    OperationRow & { client_name: string | null; grant_revoked_at: Date | null }
  >;
  let lookup: ((name: string) => { title: string } | undefined) | undefined;
  try {
    lookup = await toolLookup(ctx);
  } catch {
    lookup = undefined;
  }
  const byGrant = new Map<string, ConnectionRequests>();
  for (const row of rows) {
    let group = byGrant.get(row.grant_id);
    if (!group) {
      group = {
        grant_id: row.grant_id,
        client_name: row.client_name,
        revoked: Boolean(row.grant_revoked_at),
        pending: [],
        recent: [],
      };
      byGrant.set(row.grant_id, group);
    }
    const isPending =
      row.state === "approval_required" && (row.approval_expires_at?.getTime() ?? 0) > now.getTime();
    if (!isPending && group.recent.length >= limit) continue;
    const summary: RequestSummary = {
      operation_id: row.id,
      tool: row.tool,
      title: lookup?.(row.tool)?.title ?? row.tool,
      summary: openDescription(ctx, row)?.summary,
      state: row.state,
      error_code: row.error_code,
      created_at: row.created_at,
      updated_at: row.updated_at,
      approval_expires_at: row.approval_expires_at,
      url: approvalUrl(ctx, row.id),
    };
    if (isPending) group.pending.unshift(summary);
    else group.recent.push(summary);
  }
  return [...byGrant.values()];
}
