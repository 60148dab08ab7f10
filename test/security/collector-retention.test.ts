import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { storeKinds } from '../support/gateway-harness.js';
import { CollectedEventStore, timeOrderedId } from '../../src/store/collected-events.js';
import { CollectedEventRetention } from '../../src/store/collected-events-retention.js';
import { RetentionSweeper } from '../../src/collector/retention-sweeper.js';
import { body, metric, newProject, startCollectorService } from './collector-flood-kit.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * Issue 16, row 3: what a flood stored does not stay. Retention deletes old events, their outbox
 * rows and warehouse copies in small transactions, and frees the quota they held.
 */
for (const store of storeKinds()) {
  describe(`collector retention (${store})`, () => {
    const env = suiteFixture(() =>
      startCollectorService(store, {
        // Outbox rows stay put, so the test sees what retention does to them.
        GATEWAY_OUTBOX_WORKER: '0',
        GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1',
        GATEWAY_COLLECTOR_RETENTION_DAYS: '30',
        // The background sweep would race the one this test runs.
        GATEWAY_COLLECTOR_RETENTION_SWEEP_MS: '3600000',
      }),
    );

    it('deletes events older than the retention in batches, with their outbox rows and warehouse copies, and frees their quota', async () => {
      const p = await newProject(env.h, env.token, [
        { component_slug: 'gateway/warehouse' },
        { component_slug: 'gateway/webhook', settings: { url: 'http://127.0.0.1:9/hook' } },
      ]);
      const [warehouse, webhook] = p.components as [{ id: string }, { id: string }];
      const store = env.h.running.store;
      const events = new CollectedEventStore(store);
      const org = (await store.db
        .selectFrom('projects')
        .select('organization_id')
        .where('id', '=', p.id)
        .executeTakeFirst())!.organization_id;
      const now = Date.now();
      const old = now - 40 * 86_400_000;
      const oldIds = Array.from({ length: 50 }, (_, i) => (i % 5 === 0 ? `client-${i}` : `evt_${timeOrderedId(old)}`));
      // Old events straight into the store, with outbox rows for both components, as the intake writes them.
      await events.insert([
        {
          projectId: p.id,
          organizationId: org,
          receivedAt: old,
          componentIds: { page: [warehouse.id, webhook.id], track: [], user: [] },
          events: oldIds.map((id) => {
            const payload = JSON.stringify({
              id,
              type: 'page',
              timestamp: new Date(old).toISOString(),
              data: {},
              context: {},
            });
            return {
              id,
              idFromClient: id.startsWith('client'),
              type: 'page' as const,
              payload,
              bytes: Buffer.byteLength(payload),
            };
          }),
        },
      ]);
      await events.copyToWarehouse(p.id, warehouse.id, oldIds, old);
      const fresh = await env.client.call('POST', p.domain, { body: body(5) });
      assert.equal(fresh.status, 202);
      const outbox = () =>
        store.db
          .selectFrom('event_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('project_id', '=', p.id)
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n));
      const warehouseRows = () =>
        store.db
          .selectFrom('warehouse_events')
          .select('event_id')
          .where('project_id', '=', p.id)
          .execute()
          .then((rows) => rows.map((r) => r.event_id));
      assert.equal(await outbox(), 110);
      assert.equal((await warehouseRows()).length, 50);
      assert.equal((await events.totals(p.id)).events, 55);
      const metricsBefore = await metric(env.h, 'gateway_collector_deleted_total', {
        table: 'events',
        reason: 'retention',
      });

      const sweeper = new RetentionSweeper(
        new CollectedEventRetention(store),
        { retentionDays: 30, sweepMs: 60_000, batch: 7 },
        pino({ level: 'silent' }),
      );
      const result = await sweeper.sweep();
      assert.equal(result.events, 50);
      assert.equal(result.deliveries, 100);
      assert.equal(result.warehouse, 50);
      // 100 outbox rows in 15 transactions, 50 events in 8, 50 warehouse rows in 8 (7 rows each at most).
      assert.ok(result.transactions >= 15 + 8 + 8, `${result.transactions} transactions`);

      assert.equal(await events.countEvents(p.id), 5, 'the fresh events are kept');
      assert.equal(await outbox(), 10, 'only the fresh events keep their outbox rows');
      assert.deepEqual(await warehouseRows(), []);
      const totals = await events.totals(p.id);
      assert.equal(totals.events, 5);
      const freshBytes = (await events.loadPayloads(p.id, fresh.json.ids)).values();
      assert.equal(
        totals.bytes,
        [...freshBytes].reduce((sum, payload) => sum + Buffer.byteLength(payload), 0),
      );
      const metricsAfter = await metric(env.h, 'gateway_collector_deleted_total', {
        table: 'events',
        reason: 'retention',
      });
      assert.equal(metricsAfter - metricsBefore, 50);
      assert.deepEqual(await sweeper.sweep(), { events: 0, bytes: 0, deliveries: 0, warehouse: 0, transactions: 3 });
    });
  });
}
