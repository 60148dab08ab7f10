import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { UsageWriter } from '../../src/metering/usage-writer.js';
import { BudgetLedger } from '../../src/limits/budget-ledger.js';
import { storeKinds } from '../support/gateway-harness.js';
import { freshStore } from '../support/fresh-store.js';
import { spendOf, usageRecord } from '../support/usage-rows.js';

const quiet = pino({ level: 'silent' });

/**
 * The ledger is the only writer of budget_reservations and key_spend: the usage writer settles
 * through it in the row's transaction, and `BudgetLedger.settle` runs the same settlement.
 */
for (const kind of storeKinds()) {
  describe(`budget ledger settlement (${kind})`, () => {
    const fixture = freshStore(kind, 'ledger');

    it('settles an extended reservation whole, the same way through the ledger and through a usage row', async () => {
      const { store } = fixture;
      const ledger = new BudgetLedger(store, quiet);
      const writer = new UsageWriter(store, quiet);
      for (const [key, settle] of [
        ['key-ledger', (r: Parameters<BudgetLedger['settle']>[0]) => ledger.settle(r, 700)],
        [
          'key-writer',
          (r: Parameters<BudgetLedger['settle']>[0]) => writer.write(usageRecord('key-writer', 700), false, r),
        ],
      ] as const) {
        const reservation = await ledger.reserve(key, 10_000, 1_000);
        assert.ok(reservation);
        assert.equal(await ledger.extend(reservation, 10_000, 500), true);
        assert.deepEqual(await spendOf(store, key), { spent: 0, reserved: 1_500 }, key);
        await settle(reservation);
        assert.deepEqual(await spendOf(store, key), { spent: 700, reserved: 0 }, key);
        assert.equal(reservation.settled, true, key);
      }
      const left = await store.db.selectFrom('budget_reservations').select('id').execute();
      assert.deepEqual(left, []);
    });

    it('a reservation the sweeper already released is settled for its cost alone, its reserve not released twice', async () => {
      const { store } = fixture;
      let now = Date.now();
      const ledger = new BudgetLedger(store, quiet, () => now, { reservationTtlMs: 1_000, sweepIntervalMs: 1_000 });
      const writer = new UsageWriter(store, quiet);
      const byLedger = await ledger.reserve('key-swept', 10_000, 1_000);
      const byWriter = await ledger.reserve('key-swept', 10_000, 2_000);
      assert.ok(byLedger && byWriter);
      now += 2_000;
      assert.equal(await ledger.releaseExpired(), 2);
      assert.deepEqual(await spendOf(store, 'key-swept'), { spent: 0, reserved: 0 });
      await ledger.settle(byLedger, 300);
      await writer.write(usageRecord('key-swept', 400), false, byWriter);
      assert.deepEqual(await spendOf(store, 'key-swept'), { spent: 700, reserved: 0 });
    });

    it('a key without a ceiling has its paying rows added to its spend; a free row adds nothing', async () => {
      const { store } = fixture;
      const writer = new UsageWriter(store, quiet);
      await Promise.all([
        writer.write(usageRecord('key-open', 120), true),
        writer.write(usageRecord('key-open', 0), true),
        writer.write(usageRecord('key-free', 0), true),
        // Not paying (addSpend false, no reservation): a refused request's row.
        writer.write(usageRecord('key-open', 55), false),
      ]);
      assert.deepEqual(await spendOf(store, 'key-open'), { spent: 120, reserved: 0 });
      const free = await store.db
        .selectFrom('key_spend')
        .select('api_key_id')
        .where('api_key_id', '=', 'key-free')
        .execute();
      assert.deepEqual(free, []);
    });
  });
}
