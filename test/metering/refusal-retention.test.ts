import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { RefusalRetention } from '../../src/metering/refusal-retention.js';
import { storeKinds } from '../support/gateway-harness.js';
import { freshStore } from '../support/fresh-store.js';
import { usageRecord } from '../support/usage-record.js';

const DAY_MS = 86_400_000;
const RETENTION_DAYS = 30;

for (const kind of storeKinds()) {
  describe(`refused requests expire; billing rows stay (${kind})`, () => {
    const fixture = freshStore(kind, 'refusals');
    const now = Date.UTC(2026, 5, 1);

    it('deletes only zero-cost failed rows older than the retention, however many batches they take', async () => {
      const old = now - (RETENTION_DAYS + 1) * DAY_MS;
      const recent = now - (RETENTION_DAYS - 1) * DAY_MS;
      const row = (name: string, created_at: number, status_code: number, cost_micro_usd: number) =>
        usageRecord('org_retention', {
          request_id: name,
          created_at,
          api_key_id: 'key_retention',
          status_code,
          cost_micro_usd,
          error_code: status_code >= 400 ? 'invalid_request' : null,
        });
      const expiring = Array.from({ length: 1_203 }, (_, i) => row(`old-refusal-${i}`, old - i, 400, 0));
      const kept = [
        row('recent-refusal', recent, 400, 0),
        row('old-answer', old, 200, 1_000),
        row('old-free-answer', old, 200, 0),
        row('old-costly-failure', old, 499, 250),
      ];
      for (let i = 0; i < expiring.length; i += 500)
        await fixture.store.db
          .insertInto('usage_records')
          .values(expiring.slice(i, i + 500))
          .execute();
      await fixture.store.db.insertInto('usage_records').values(kept).execute();

      const deleted = await new RefusalRetention(
        fixture.store,
        RETENTION_DAYS,
        pino({ level: 'silent' }),
        () => now,
      ).sweep();

      assert.equal(deleted, expiring.length);
      const left = await fixture.store.db.selectFrom('usage_records').select('request_id').execute();
      assert.deepEqual(left.map((r) => r.request_id).sort(), kept.map((r) => r.request_id).sort());
    });
  });
}
