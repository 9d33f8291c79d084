/**
 * The run's databases in memory: a PostgreSQL tablespace in a folder under /dev/shm (tmpfs) that holds the
 * template and, through it, every file's clone (test/run.ts; docs/testing.md, "How a run is put together").
 *
 * Why: a clone is a few hundred files created, and a drop a few hundred deleted. On the CI machines' root
 * file system (ext4 without a journal) the kernel skips recently deleted inodes when it allocates a new one
 * (`recently_deleted`, `find_inode_bit`), so with thousands of files deleted in the last minutes every file
 * created scans past them: `perf` put 7-8% of the whole machine's CPU there during a run, a clone cost
 * PostgreSQL 0.35-0.48 CPU-s and 0.4-0.6 s, against 0.02 CPU-s and 0.05 s on tmpfs. The SQL is the same; only
 * where the clones' files live changes. Nothing there outlives the run (and tmpfs not a reboot).
 *
 * Used only when the server can be given the folder: it runs on this machine (a loopback or socket address
 * whose `data_directory` exists here) as this process's user, or this process runs as root and hands the
 * folder to the server's user; the role may create tablespaces (a superuser); /dev/shm has 1 GiB free.
 * Otherwise the run keeps the server's default tablespace, as before (TEST_TABLESPACE=off asks for that too).
 */
import { chown, mkdtemp, rm, stat, statfs } from "node:fs/promises";
import type pg from "pg";
import { alive } from "./helpers/proc.ts";

/** A tablespace of this run (`smcp_test_<pid>`) and its folder. */
export interface MemoryTablespace {
  name: string;
  dir: string;
  /**
   * Drops what is left in the tablespace (databases of files that did not drop their own, then the
   * tablespace) and removes its folder. Errors are swallowed: the run's result does not depend on them.
   */
  drop(): Promise<void>;
}

/** Where tmpfs is mounted on Linux. */
const SHM = "/dev/shm";
/**
 * The least free space under /dev/shm for the run's databases, bytes: the template and a clone are about
 * 10 MB each, and a run holds up to a few dozen at once (a container's default /dev/shm of 64 MB is too small).
 */
const MIN_FREE_BYTES = 1024 ** 3;
/** The prefix of the runs' folders under /dev/shm (mkdtemp adds six characters). */
const FOLDER = "smcp-test-pg-";
/** The prefix of the run tablespaces' names; the run's pid follows. */
const PREFIX = "smcp_test_";

const LOOPBACK = new Set(["", "localhost", "127.0.0.1", "[::1]", "::1"]);

/** Drops every database in tablespace `name`, then the tablespace; errors are left to the caller. */
async function dropTablespace(admin: pg.Client, name: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    "select d.datname from pg_database d join pg_tablespace t on t.oid = d.dattablespace where t.spcname = $1",
    [name],
  );
  for (const { datname } of rows) await admin.query(`drop database if exists "${datname}" with (force)`);
  await admin.query(`drop tablespace if exists "${name}"`);
}

/**
 * Drops the tablespaces (and their databases) of earlier runs whose process is gone, and removes their
 * folders: a run that was killed left them (after a reboot the folders are gone already).
 */
async function dropAbandoned(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ spcname: string; location: string }>(
    "select spcname, pg_tablespace_location(oid) as location from pg_tablespace where spcname like $1",
    [`${PREFIX}%`],
  );
  for (const { spcname, location } of rows) {
    const pid = Number(spcname.slice(PREFIX.length));
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    await dropTablespace(admin, spcname).catch(() => {});
    if (location.startsWith(`${SHM}/${FOLDER}`)) await rm(location, { recursive: true, force: true });
  }
}

/**
 * Creates this run's tablespace in a new folder under /dev/shm and returns it, or undefined when the server
 * cannot have one here (see the module's comment); `admin` is a connected superuser session on `adminUrl`.
 */
export async function memoryTablespace(
  admin: pg.Client,
  adminUrl: string,
): Promise<MemoryTablespace | undefined> {
  if (process.env.TEST_TABLESPACE === "off" || process.platform !== "linux") return undefined;
  const url = new URL(adminUrl);
  const socket = new URLSearchParams(url.search).get("host")?.startsWith("/") ?? false;
  if (!socket && !LOOPBACK.has(url.hostname)) return undefined;
  const superuser = await admin.query<{ s: string }>("select current_setting('is_superuser') as s");
  if (superuser.rows[0]?.s !== "on") return undefined;
  const dataDir = (await admin.query<{ d: string }>("select current_setting('data_directory') as d")).rows[0]
    ?.d;
  const owner = dataDir ? await stat(dataDir).catch(() => undefined) : undefined;
  const shm = await statfs(SHM).catch(() => undefined);
  if (!owner || !shm || shm.bavail * shm.bsize < MIN_FREE_BYTES) return undefined;
  const uid = process.getuid?.();
  if (uid !== owner.uid && uid !== 0) return undefined;

  await dropAbandoned(admin);
  const dir = await mkdtemp(`${SHM}/${FOLDER}`);
  const name = `${PREFIX}${process.pid}`;
  try {
    if (uid !== owner.uid) await chown(dir, owner.uid, owner.gid);
    await admin.query(`create tablespace "${name}" location '${dir}'`);
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    name,
    dir,
    async drop() {
      await dropTablespace(admin, name).catch(() => {});
      await rm(dir, { recursive: true, force: true }).catch(() => {});
    },
  };
}
