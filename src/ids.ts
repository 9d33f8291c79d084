/** Identifier syntax shared by every layer (RFC 9562 UUIDs: the ids of records, tokens and clients). */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID of any version (ids from arguments are checked before they reach SQL). */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}
