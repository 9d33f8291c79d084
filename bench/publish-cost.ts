/**
 * What publishing costs per post in the publishing benchmark (bench/publish.ts), from the due minute to the
 * last delivery closed:
 * - the worker processes' CPU (utime + stime of /proc/{pid}/stat, Linux; proc(5));
 * - the PostgreSQL backends' CPU on the benchmark's database (the same /proc fields; only when PostgreSQL
 *   runs on this machine; backends that came and went between the readings are not counted);
 * - the SQL statements, when the server has the pg_stat_statements extension loaded and created in the
 *   admin database (https://www.postgresql.org/docs/15/pgstatstatements.html): their total and the most
 *   frequent ones, per post. The bench's own look every 500 ms (how many are open) is among them.
 */
import { readFile } from "node:fs/promises";
import pg from "pg";

/** Linux clock ticks per second (`getconf CLK_TCK`), the unit of utime/stime in /proc/{pid}/stat. */
const CLK_TCK = 100;

/** CPU seconds (user + system) of `pid`, or undefined when it is gone. */
async function cpuSeconds(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (!stat) return undefined;
  // Fields after the command name (which may contain spaces): utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** A reading of the counters. */
interface Reading {
  workers: number[];
  backends: Map<number, number>;
}

/** One statement's share: calls per post, mean ms, and the text (cut to 160 characters). */
export interface StatementShare {
  calls_per_post: number;
  mean_ms: number;
  query: string;
}

/** The cost per post between `start()` and `end(posts)`. */
export interface PublishCost {
  worker_cpu_ms_per_post: number;
  /** The workers' CPU while nothing was due (`idleFrom()` to `start()`: pg-boss's polls, the loops' looks). */
  worker_idle_cpu_ms_per_s: number | null;
  /** `worker_cpu_ms_per_post` less what the workers spend idle in as long. */
  worker_cpu_ms_per_post_above_idle: number | null;
  worker_cpu_s: number[];
  /**
   * The bench process's own CPU: the networks' fakes (with their contract checks) and the service's public
   * media pages (`/media/public/{asset}`) that the Instagram and Pinterest fakes pull; on the same cores.
   */
  harness_cpu_ms_per_post: number;
  pg_backend_cpu_ms_per_post: number | null;
  statements_per_post: number | null;
  top_statements: StatementShare[] | null;
}

/** Measures the workers `pids` and the database `dbName` through an admin connection to `adminUrl`. */
export class PublishCostProbe {
  private readonly admin: pg.Client;
  private readonly dbName: string;
  private readonly pids: number[];
  private statements = false;
  private before: Reading | undefined;
  private idle: { at: number; cpu: number } | undefined;
  private idleRate: number | undefined;
  private startedAt = 0;
  private harnessBefore: NodeJS.CpuUsage | undefined;

  constructor(adminUrl: string, dbName: string, pids: number[]) {
    this.admin = new pg.Client({ connectionString: adminUrl });
    this.dbName = dbName;
    this.pids = pids;
  }

  private async read(): Promise<Reading> {
    const workers = await Promise.all(this.pids.map(async (p) => (await cpuSeconds(p)) ?? 0));
    const { rows } = await this.admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = $1",
      [this.dbName],
    );
    const backends = new Map<number, number>();
    for (const { pid } of rows) {
      const s = await cpuSeconds(pid);
      if (s !== undefined) backends.set(pid, s);
    }
    return { workers, backends };
  }

  /** Marks the start of the workers' idle time (they run, nothing is due yet). */
  async idleFrom(): Promise<void> {
    const cpu = await Promise.all(this.pids.map(async (p) => (await cpuSeconds(p)) ?? 0));
    this.idle = { at: Date.now(), cpu: cpu.reduce((a, b) => a + b, 0) };
  }

  /** Connects, resets pg_stat_statements when it is there, takes the first reading. */
  async start(): Promise<void> {
    await this.admin.connect();
    try {
      await this.admin.query("select pg_stat_statements_reset()");
      this.statements = true;
    } catch {
      this.statements = false;
    }
    this.before = await this.read();
    this.harnessBefore = process.cpuUsage();
    this.startedAt = Date.now();
    if (this.idle) {
      const cpu = this.before.workers.reduce((a, b) => a + b, 0);
      this.idleRate = (cpu - this.idle.cpu) / ((this.startedAt - this.idle.at) / 1000);
    }
  }

  /** The second reading, divided by `posts`; closes the admin connection. */
  async end(posts: number): Promise<PublishCost> {
    const after = await this.read();
    const harness = process.cpuUsage(this.harnessBefore);
    const before = this.before!;
    const workerCpu = after.workers.map((s, i) => s - (before.workers[i] ?? 0));
    let pgSeconds = 0;
    for (const [pid, s] of after.backends)
      if (before.backends.has(pid)) pgSeconds += s - before.backends.get(pid)!;
    let statementsPerPost: number | null = null;
    let top: StatementShare[] | null = null;
    if (this.statements) {
      const { rows } = await this.admin.query<{ calls: string; mean: number; query: string }>(
        `select s.calls, s.mean_exec_time as mean, s.query from pg_stat_statements s
           join pg_database d on d.oid = s.dbid where d.datname = $1 order by s.calls desc`,
        [this.dbName],
      );
      const per = (n: number) => Math.round((n / posts) * 100) / 100;
      statementsPerPost = per(rows.reduce((sum, r) => sum + Number(r.calls), 0));
      top = rows.slice(0, 25).map((r) => ({
        calls_per_post: per(Number(r.calls)),
        mean_ms: Math.round(r.mean * 1000) / 1000,
        query: r.query.replace(/\s+/g, " ").slice(0, 160),
      }));
    }
    await this.admin.end();
    const total = workerCpu.reduce((a, b) => a + b, 0);
    const seconds = (Date.now() - this.startedAt) / 1000;
    const r1 = (n: number) => Math.round(n * 10) / 10;
    return {
      worker_cpu_ms_per_post: r1((total * 1000) / posts),
      worker_idle_cpu_ms_per_s: this.idleRate === undefined ? null : r1(this.idleRate * 1000),
      worker_cpu_ms_per_post_above_idle:
        this.idleRate === undefined ? null : r1(((total - this.idleRate * seconds) * 1000) / posts),
      worker_cpu_s: workerCpu.map((s) => Math.round(s * 10) / 10),
      harness_cpu_ms_per_post: r1((harness.user + harness.system) / 1000 / posts),
      pg_backend_cpu_ms_per_post:
        after.backends.size > 0 ? Math.round((pgSeconds * 1000 * 10) / posts) / 10 : null,
      statements_per_post: statementsPerPost,
      top_statements: top,
    };
  }
}
