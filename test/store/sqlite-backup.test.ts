import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore, sqliteFileOf } from '../../src/store/database.js';
import { backupSqlite, restoreSqlite, sqliteInUse } from '../../src/store/sqlite-backup.js';

/** The SQLite backup module on its own: what test/cli/backup-restore.test.ts does not reach. */
describe('SQLite backup and restore', () => {
  it('a store is in use while a connection has it open, and not once it is closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-inuse-'));
    try {
      const store = await openStore({ dataDir: dir });
      assert.equal(sqliteInUse(sqliteFileOf(dir)), true);
      await store.close();
      assert.equal(sqliteInUse(sqliteFileOf(dir)), false);
      assert.equal(sqliteInUse(join(dir, 'absent.sqlite')), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restore refuses a backup made by a newer gateway (a migration this version does not know) and leaves no store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-newer-'));
    try {
      const store = await openStore({ dataDir: join(dir, 'source') });
      await sql`insert into kysely_migration (name, timestamp) values ('999-from-the-future', '2030-01-01')`.execute(
        store.db,
      );
      const backupFile = join(dir, 'newer.backup');
      const copy = await backupSqlite(store.location, backupFile);
      await store.close();
      assert.equal(copy.migrations.at(-1), '999-from-the-future');

      const target = join(dir, 'gateway.sqlite');
      await assert.rejects(
        restoreSqlite(backupFile, target),
        /made by a newer gateway \(migrations 999-from-the-future\)/,
      );
      assert.equal(existsSync(target), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('backup of a data dir without a store fails and writes no file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-nostore-'));
    try {
      await assert.rejects(backupSqlite(sqliteFileOf(dir), join(dir, 'out.backup')), /no database at/);
      assert.equal(existsSync(join(dir, 'out.backup')), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
