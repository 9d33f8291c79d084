/**
 * Content search (service spec 1.7 "bounded listing and search"): Postgres full-text search over post
 * titles (weight A) and captions (weight B) through the generated `posts.search` column (english
 * configuration, GIN index), ranked with ts_rank, then newest. The query uses web-search syntax
 * (`websearch_to_tsquery`: quotes, OR, -word), so no query text can break the SQL.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { decodeOffset, pageSize, rankedPage } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { type PostStatus, type PostSummary, type PostType, toPostSummary } from "./posts.ts";

/** At most this many ranked results are reachable through cursors. */
export const MAX_CONTENT_RESULTS = 500;

export interface SearchHit extends PostSummary {
  /** ts_rank score, higher is better. */
  rank: number;
}

/**
 * Searches the owner's posts. `query` 1..200 characters; `limit` 1..50 (default 20).
 * @throws ToolError validation_failed for an empty query, a bad limit or cursor.
 */
export async function searchContent(
  db: Knex,
  owner: Owner,
  opts: {
    query: string;
    limit?: number | undefined;
    cursor?: string | undefined;
    status?: PostStatus | undefined;
    type?: PostType | undefined;
  },
): Promise<{ items: SearchHit[]; next_cursor: string | null }> {
  const limit = pageSize(opts.limit);
  const query = opts.query.trim();
  if (!query) throw new ToolError("validation_failed", "query must not be empty");
  const offset = opts.cursor ? decodeOffset(opts.cursor, MAX_CONTENT_RESULTS) : 0;
  const q = db("posts")
    .where(ownedBy(owner))
    .whereNull("deleted_at")
    .whereRaw("search @@ websearch_to_tsquery('english', ?)", [query])
    .select("*", db.raw("ts_rank(search, websearch_to_tsquery('english', ?)) as rank", [query]));
  if (opts.status) q.where({ status: opts.status });
  if (opts.type) q.where({ type: opts.type });
  const page = await rankedPage<Record<string, any>>(q, { limit, offset, max: MAX_CONTENT_RESULTS });
  return {
    items: page.rows.map((r) => ({ ...toPostSummary(r), rank: Number(r.rank) })),
    next_cursor: page.next_cursor,
  };
}
