// A store a newer gateway build migrated (a rolling upgrade: N+1 migrates while N serves) still
// opens in this build, on both dialects: Kysely alone refuses it ("previously executed migration
// … is missing"), so an instance of the older version would crash on its next restart.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEFAULT_MIGRATION_TABLE, sql } from 'kysely';
import { openStore, pendingMigrations, type Store } from '../../src/store/database.js';
import { ensureOrganization, findOrganizationBySlug } from '../../src/store/organizations.js';
import { MIGRATION_NAMES } from '../../src/store/migrations/index.js';
import { dropSchema, storeKinds, type StoreKind } from '../support/gateway-harness.js';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function opener(kind: StoreKind): () => Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-newer-migrations-'));
  const schema = kind === 'postgres' ? `t_newer_${randomBytes(5).toString('hex')}` : undefined;
  cleanups.push(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  });
  return () =>
    openStore({
      dataDir,
      databaseUrl: kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined,
      schema,
    });
}

for (const kind of storeKinds()) {
  describe(`a store migrated by a newer build (${kind})`, () => {
    it('opens, reports no pending migration of its own, and serves its data', async () => {
      const open = opener(kind);
      const first = await open();
      await ensureOrganization(first, 'before-upgrade', 'Before');
      // What version N+1 leaves behind: its migration recorded, and the table it added.
      await sql`insert into ${sql.table(DEFAULT_MIGRATION_TABLE)} (name, timestamp) values (${'999-from-a-newer-build'}, ${new Date().toISOString()})`.execute(
        first.db,
      );
      await sql`create table newer_build_things (id text primary key)`.execute(first.db);
      await first.close();

      const reopened = await open();
      try {
        assert.deepEqual(await pendingMigrations(reopened), []);
        assert.ok(await findOrganizationBySlug(reopened, 'before-upgrade'));
        const applied = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(
          reopened.db,
        );
        assert.equal(applied.rows.length, MIGRATION_NAMES.length + 1, 'nothing run again, nothing removed');
      } finally {
        await reopened.close();
      }
    });
  });
}
