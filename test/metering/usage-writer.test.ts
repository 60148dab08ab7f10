import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { openStore, type Store } from '../../src/store/database.js';
import { UsageWriter } from '../../src/metering/usage-writer.js';
import { BudgetLedger } from '../../src/limits/budget-ledger.js';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';
import { spendOf, usageRecord } from '../support/usage-rows.js';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function freshStore(kind: 'sqlite' | 'postgres'): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-usage-writer-'));
  const schema = kind === 'postgres' ? `t_usage_${randomBytes(5).toString('hex')}` : undefined;
  const store = await openStore({
    dataDir,
    databaseUrl: kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined,
    schema,
  });
  cleanups.push(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  });
  return store;
}

async function rowsOf(store: Store, apiKeyId: string): Promise<string[]> {
  const rows = await store.db.selectFrom('usage_records').select('id').where('api_key_id', '=', apiKeyId).execute();
  return rows.map((r) => r.id).sort();
}

const quiet = pino({ level: 'silent' });

for (const kind of storeKinds()) {
  describe(`usage writer (${kind})`, () => {
    it('commits every row and adds each paying row’s cost to its key’s monthly spend', async () => {
      const store = await freshStore(kind);
      const writer = new UsageWriter(store, quiet);
      const records = [
        usageRecord('key-a', 100),
        usageRecord('key-a', 200),
        usageRecord('key-a', 0),
        usageRecord('key-b', 7),
      ];
      await Promise.all(records.map((record) => writer.write(record, true)));
      assert.deepEqual(
        await rowsOf(store, 'key-a'),
        records
          .slice(0, 3)
          .map((r) => r.id)
          .sort(),
      );
      assert.deepEqual(await spendOf(store, 'key-a'), { spent: 300, reserved: 0 });
      assert.deepEqual(await spendOf(store, 'key-b'), { spent: 7, reserved: 0 });
    });

    it('settles a reservation with its row: the reserve is released and the actual cost is spent', async () => {
      const store = await freshStore(kind);
      const writer = new UsageWriter(store, quiet);
      const ledger = new BudgetLedger(store, quiet);
      const reservation = await ledger.reserve('key-c', 10_000, 1_000);
      assert.ok(reservation, 'the reservation fits under the ceiling');
      assert.deepEqual(await spendOf(store, 'key-c'), { spent: 0, reserved: 1_000 });
      await writer.write(usageRecord('key-c', 250), false, reservation);
      assert.deepEqual(await spendOf(store, 'key-c'), { spent: 250, reserved: 0 });
      const left = await store.db
        .selectFrom('budget_reservations')
        .select('id')
        .where('id', '=', reservation.id)
        .execute();
      assert.equal(left.length, 0);
    });

    it('a row queued while another transaction is open is committed on its own, not lost when that transaction rolls back', async () => {
      const store = await freshStore(kind);
      const writer = new UsageWriter(store, quiet);
      const record = usageRecord('key-d', 42);
      let written: Promise<void> | undefined;
      await assert.rejects(
        store.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('key_spend')
            .values({ api_key_id: 'key-other', month: '2026-11', spent_micro_usd: 1, reserved_micro_usd: 0 })
            .execute();
          written = writer.write(record, true);
          // Let the writer's flush run while this transaction is still open.
          for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await written;
      assert.deepEqual(await rowsOf(store, 'key-d'), [record.id]);
      assert.deepEqual(await spendOf(store, 'key-d'), { spent: 42, reserved: 0 });
      const rolledBack = await store.db
        .selectFrom('key_spend')
        .select('api_key_id')
        .where('api_key_id', '=', 'key-other')
        .execute();
      assert.equal(rolledBack.length, 0, 'the other transaction rolled back');
    });
  });
}
