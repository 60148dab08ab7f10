import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { BudgetLedger, type SpendWindow } from '../../src/limits/budget-ledger.js';
import { allowanceBounds, reserveAllowanceAgainst, type AllowanceRequest } from '../../src/limits/output-allowance.js';
import type { Store } from '../../src/store/database.js';
import { keySpend } from '../support/chat-kit.js';
import { storeKinds } from '../support/gateway-harness.js';
import { twoConnections } from '../support/two-connections.js';

const PRICING = { input_per_mtok: 1.25, output_per_mtok: 10 };
const silent = pino({ level: 'silent' });

function memberWindow(limitMicroUsd: number): SpendWindow {
  return {
    limitId: 'lim_member',
    subject: { kind: 'member', id: 'member-1' },
    period: 'daily',
    windowStart: 1_000,
    windowEnd: 1_000 + 86_400_000,
    limitMicroUsd,
  };
}

async function windowRow(store: Store, limitId: string) {
  const row = await store.db
    .selectFrom('limit_window_spend')
    .select(['spent_micro_usd', 'reserved_micro_usd'])
    .where('limit_id', '=', limitId)
    .executeTakeFirst();
  return { spent: Number(row?.spent_micro_usd ?? 0), reserved: Number(row?.reserved_micro_usd ?? 0) };
}

for (const kind of storeKinds()) {
  describe(`one reservation against a key's ceiling and a member's window, from two ledgers (${kind})`, () => {
    it('100 concurrent reservations from 4 keys never hold more than the member window; each key stays under its ceiling', async () => {
      const [a, b] = await twoConnections(kind);
      const ledgers = [new BudgetLedger(a, silent), new BudgetLedger(b, silent)];
      const limit = 1_000_000;
      const ceiling = 400_000;
      const window = memberWindow(limit);
      // A second window of a lifetime key limit on key-0 only, with a lot of room: bounds combine.
      const lifetime: SpendWindow = {
        ...window,
        limitId: 'lim_key0',
        subject: { kind: 'key', id: 'key-0' },
        period: 'lifetime',
        windowStart: 0,
        windowEnd: Infinity,
        limitMicroUsd: 10_000_000,
      };
      const request: AllowanceRequest = { pricing: PRICING, promptTokens: 500, requestedOutputTokens: 4_000 };
      const { minimumMicroUsd, maximumMicroUsd } = allowanceBounds(request);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          reserveAllowanceAgainst(
            ledgers[i % 2]!,
            `key-${i % 4}`,
            { ceilingMicroUsd: ceiling, windows: i % 4 === 0 ? [lifetime, window] : [window] },
            request,
          ),
        ),
      );
      const granted = results.flatMap((r) => (r.allowance ? [r.allowance] : []));
      const held = granted.reduce((sum, r) => sum + r.reservation.amountMicroUsd, 0);
      assert.ok(held <= limit, `held ${held} in a window of ${limit}`);
      assert.ok(held > limit - maximumMicroUsd, 'the window is used, not left idle');
      for (const r of granted) assert.ok(r.reservation.amountMicroUsd >= minimumMicroUsd);
      for (const refused of results.filter((r) => !r.allowance))
        assert.ok(refused.blockedBy!.length > 0, 'a refusal names what refused it');
      assert.deepEqual(await windowRow(a, 'lim_member'), { spent: 0, reserved: held });
      for (let k = 0; k < 4; k++) {
        const { reserved } = await keySpend(b, `key-${k}`);
        assert.ok(reserved <= ceiling, `key-${k} holds ${reserved}`);
      }
      // Settled at half the grant: the window spends that, and holds nothing.
      for (const [i, r] of granted.entries())
        await ledgers[i % 2]!.settle(r.reservation, Math.floor(r.reservation.amountMicroUsd / 2));
      const spent = granted.reduce((sum, r) => sum + Math.floor(r.reservation.amountMicroUsd / 2), 0);
      assert.deepEqual(await windowRow(b, 'lim_member'), { spent, reserved: 0 });
      const key0 = granted.filter((r) => r.reservation.apiKeyId === 'key-0');
      assert.deepEqual(await windowRow(a, 'lim_key0'), {
        spent: key0.reduce((sum, r) => sum + Math.floor(r.reservation.amountMicroUsd / 2), 0),
        reserved: 0,
      });
    });

    it('extend grows the reservation in every window, and not at all when one window has no room', async () => {
      const [store] = await twoConnections(kind);
      const ledger = new BudgetLedger(store, silent);
      const window = memberWindow(10_000);
      const outcome = await ledger.reserveAgainst('key-x', { ceilingMicroUsd: null, windows: [window] }, 4_000, 4_000);
      assert.ok(outcome.reservation);
      assert.equal(await ledger.extend(outcome.reservation, null, 5_000), true);
      assert.deepEqual(await windowRow(store, window.limitId), { spent: 0, reserved: 9_000 });
      assert.equal(await ledger.extend(outcome.reservation, null, 2_000), false, 'the window has 1,000 left');
      assert.deepEqual(await windowRow(store, window.limitId), { spent: 0, reserved: 9_000 });
      assert.deepEqual(await keySpend(store, 'key-x'), { spent: 0, reserved: 9_000 }, 'rolled back on the key too');
      await ledger.settle(outcome.reservation, 8_500);
      assert.deepEqual(await windowRow(store, window.limitId), { spent: 8_500, reserved: 0 });
    });
  });
}
