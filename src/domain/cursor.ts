/**
 * Opaque list cursors (DESIGN.md section 4: lists take `limit` <= 50 and an opaque `cursor`).
 * A cursor is base64url(JSON) of the last row's exact `created_at` text (microsecond precision, as
 * Postgres prints it) and id, or of an offset for ranked lists. Decoding validates the shape strictly;
 * anything else is `validation_failed`. A cursor only narrows a query that is already owner-scoped.
 */
import { ToolError } from "../errors.ts";
import { isUuid } from "./owner.ts";

export interface KeysetCursor {
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)$/;

function bad(): ToolError {
  return new ToolError("validation_failed", "cursor is not valid; pass the next_cursor of a previous page", [
    {
      keyword: "format",
      instancePath: "/cursor",
      schemaPath: "#/properties/cursor",
      params: {},
      message: "invalid cursor",
    },
  ]);
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
export function pageSize(limit: number | undefined, def = 20, max = 50): number {
  if (limit === undefined) return def;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new ToolError("validation_failed", `limit must be an integer from 1 to ${max}`, [
      {
        keyword: "maximum",
        instancePath: "/limit",
        schemaPath: "#/properties/limit",
        params: { limit: max },
        message: `must be <= ${max}`,
      },
    ]);
  }
  return limit;
}
