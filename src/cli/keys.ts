/**
 * Operator command `admin keys reseal` (README "Rotating the application key"): re-seals every sealed
 * column of every row (src/crypto/seal.ts SEALED_COLUMNS) with the newest application key and its row
 * binding: values sealed with an older key of APP_ENCRYPTION_KEYS, and v1 values sealed before bindings
 * existed. Values already sealed (v2) with the newest key are left alone, so the command can be run again
 * at any time and resumes where it stopped. Each row is updated only if its value is still the one read
 * (a concurrent write, which seals with the newest key anyway, wins). A value no configured key opens is
 * reported (table, column, row id), never printed, and left as it is.
 */
import type { AppContext } from "../context.ts";
import { rowBinding, SEALED_COLUMNS, type SealedTable, type Sealer } from "../crypto/seal.ts";
import type { Knex } from "../db/knex.ts";
import { UsageError } from "./args.ts";

export const KEYS_USAGE = "admin keys reseal";

/** Rows read per page. */
const PAGE = 500;

/** The primary key columns of each table with sealed columns (a composite key is bound as `a/b/c`). */
export const PRIMARY_KEYS: Record<SealedTable, readonly string[]> = {
  operations: ["id"],
  idempotency_records: ["grant_id", "tool", "key_hash"],
  carousel_runs: ["id"],
  carousel_slides: ["id"],
  social_accounts: ["id"],
  social_connect_states: ["id"],
};

export interface ResealReport {
  /** The key every value is now sealed with. */
  key_id: string;
  /** Values re-sealed, by `table.column`. */
  resealed: Record<string, number>;
  /** Values that were already sealed with the newest key. */
  current: number;
  /** Values no configured key could open (left as they are), at most 50 listed. */
  unreadable: Array<{ table: string; column: string; id: string }>;
  unreadable_count: number;
}

/**
 * Re-seals every sealed value with `sealer`'s newest key (see the module comment).
 * @returns what was done.
 */
export async function resealAll(db: Knex, sealer: Sealer): Promise<ResealReport> {
  const report: ResealReport = {
    key_id: sealer.keyId,
    resealed: {},
    current: 0,
    unreadable: [],
    unreadable_count: 0,
  };
  for (const table of Object.keys(SEALED_COLUMNS) as SealedTable[]) {
    const pk = PRIMARY_KEYS[table];
    for (const column of SEALED_COLUMNS[table]) {
      let after: Knex.Value[] | undefined;
      report.resealed[`${table}.${column}`] = 0;
      for (;;) {
        const q = db(table)
          .whereNotNull(column)
          .orderBy(pk.map((c) => ({ column: c })))
          .limit(PAGE)
          .select([...pk, column]);
        if (after)
          q.whereRaw(`(${pk.map(() => "??").join(", ")}) > (${pk.map(() => "?").join(", ")})`, [
            ...pk,
            ...after,
          ]);
        const rows: Array<Record<string, unknown>> = await q;
        if (rows.length === 0) break;
        after = pk.map((c) => rows[rows.length - 1]![c] as Knex.Value);
        for (const row of rows) {
          const sealed = row[column] as string;
          const described = sealer.describe(sealed);
          if (described?.version === "v2" && described.keyId === sealer.keyId) {
            report.current += 1;
            continue;
          }
          const id = pk.map((c) => String(row[c])).join("/");
          const binding = rowBinding(table, column as never, id);
          let value: unknown;
          try {
            value = sealer.open(sealed, binding);
          } catch {
            report.unreadable_count += 1;
            if (report.unreadable.length < 50) report.unreadable.push({ table, column, id });
            continue;
          }
          const where = Object.fromEntries(pk.map((c) => [c, row[c]]));
          const n = await db(table)
            .where(where)
            .where(column, sealed)
            .update({
              [column]: sealer.seal(value, binding),
              ...(table === "operations" ? { key_id: sealer.keyId } : {}),
            });
          report.resealed[`${table}.${column}`]! += n;
        }
      }
    }
  }
  return report;
}

/**
 * Runs `admin keys <verb>`. @returns the reseal report.
 * @throws UsageError for another verb or a missing service context.
 */
export async function runKeysAdmin(argv: string[], app?: AppContext): Promise<ResealReport> {
  const [verb, ...rest] = argv;
  if (verb !== "reseal" || rest.length > 0) throw new UsageError(`usage: ${KEYS_USAGE}`);
  if (!app) throw new UsageError("admin keys reseal needs the service context (run it through the CLI)");
  return resealAll(app.db, app.sealer);
}
