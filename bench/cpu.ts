/**
 * CPU and transaction counters of a benchmark run (bench/run.ts, bench/stages.ts): this node process
 * (`process.cpuUsage`), the PostgreSQL backends connected to the benchmark's database (utime + stime from
 * /proc/{pid}/stat, so only when PostgreSQL runs on this machine) and the database's transactions
 * (pg_stat_database: every statement outside a transaction is one, so this counts the round trips that
 * commit; exact only after the backends have been idle long enough to report, see `read`).
 */
import { readFile } from "node:fs/promises";
import type pg from "pg";

/** Linux clock ticks per second (`getconf CLK_TCK`), the unit of utime/stime in /proc/{pid}/stat. */
const CLK_TCK = 100;

/** A reading of the counters. */
export interface CpuReading {
  /** microseconds of user + system time of this process */
  nodeUs: number;
  /** seconds of CPU by backend pid */
  backends: Map<number, number>;
  /** committed + rolled-back transactions of the database so far */
  transactions: number;
}

/** What one measured span cost: per unit (request or call) when divided by `per`. */
export interface CpuSpent {
  nodeUs: number;
  /** NaN when no backend could be read (PostgreSQL on another machine) */
  pgUs: number;
  transactions: number;
}

/** Reads the counters of `dbName` through the admin connection `admin`. */
export class CpuProbe {
  /**
   * Wait that lets every idle backend report its transaction count (10 s + margin); `BENCH_SETTLE_MS`
   * shortens it for quick runs (the transactions per request are then undercounted; CPU is exact).
   */
  static readonly SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 11_000);
  private readonly admin: pg.Client;
  private readonly dbName: string;

  constructor(admin: pg.Client, dbName: string) {
    this.admin = admin;
    this.dbName = dbName;
  }

  /**
   * Takes a reading. `settleMs`: how long to wait first for idle backends to report their transaction
   * counts (PostgreSQL 15 flushes an idle backend's pending counts after 10 s at most: pgstat's
   * PGSTAT_IDLE_INTERVAL); CPU times need no wait.
   */
  async read(settleMs = 0): Promise<CpuReading> {
    await new Promise((r) => setTimeout(r, settleMs));
    await this.admin.query("select pg_stat_clear_snapshot()");
    const { rows } = await this.admin.query<{ n: string }>(
      "select xact_commit + xact_rollback as n from pg_stat_database where datname = $1",
      [this.dbName],
    );
    const nodeUs = process.cpuUsage();
    return {
      nodeUs: nodeUs.user + nodeUs.system,
      backends: await this.backendCpu(),
      transactions: Number(rows[0]?.n ?? 0),
    };
  }

  /** What was spent between two readings, divided by `per` (requests or calls). */
  static spent(before: CpuReading, after: CpuReading, per: number): CpuSpent {
    let pgSeconds = 0;
    for (const [pid, seconds] of after.backends) pgSeconds += seconds - (before.backends.get(pid) ?? 0);
    return {
      nodeUs: (after.nodeUs - before.nodeUs) / per,
      pgUs: after.backends.size > 0 ? (pgSeconds * 1e6) / per : Number.NaN,
      transactions: (after.transactions - before.transactions) / per,
    };
  }

  /** CPU seconds (user + system) of the PostgreSQL backends connected to the database, by pid. */
  private async backendCpu(): Promise<Map<number, number>> {
    const { rows } = await this.admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = $1",
      [this.dbName],
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
      if (!stat) continue;
      // Fields after the command name (which may contain spaces): utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / CLK_TCK);
    }
    return cpu;
  }
}
