/**
 * The media library (service spec 1.7 "Media", 2.7 "media asset"): owned images and videos. An asset id is
 * the database id, never a path; the storage key stays internal. Media enter through the browser upload
 * (src/web/media.ts) or generation; tools only read them.
 */
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { pick, pickOrNull } from "../../db/rows.ts";
import { notFoundAt, ToolError } from "../../errors.ts";
import { keysetPage, pageSize, rankedPage, type SearchRequest, searchPage } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { ALT_TEXT_MAX_LENGTH } from "./alt-text.ts";

export type MediaKind = "image" | "video";

/** The public projection of a media asset. */
export interface MediaAsset {
  asset_id: string;
  kind: MediaKind;
  mime_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  labels: string[];
  title: string | null;
  /** What a screen reader says in place of the image, or a video's description (./alt-text.ts); null: none. */
  alt_text: string | null;
  created_at: string;
}

export interface MediaPage<T = MediaAsset> {
  items: T[];
  next_cursor: string | null;
}

const COLUMNS = [
  "id",
  "kind",
  "mime_type",
  "bytes",
  "width",
  "height",
  "duration_seconds",
  "labels",
  "title",
  "alt_text",
  "created_at",
];

/** Maps a media_assets row to the public projection. */
export function toMediaAsset(row: Record<string, any>): MediaAsset {
  return {
    asset_id: row.id,
    ...pick(row, ["kind", "mime_type"]),
    bytes: Number(row.bytes),
    ...pickOrNull(row, ["width", "height"]),
    duration_seconds:
      row.duration_seconds === null || row.duration_seconds === undefined
        ? null
        : Number(row.duration_seconds),
    labels: Array.isArray(row.labels) ? row.labels : [],
    title: row.title ?? null,
    alt_text: row.alt_text ?? null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

function owned(db: Knex, owner: Owner) {
  return db("media_assets").where(ownedBy(owner)).whereNull("deleted_at");
}

/**
 * Lists the owner's media, newest first. `limit` 1..50 (default 20); `cursor` from a previous page.
 * @throws ToolError validation_failed for a bad limit or cursor.
 */
export async function listMedia(
  db: Knex,
  owner: Owner,
  opts: { limit?: number | undefined; cursor?: string | undefined; kind?: MediaKind | undefined } = {},
): Promise<MediaPage> {
  const limit = pageSize(opts.limit);
  const q = owned(db, owner).select(COLUMNS);
  if (opts.kind) q.where({ kind: opts.kind });
  const page = await keysetPage(db, q, { limit, cursor: opts.cursor });
  return { items: page.rows.map(toMediaAsset), next_cursor: page.next_cursor };
}

/** Search results are bounded: at most this many rows are reachable through cursors. */
export const MAX_SEARCH_RESULTS = 500;

/**
 * Full-text search over titles, original names and labels (`media_assets.search`, simple configuration),
 * ranked by ts_rank, then newest. The query uses web-search syntax (quotes, OR, -word).
 * @throws ToolError validation_failed for an empty query, a bad limit or cursor.
 */
export async function searchMedia(
  db: Knex,
  owner: Owner,
  opts: SearchRequest & { kind?: MediaKind | undefined },
): Promise<MediaPage<MediaAsset & { rank: number }>> {
  const page = searchPage(opts, MAX_SEARCH_RESULTS);
  const { query } = page;
  const q = owned(db, owner)
    .select(COLUMNS)
    .select(db.raw("ts_rank(search, websearch_to_tsquery('simple', ?)) as rank", [query]))
    .whereRaw("search @@ websearch_to_tsquery('simple', ?)", [query]);
  if (opts.kind) q.where({ kind: opts.kind });
  const ranked = await rankedPage<Record<string, any>>(q, page);
  return {
    items: ranked.rows.map((r) => ({ ...toMediaAsset(r), rank: Number(r.rank) })),
    next_cursor: ranked.next_cursor,
  };
}

/** One owned asset. @throws ToolError not_found for a missing, deleted or foreign asset. */
export async function getMedia(db: Knex, owner: Owner, assetId: string): Promise<MediaAsset> {
  if (!isUuid(assetId)) throw new ToolError("not_found", "media asset not found");
  const row = await owned(db, owner).where({ id: assetId }).first(COLUMNS);
  if (!row) throw new ToolError("not_found", "media asset not found");
  return toMediaAsset(row);
}

/**
 * Checks that every id is an owned, non-deleted asset of `kind` (when given), preserving order and
 * removing duplicates. `field` is the argument the ids came from (for the JSON pointer of a bad item).
 * @throws ToolError not_found at `/{field}/{index}` of the first id that is not the owner's (naming no foreign
 *   record); validation_failed at that pointer for a wrong kind.
 */
export async function requireOwnedAssets(
  db: Knex,
  owner: Owner,
  ids: string[],
  kind?: MediaKind,
  field = "media_asset_ids",
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const rows = await owned(db, owner).whereIn("id", unique.filter(isUuid)).select("id", "kind");
  const kinds = new Map<string, string>(rows.map((r: { id: string; kind: string }) => [r.id, r.kind]));
  for (const [i, id] of ids.entries()) {
    const found = kinds.get(id);
    if (found === undefined) throw notFoundAt("media asset", `/${field}/${i}`);
    if (kind && found !== kind)
      throw ToolError.validation(`${field}[${i}] must be an ${kind}, not a ${found}`, {
        path: `/${field}/${i}`,
        keyword: "kind",
        rule: `must be an ${kind}`,
        params: { allowed: kind },
      });
  }
  return unique;
}

export interface NewMediaAsset {
  kind: MediaKind;
  mimeType: string;
  bytes: number;
  width?: number | null;
  height?: number | null;
  durationSeconds?: number | null;
  /** Videos: frames per second and the ffprobe codec names of the streams (rules.ts checks them). */
  frameRate?: number | null;
  videoCodec?: string | null;
  audioCodec?: string | null;
  labels?: string[];
  title?: string | null;
  originalName?: string | null;
  storageKey: string;
  sha256?: string | null;
  source?: "upload" | "generated";
  /** What a screen reader says in place of the image (./alt-text.ts). */
  altText?: string | null | undefined;
}

/** Records a stored file as an asset of `owner`. Returns the public projection. */
export async function createMediaAsset(db: Knex, owner: Owner, input: NewMediaAsset): Promise<MediaAsset> {
  const [row] = await db("media_assets")
    .insert({
      user_id: owner.userId,
      workspace_id: owner.workspaceId,
      kind: input.kind,
      mime_type: input.mimeType,
      bytes: input.bytes,
      width: input.width ?? null,
      height: input.height ?? null,
      duration_seconds: input.durationSeconds ?? null,
      frame_rate: input.frameRate ?? null,
      video_codec: input.videoCodec ?? null,
      audio_codec: input.audioCodec ?? null,
      labels: JSON.stringify(input.labels ?? []),
      title: input.title ?? null,
      original_name: input.originalName ?? null,
      storage_key: input.storageKey,
      sha256: input.sha256 ?? null,
      source: input.source ?? "upload",
      alt_text: input.altText ?? null,
    })
    .returning(COLUMNS);
  return toMediaAsset(row);
}

/**
 * Sets or clears (`altText` null or blank) the alt text of one of the owner's live assets, as the media
 * library's form does (src/web/media.ts): trimmed, at most `ALT_TEXT_MAX_LENGTH` characters (./alt-text.ts).
 * @returns the asset with its new alt text.
 * @throws ToolError validation_failed (too long; nothing changed) or not_found (missing, deleted or foreign).
 */
export async function setMediaAltText(
  db: Knex,
  owner: Owner,
  assetId: string,
  altText: string | null,
): Promise<MediaAsset> {
  const text = checkMediaAltText(altText);
  if (!isUuid(assetId)) throw new ToolError("not_found", "media asset not found");
  const [row] = await owned(db, owner).where({ id: assetId }).update({ alt_text: text }).returning(COLUMNS);
  if (!row) throw new ToolError("not_found", "media asset not found");
  return toMediaAsset(row);
}

/**
 * An asset's alt text as given in the media library: trimmed, null when blank.
 * @throws ToolError validation_failed naming the length and `ALT_TEXT_MAX_LENGTH` when it is longer.
 */
export function checkMediaAltText(altText: string | null | undefined): string | null {
  const text = (altText ?? "").trim();
  if (text === "") return null;
  const length = [...text].length;
  if (length > ALT_TEXT_MAX_LENGTH)
    throw new ToolError(
      "validation_failed",
      `the alt text has ${length} characters; it may have at most ${ALT_TEXT_MAX_LENGTH}`,
      { path: "/alt_text" },
    );
  return text;
}

/**
 * The internal storage key and mime type of an asset `userId` created, in an active workspace they are
 * still a member of (for serving the file to its owner), or undefined.
 */
export async function mediaFileOfUser(
  db: Knex,
  userId: string,
  assetId: string,
): Promise<{ storageKey: string; mimeType: string; bytes: number } | undefined> {
  if (!isUuid(assetId)) return undefined;
  const row = await db("media_assets as a")
    .join("memberships as m", function () {
      this.on("m.workspace_id", "=", "a.workspace_id").andOn("m.user_id", "=", "a.user_id");
    })
    .join("workspaces as w", "w.id", "a.workspace_id")
    .where({ "a.id": assetId, "a.user_id": userId, "w.status": "active" })
    .whereNull("a.deleted_at")
    .first("a.storage_key", "a.mime_type", "a.bytes");
  return row ? { storageKey: row.storage_key, mimeType: row.mime_type, bytes: Number(row.bytes) } : undefined;
}

/**
 * The owner's live assets among `ids`, in the order given (missing, deleted or foreign ids are skipped):
 * what a post shows, for approval pages.
 */
export async function mediaInOrder(
  db: Knex,
  owner: Owner,
  ids: readonly string[],
): Promise<Array<{ kind: MediaKind; asset_id: string }>> {
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return [];
  const rows: Array<{ id: string; kind: MediaKind }> = await db("media_assets")
    .where(ownedBy(owner))
    .whereIn("id", valid)
    .whereNull("deleted_at")
    .select("id", "kind");
  const byId = new Map(rows.map((r) => [r.id, r.kind]));
  return valid.flatMap((id) => {
    const kind = byId.get(id);
    return kind ? [{ kind, asset_id: id }] : [];
  });
}
