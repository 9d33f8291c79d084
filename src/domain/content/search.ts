/**
 * Content search (service spec 1.7 "bounded listing and search"): Postgres full-text search over post
 * titles (weight A) and captions (weight B) through the generated `posts.search` column (english
 * configuration, GIN index), ranked with ts_rank, then newest. The query uses web-search syntax
 * (`websearch_to_tsquery`: quotes, OR, -word), so no query text can break the SQL.
 */
import type { Knex } from "../../db/knex.ts";
import { rankedPage, type SearchRequest, searchPage } from "../cursor.ts";
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
  opts: SearchRequest & { status?: PostStatus | undefined; type?: PostType | undefined },
): Promise<{ items: SearchHit[]; next_cursor: string | null }> {
  const page = searchPage(opts, MAX_CONTENT_RESULTS);
  const { query } = page;
  const q = db("posts")
    .where(ownedBy(owner))
    .whereNull("deleted_at")
    .whereRaw("search @@ websearch_to_tsquery('english', ?)", [query])
    .select("*", db.raw("ts_rank(search, websearch_to_tsquery('english', ?)) as rank", [query]));
  if (opts.status) q.where({ status: opts.status });
  if (opts.type) q.where({ type: opts.type });
  const ranked = await rankedPage<Record<string, any>>(q, page);
  return {
    items: ranked.rows.map((r) => ({ ...toPostSummary(r), rank: Number(r.rank) })),
    next_cursor: ranked.next_cursor,
  };
}
