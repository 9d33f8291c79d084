/**
 * Projections of rows and views: copy the named fields of an object into a new one under the same names
 * (database columns into a public view, a view into a tool's output, a tool's input into domain changes).
 * A field the projection renames or converts (ids, dates, numbers) is written out beside the copied ones.
 */

/** The fields `keys` of `row`, as they are (a missing field is copied as `undefined`), in the order of `keys`. */
export function pick<T extends object, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = row[k];
  return out;
}

/** The fields `keys` of `row`, each `null` where the row holds `null` or `undefined` (nullable columns). */
export function pickOrNull<T extends object, K extends keyof T>(
  row: T,
  keys: readonly K[],
): { [P in K]: NonNullable<T[P]> | null } {
  const out = {} as { [P in K]: NonNullable<T[P]> | null };
  for (const k of keys) out[k] = (row[k] ?? null) as NonNullable<T[typeof k]> | null;
  return out;
}
