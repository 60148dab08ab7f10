import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';
import { startDatabaseProxy } from '../support/fault-kit.js';
import { dropSchema } from '../support/gateway-harness.js';

/**
 * pg-pool listens for a client's connection errors only while the client is idle in the pool.
 * A client checked out between two statements of a transaction has no listener then, and an
 * 'error' event without one is an uncaught exception: one database restart at that moment would
 * end the gateway process. Here it would end the test runner's process.
 */
describe(
  'PostgreSQL connection lost while a transaction holds it',
  { skip: process.env.GATEWAY_TEST_DATABASE_URL ? false : 'GATEWAY_TEST_DATABASE_URL is not set' },
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-pg-loss-'));
    const schema = `t_loss_${randomBytes(5).toString('hex')}`;
    after(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await dropSchema(schema);
    });

    it('fails that transaction, reports the error, and serves the next query on a new connection', async () => {
      const proxy = await startDatabaseProxy(process.env.GATEWAY_TEST_DATABASE_URL!);
      const reported: Error[] = [];
      const store = await openStore({
        dataDir,
        databaseUrl: proxy.url,
        schema,
        onConnectionError: (error) => reported.push(error),
      });
      try {
        const transaction = store.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          // The connection is lost between two statements: no query is running on it.
          await proxy.down();
          await delay(200);
          await sql`select 2`.execute(trx);
        });
        await assert.rejects(transaction);
        assert.ok(reported.length > 0, 'the lost connection is reported');
        await proxy.up();
        const again = await sql<{ one: number }>`select 1 as one`.execute(store.db);
        assert.equal(Number(again.rows[0]?.one), 1);
      } finally {
        await store.close();
        await proxy.close();
      }
    });
  },
);
