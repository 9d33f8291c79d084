/**
 * Opaque list cursors (DESIGN.md section 4: lists take `limit` <= 50 and an opaque `cursor`).
 * A cursor is base64url(JSON) of the last row's exact `created_at` text (microsecond precision, as
 * Postgres prints it) and id, or of an offset for ranked lists. Decoding validates the shape strictly;
 * anything else is `validation_failed`. A cursor only narrows a query that is already owner-scoped.
 */
import { SPEC_LIMITS } from "../config/index.ts";
import { isUuid } from "../ids.ts";
import type { Knex } from "../db/knex.ts";
import { ToolError } from "../errors.ts";

export interface KeysetCursor {
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)$/;

function bad(): ToolError {
  return ToolError.validation("cursor is not valid; pass the next_cursor of a previous page", {
    path: "/cursor",
    keyword: "format",
    rule: "invalid cursor",
  });
}

function decodeJson(cursor: string): unknown {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw bad();
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
}

/** Encodes a keyset position (newest-first lists). */
export function encodeKeyset(c: KeysetCursor): string {
  return Buffer.from(JSON.stringify({ k: "ts", c: c.createdAt, i: c.id })).toString("base64url");
}

/** Decodes a keyset cursor. @throws ToolError validation_failed when malformed. */
export function decodeKeyset(cursor: string): KeysetCursor {
  const v = decodeJson(cursor) as { k?: unknown; c?: unknown; i?: unknown } | null;
  if (v?.k !== "ts" || typeof v.c !== "string" || !TIMESTAMP.test(v.c) || !isUuid(v.i)) throw bad();
  return { createdAt: v.c, id: v.i };
}

/** Encodes an offset (ranked lists such as search). */
export function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ k: "off", o: offset })).toString("base64url");
}

/** Decodes an offset cursor; offsets are bounded by `max`. @throws ToolError validation_failed. */
export function decodeOffset(cursor: string, max: number): number {
  const v = decodeJson(cursor) as { k?: unknown; o?: unknown } | null;
  if (v?.k !== "off" || !Number.isSafeInteger(v.o) || (v.o as number) < 0 || (v.o as number) > max)
    throw bad();
  return v.o as number;
}

/** Clamps a requested page size to 1..50 (default 20). */
export function pageSize(
  limit: number | undefined,
  def: number = SPEC_LIMITS.listPageSize.default,
  max: number = SPEC_LIMITS.listPageSize.max,
): number {
  if (limit === undefined) return def;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw ToolError.validation(`limit must be an integer from 1 to ${max}`, {
      path: "/limit",
      keyword: "maximum",
      params: { limit: max },
      rule: `must be <= ${max}`,
    });
  }
  return limit;
}

/** One page of rows and the opaque cursor of the next page (`null` on the last page). */
export interface Page<R> {
  rows: R[];
  next_cursor: string | null;
}

/** The column under which `keysetPage` selects a row's exact `created_at` text. */
const KEY = "created_key";

/**
 * Runs one newest-first keyset page of `q`: adds `created_at::text as created_key` to its select list,
 * narrows it to rows strictly before `page.cursor` by `(created_at, id)` when a cursor is given, orders by
 * `created_at desc, id desc`, fetches `page.limit + 1` rows and returns the first `page.limit` with the
 * cursor of the next page (`null` when no further row exists). `q` must already select the row's `id` and
 * carry every owner filter; `table` qualifies `created_at` and `id` (e.g. `"d"` for `deliveries as d`).
 * `page.limit` is already clamped (see `pageSize`).
 * @throws ToolError validation_failed for a malformed cursor (before any query runs).
 */
export async function keysetPage<R extends { id: string }>(
  db: Knex,
  q: Knex.QueryBuilder,
  page: { limit: number; cursor?: string | undefined },
  table?: string,
): Promise<Page<R & { created_key: string }>> {
  const createdAt = table ? `${table}.created_at` : "created_at";
  const id = table ? `${table}.id` : "id";
  q.select(db.raw(`??::text as ${KEY}`, [createdAt]));
  if (page.cursor) {
    const c = decodeKeyset(page.cursor);
    q.whereRaw("(??, ??) < (?::timestamptz, ?::uuid)", [createdAt, id, c.createdAt, c.id]);
  }
  const rows: Array<R & { created_key: string }> = await q
    .orderBy([
      { column: createdAt, order: "desc" },
      { column: id, order: "desc" },
    ])
    .limit(page.limit + 1);
  const out = rows.slice(0, page.limit);
  const last = out[out.length - 1];
  return {
    rows: out,
    next_cursor:
      rows.length > page.limit && last ? encodeKeyset({ createdAt: last.created_key, id: last.id }) : null,
  };
}

/** The options of a bounded full-text search (web-search syntax `query`; `limit`, `cursor` as in lists). */
export interface SearchRequest {
  query: string;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * Reads a search request whose results stop at row `max`: the trimmed query, the page size (see `pageSize`)
 * and the offset of the page (from an offset cursor, else 0), ready for `rankedPage`.
 * @throws ToolError validation_failed for a bad limit, an empty query or a bad cursor.
 */
export function searchPage(
  req: SearchRequest,
  max: number,
): { query: string; limit: number; offset: number; max: number } {
  const limit = pageSize(req.limit);
  const query = req.query.trim();
  if (!query) throw new ToolError("validation_failed", "query must not be empty");
  const offset = req.cursor ? decodeOffset(req.cursor, max) : 0;
  return { query, limit, offset, max };
}

/**
 * Runs one page of a ranked list (search): orders `q` by `rank desc, created_at desc, id desc`, skips
 * `page.offset` rows (from `decodeOffset`) and fetches at most `page.limit + 1`, never reaching past row
 * `page.max`. Returns the first rows of the page and an offset cursor when more rows are reachable.
 * Runs no query when the offset already is at `max`. `q` must select a numeric `rank` column.
 */
export async function rankedPage<R>(
  q: Knex.QueryBuilder,
  page: { limit: number; offset: number; max: number },
): Promise<Page<R>> {
  const take = Math.min(page.limit, page.max - page.offset);
  if (take <= 0) return { rows: [], next_cursor: null };
  const rows: R[] = await q
    .orderBy([
      { column: "rank", order: "desc" },
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .offset(page.offset)
    .limit(take + 1);
  const more = rows.length > take && page.offset + take < page.max;
  return { rows: rows.slice(0, take), next_cursor: more ? encodeOffset(page.offset + take) : null };
}
