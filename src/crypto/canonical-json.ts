/**
 * Canonical JSON: object keys sorted (recursively), no whitespace, `undefined` members dropped as
 * JSON.stringify does. Two values are "the same" exactly when their canonical JSON is equal; used for the
 * idempotency argument hash (src/runtime/idempotency.ts) and content fingerprints
 * (src/domain/social/content.ts).
 */
import { sha256 } from "./seal.ts";

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** SHA-256 (hex) of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  return sha256(canonicalJson(value));
}
