import { copyFileSync, existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { migrationProvider } from './migrations/index.js';

/** What a checked copy of the store holds: its size and the migrations it has run. */
export interface SqliteCopy {
  file: string;
  bytes: number;
  migrations: string[];
}

// One backup step for the whole file: SQLite restarts a stepwise backup whenever another
// connection writes, so under steady traffic a paced copy could restart forever. One step reads a
// single snapshot (WAL readers do not block the gateway's writers) and always finishes.
const WHOLE_FILE_IN_ONE_STEP = 0x7fffffff;

/**
 * Copies the live store file `source` into `target` as of one moment, while gateways keep writing
 * to it. The copy is checked before it takes the target's name, so a failed or interrupted backup
 * never leaves a file that looks like a backup.
 */
export async function backupSqlite(source: string, target: string): Promise<SqliteCopy> {
  if (!existsSync(source)) throw new Error(`no database at ${source}: check GATEWAY_DATA_DIR`);
  const partial = `${target}.partial-${process.pid}`;
  // Created 0600 before SQLite writes into it: the copy holds key digests and sealed keys, and is
  // never readable by others, not even for the moment before a chmod.
  writeFileSync(partial, '', { mode: 0o600, flag: 'wx' });
  try {
    const database = new SQLite(source, { fileMustExist: true });
    try {
      database.pragma('busy_timeout = 5000');
      await database.backup(partial, { progress: () => WHOLE_FILE_IN_ONE_STEP });
    } finally {
      database.close();
    }
    const migrations = checkSqliteCopy(partial);
    renameSync(partial, target);
    return { file: target, bytes: statSync(target).size, migrations };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Whether another connection has the store file open (a running gateway). SQLite's last
 * connection to a WAL database deletes the -wal file when it closes (sqlite.org/wal.html), so a
 * -wal file that outlives our own short connection belongs to someone else's.
 */
export function sqliteInUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const database = new SQLite(file, { fileMustExist: true });
  try {
    database.pragma('busy_timeout = 5000');
    database.prepare('select count(*) from sqlite_master').get();
  } finally {
    database.close();
  }
  return existsSync(`${file}-wal`);
}

/**
 * Puts the backup `backup` in place as the store file `target`, which no gateway may have open
 * (see sqliteInUse). The backup file itself is only read: a copy of it is checked next to the
 * target, then renamed over it, so the target is either the old database or the whole checked one.
 */
export async function restoreSqlite(backup: string, target: string): Promise<SqliteCopy> {
  if (!existsSync(backup)) throw new Error(`no backup file at ${backup}`);
  const incoming = `${target}.restore-${process.pid}`;
  copyFileSync(backup, incoming);
  try {
    const migrations = checkSqliteCopy(incoming);
    const unknown = await unknownMigrations(migrations);
    if (unknown.length > 0)
      throw new Error(
        `${backup} was made by a newer gateway (migrations ${unknown.join(', ')}): restore it with that version`,
      );
    // A -wal file left by the old database would be replayed into the restored one.
    for (const leftover of [`${target}-wal`, `${target}-shm`]) rmSync(leftover, { force: true });
    renameSync(incoming, target);
    return { file: target, bytes: statSync(target).size, migrations };
  } catch (error) {
    rmSync(incoming, { force: true });
    for (const side of [`${incoming}-wal`, `${incoming}-shm`]) rmSync(side, { force: true });
    throw error;
  }
}

/**
 * The copy is whole (PRAGMA integrity_check) and a gateway store this version can run: every
 * migration it has run is one this version knows (older stores are migrated at the next start).
 */
function checkSqliteCopy(file: string): string[] {
  let database: SQLite.Database;
  try {
    database = new SQLite(file, { fileMustExist: true });
  } catch (error) {
    throw new Error(`${file} is not an SQLite database: ${(error as Error).message}`);
  }
  try {
    const problems = checkIntegrity(database, file);
    if (problems.length > 0) throw new Error(`${file} is damaged (integrity_check): ${problems.join('; ')}`);
    return migrationsRun(database, file);
  } finally {
    database.close();
  }
}

function checkIntegrity(database: SQLite.Database, file: string): string[] {
  let rows: Array<{ integrity_check: string }>;
  try {
    rows = database.pragma('integrity_check') as Array<{ integrity_check: string }>;
  } catch (error) {
    throw new Error(`${file} is not a readable SQLite database: ${(error as Error).message}`);
  }
  return rows.map((row) => row.integrity_check).filter((message) => message !== 'ok');
}

function migrationsRun(database: SQLite.Database, file: string): string[] {
  const table = database
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .get();
  if (!table) throw new Error(`${file} is not a gateway store: it has no migration table`);
  const rows = database.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>;
  return rows.map((row) => row.name);
}

/** Migrations of `names` this version does not know: a store made by a newer gateway. */
async function unknownMigrations(names: readonly string[]): Promise<string[]> {
  const known = await migrationProvider.getMigrations();
  return names.filter((name) => !(name in known));
}
