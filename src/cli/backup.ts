import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSettings, type Settings } from '../config/settings.js';
import { loadMasterKeys, masterKeySource } from '../secrets/master-key.js';
import { Keyring } from '../secrets/keyring.js';
import { ApiKeyRepository } from '../store/api-keys.js';
import { openStore, sqliteFileOf } from '../store/database.js';
import { backupSqlite, restoreSqlite, sqliteInUse } from '../store/sqlite-backup.js';

/**
 * The PostgreSQL procedure (docs/scale-out.md, "Backups"): the gateway does not pretend to back up
 * a database it shares with other instances; PostgreSQL's own tools do it consistently.
 */
export function postgresProcedure(settings: Pick<Settings, 'databaseSchema'>): string {
  const schema = settings.databaseSchema ? ` --schema=${settings.databaseSchema}` : '';
  return [
    'DATABASE_URL is set: back up PostgreSQL with its own tools (docs/scale-out.md, "Backups"):',
    `  backup:  pg_dump --format=custom --no-owner${schema} --file=gateway.dump "$DATABASE_URL"`,
    '           (one consistent snapshot while the gateways keep serving)',
    `  restore: pg_restore --exit-on-error --no-owner --dbname="$NEW_DATABASE_URL" gateway.dump`,
    '           (into an empty database; then start the gateways with DATABASE_URL=$NEW_DATABASE_URL)',
    'Keep GATEWAY_SECRET_KEY with it: keys sealed with it cannot be revealed under another key.',
  ].join('\n');
}

const MASTER_KEY_WARNING = (dataDir: string) =>
  `warning: the backup does not contain the master key. Keep ${join(dataDir, 'secret.key')} (or ` +
  'GATEWAY_SECRET_KEY) safe and apart from it: restored keys still authenticate without it, but ' +
  'cannot be revealed, and whoever holds both can reveal every key.\n';

/** `gateway admin backup <file>`: a consistent copy of the SQLite store while the gateway serves. */
export async function backup(input: { file: string }): Promise<void> {
  const settings = readSettings();
  if (settings.databaseUrl) throw new Error(postgresProcedure(settings));
  const copy = await backupSqlite(sqliteFileOf(settings.dataDir), resolve(input.file));
  process.stdout.write(
    JSON.stringify({ backup: copy.file, bytes: copy.bytes, migration: copy.migrations.at(-1) ?? null }) + '\n',
  );
  process.stderr.write(MASTER_KEY_WARNING(settings.dataDir));
}

/**
 * `gateway admin restore <file> [--force]`: installs a backup as the data dir's store. A database
 * that a gateway has open is never replaced, --force included: swapping the file under a live
 * connection corrupts what it writes next. --force only allows replacing a stopped one.
 */
export async function restore(input: { file: string; force: boolean }): Promise<void> {
  const settings = readSettings();
  if (settings.databaseUrl) throw new Error(postgresProcedure(settings));
  const target = sqliteFileOf(settings.dataDir);
  if (sqliteInUse(target))
    throw new Error(`a gateway has ${target} open: stop it first (a database in use is never replaced)`);
  if (existsSync(target) && !input.force)
    throw new Error(`${target} exists: restore into a fresh GATEWAY_DATA_DIR, or pass --force to replace it`);
  const copy = await restoreSqlite(resolve(input.file), target);
  const masterKey = await checkMasterKey(settings);
  process.stdout.write(
    JSON.stringify({
      restored: copy.file,
      bytes: copy.bytes,
      migration: copy.migrations.at(-1) ?? null,
      master_key: masterKey,
    }) + '\n',
  );
  if (masterKey !== 'opens keys' && masterKey !== 'no sealed keys')
    process.stderr.write(
      `warning: master key ${masterKey}. Put the backed-up data dir's secret.key in ${settings.dataDir} ` +
        '(mode 0600) or set GATEWAY_SECRET_KEY before `gateway serve`: restored keys authenticate, but ' +
        'without their master key they cannot be revealed.\n',
    );
}

type MasterKeyState = 'opens keys' | 'no sealed keys' | 'missing' | 'does not open the restored keys';

/**
 * Never generates a key (loadMasterKey would, when none exists): a new key here would silently
 * make the restored keys unrevealable. Opening the store also migrates a backup of an older version.
 */
async function checkMasterKey(settings: Settings): Promise<MasterKeyState> {
  if (!settings.secretKey && !settings.secretKeyFile && !existsSync(join(settings.dataDir, 'secret.key')))
    return 'missing';
  const store = await openStore({ dataDir: settings.dataDir });
  try {
    const opens = await new ApiKeyRepository(
      store,
      new Keyring(loadMasterKeys(masterKeySource(settings))),
    ).masterKeyOpensKeys();
    if (opens === undefined) return 'no sealed keys';
    return opens ? 'opens keys' : 'does not open the restored keys';
  } finally {
    await store.close();
  }
}
