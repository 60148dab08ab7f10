import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createRequire } from 'node:module';
import type { Database } from './schema.js';
import { KNOWN_MIGRATIONS, MIGRATION_NAMES } from './migrations/index.js';
import { toleratingNewerMigrations } from './migrations/newer-migrations.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { startSqliteCheckpointerOnWrites } from './sqlite-checkpointer.js';

// The PostgreSQL driver (~14 MB resident) is loaded only by a gateway that uses PostgreSQL.
let postgresDriver: typeof import('pg') | undefined;
function loadPostgresDriver(): typeof import('pg') {
  if (!postgresDriver) {
    postgresDriver = createRequire(import.meta.url)('pg') as typeof import('pg');
    // int8 (bigint) columns hold millisecond times and micro-USD amounts, all far below 2^53.
    postgresDriver.types.setTypeParser(20, (value: string) => Number(value));
    // numeric appears only as the result of SUM() over bigints.
    postgresDriver.types.setTypeParser(1700, (value: string) => Number(value));
  }
  return postgresDriver;
}

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly location: string;
  /**
   * SQLite only: the connection under `db`, for a hot-path write that can run as one synchronous
   * transaction (better-sqlite3 is synchronous; Kysely's async transaction around it costs about
   * as much as SQLite's own work). Use it only while `inTransaction` is false: a Kysely
   * transaction may be open on it across an `await`, and a write then belongs behind it in `db`.
   */
  readonly sqlite?: SQLite.Database;
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to use (created if missing); lets tests and tenants share one database. */
  schema?: string | undefined;
  poolSize?: number;
  /** A pooled PostgreSQL connection that failed while idle (server restart, network reset); it is dropped and replaced on next use. */
  onConnectionError?: (error: Error) => void;
  /** SQLite: WAL checkpoints in a worker thread instead of on the committing event loop (`gateway serve`). */
  backgroundCheckpoints?: boolean;
  /** A background checkpoint that failed (the next one tries again). */
  onCheckpointError?: (message: string) => void;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const store = options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options.dataDir, options);
  try {
    await migrate(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** A connection to an SQLite file with the settings the store runs with. */
export function openSqliteConnection(file: string): SQLite.Database {
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // better-sqlite3 builds SQLite with a 16 MB page cache; a bulk read (a 1M-row usage export)
  // fills all of it and it stays resident. SQLite's own default, 2 MB, is plenty for the request
  // path's writes, which touch a few pages at the right edge of each index (docs/decisions.md).
  database.pragma('cache_size = -2000');
  return database;
}

/** The store's SQLite file inside a data dir: `serve`, `admin backup` and `admin restore` agree on it. */
export function sqliteFileOf(dataDir: string): string {
  return join(dataDir, 'gateway.sqlite');
}

function openSqlite(
  dataDir: string,
  options: Pick<StoreOptions, 'backgroundCheckpoints' | 'onCheckpointError'>,
): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = sqliteFileOf(dataDir);
  const database = openSqliteConnection(file);
  const cachedConnection = withStatementCache(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedConnection }) });
  const checkpointer = options.backgroundCheckpoints
    ? startSqliteCheckpointerOnWrites(database, file, { onError: options.onCheckpointError })
    : undefined;
  const close = async () => {
    await checkpointer?.stop();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', location: file, sqlite: cachedConnection, close };
}

function openPostgres(url: string, options: StoreOptions): Store {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`database schema name "${schema}" must match [a-z_][a-z0-9_]*`);
  }
  const pool = new (loadPostgresDriver().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A database that accepts connections but never answers, or a pool whose connections are all
    // busy, fails the query after this instead of holding the request forever.
    connectionTimeoutMillis: 5_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // Without a listener, pg-pool's 'error' for an idle client that lost its connection is an
  // unhandled 'error' event: one database restart would kill every gateway process.
  pool.on('error', (error) => options.onConnectionError?.(error));
  // pg-pool listens for a client's errors only while it is idle in the pool. Checked out between
  // two statements of a transaction, a client that loses its connection emits 'error' with no
  // listener: an uncaught exception that would end the process. Its next statement fails instead.
  // Idle clients' errors reach the pool's 'error' above; report only those of checked-out ones.
  const checkedOut = new WeakSet<object>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('connect', (client) =>
    client.on('error', (error) => {
      if (checkedOut.has(client)) options.onConnectionError?.(error);
    }),
  );
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const location = url.replace(/\/\/[^@/]*@/, '//***@');
  return {
    db,
    dialect: 'postgres',
    location: schema ? `${location} (schema ${schema})` : location,
    close: () => db.destroy(),
  };
}

/**
 * The migrations of this build the store has not applied, read with one query on Kysely's
 * bookkeeping table: the readiness check (server/readiness.ts) that the store answers, and that
 * no one rolled its schema back under a running process.
 */
export async function pendingMigrations(store: Store): Promise<string[]> {
  const applied = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(store.db);
  const names = new Set(applied.rows.map((row) => row.name));
  return MIGRATION_NAMES.filter((name) => !names.has(name));
}

async function migrate(store: Store): Promise<void> {
  if (store.dialect === 'postgres') return migratePostgres(store);
  // Kysely runs SQLite migrations outside any transaction and without a lock, so two processes
  // opening a fresh file at once would both create the tables. One IMMEDIATE transaction on the
  // store's single connection serialises them (busy_timeout waits for the other writer) and
  // makes a migration all-or-nothing.
  await store.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      await runMigrator(connection, undefined);
      await sql`commit`.execute(connection);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Several processes may start at once on a fresh schema. Kysely serialises the migrations
 * themselves with an advisory lock, but the schema and bookkeeping tables are created before
 * that lock; a process that loses such a race (seen under load as "schema … does not exist")
 * simply tries again, and then finds the work done.
 */
async function migratePostgres(store: Store): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runMigrator(store.db, await ensurePostgresSchema(store));
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 100));
    }
  }
}

/**
 * The schema the store's tables live in, created if search_path names one that does not exist.
 * Migrations are pinned to it: without `migrationTableSchema`, Kysely looks for its own tables in
 * every schema of the database, so a second deployment (or test run) in another schema of the
 * same database would skip creating them and fail.
 */
async function ensurePostgresSchema(store: Store): Promise<string> {
  const current = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(store.db);
  const existing = current.rows[0]?.schema;
  if (existing) return existing;
  const wanted = await sql<{ search_path: string }>`show search_path`.execute(store.db);
  const name = wanted.rows[0]?.search_path
    .split(',')[0]
    ?.trim()
    .replace(/^"(.*)"$/, '$1');
  if (!name) throw new Error('PostgreSQL search_path names no schema');
  try {
    await sql`create schema if not exists ${sql.id(name)}`.execute(store.db);
  } catch (error) {
    // Two processes creating the same schema at once: PostgreSQL reports a unique violation to one.
    const found = await sql`select 1 from pg_namespace where nspname = ${name}`.execute(store.db);
    if (found.rows.length === 0) throw error;
  }
  return name;
}

/**
 * The names of the migrations the store ran, read before the migrator (which refuses names it was
 * not given: newer-migrations.ts); none on a fresh store. PostgreSQL: a newer build migrating
 * between this read and the migrator's own fails this attempt, and migratePostgres tries again.
 */
async function executedMigrations(db: Kysely<Database>, schema: string | undefined): Promise<string[]> {
  const table = schema ? `${schema}.${DEFAULT_MIGRATION_TABLE}` : DEFAULT_MIGRATION_TABLE;
  // `schema` is set exactly on PostgreSQL (migratePostgres); SQLite has none.
  const exists = schema
    ? await sql`select 1 from pg_tables where schemaname = ${schema} and tablename = ${DEFAULT_MIGRATION_TABLE}`.execute(
        db,
      )
    : await sql`select 1 from sqlite_master where type = 'table' and name = ${DEFAULT_MIGRATION_TABLE}`.execute(db);
  if (exists.rows.length === 0) return [];
  const rows = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(db);
  return rows.rows.map((row) => row.name);
}

async function runMigrator(db: Kysely<Database>, schema: string | undefined): Promise<void> {
  const { provider } = toleratingNewerMigrations(KNOWN_MIGRATIONS, await executedMigrations(db, schema));
  const migrator = new Migrator({
    db,
    provider,
    // Numbers are reserved per piece of work and land out of order (007 after 008 and 009): a
    // store migrated before a lower number existed runs it then instead of refusing to start.
    allowUnorderedMigrations: true,
    // Names are `NNN-words`: plain code-unit order is their order. Kysely's default,
    // localeCompare, loads ICU's collation data at every start (~2.6 MB resident) for this.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`,
    );
  }
}
