import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { CollectedEventStore, timeOrderedId } from '../../src/store/collected-events.js';

/**
 * Issue 16, row 3: an unauthenticated flood of POST /_gateway/event (175k events accepted in
 * 10 s, the database 67 MB → 1.5 GB). Rate limits per client address and per project answer
 * 429 with Retry-After while other clients and projects are served; the stored-event quota
 * stops growth; retention deletes old events, their outbox rows and warehouse copies in small
 * transactions. Budgets here are burst-only (rate 0, a one-hour window), so the counts are
 * exact whatever the machine's speed.
 */
type Client = ReturnType<typeof collectorClient>;
const page = (padding = '') => ({
  type: 'page',
  data: { title: 'Home', path: '/', ...(padding ? { properties: { padding } } : {}) },
});
const body = (events = 1, padding = '') => ({
  data_collection: { events: Array.from({ length: events }, () => page(padding)) },
});

async function metric(h: Harness, name: string, labels: Record<string, string> = {}): Promise<number> {
  const families = parsePrometheusText((await h.collector('GET', '/metrics')).text);
  const family = families.get(name.replace(/_total$/, '')) ?? families.get(name);
  const sample = family?.samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return sample?.value ?? 0;
}

async function newProject(h: Harness, token: string, components: Array<Record<string, unknown>> = []) {
  const domain = `flood-${randomBytes(4).toString('hex')}.example.test`;
  const created = await h.console('POST', '/v1/projects', {
    token,
    body: { slug: `p-${randomBytes(4).toString('hex')}`, name: 'Flood', domains: [domain] },
  });
  assert.equal(created.status, 201, created.text);
  const attached: Array<{ id: string }> = [];
  for (const component of components) {
    const pc = await h.console('POST', `/v1/projects/${created.json.id}/components`, { token, body: component });
    assert.equal(pc.status, 201, pc.text);
    attached.push(pc.json);
  }
  return { id: created.json.id as string, domain, components: attached };
}

/** Posts `requests` bodies, `concurrency` at a time; returns the answers in order. */
async function flood(client: Client, domain: string, requests: number, make = () => body(), concurrency = 8) {
  const answers: Array<Awaited<ReturnType<Client['call']>>> = new Array(requests);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        answers[i] = await client.call('POST', domain, { body: make() });
      }
    }),
  );
  return answers;
}

function acceptedEvents(answers: Array<{ status: number; json: any }>): number {
  return answers.filter((a) => a.status === 202).reduce((sum, a) => sum + a.json.accepted, 0);
}

for (const store of storeKinds()) {
  describe(`collector flood: rate limits (${store})`, () => {
    let h: Harness;
    let token: string;
    const clients: Client[] = [];
    const from = (address: string) => {
      const client = collectorClient(h.running.urls.collector, h.ca, { localAddress: address });
      clients.push(client);
      return client;
    };
    before(async () => {
      h = await startHarness({
        store,
        env: {
          GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
          GATEWAY_COLLECTOR_ADDRESS_BURST: '40',
          GATEWAY_COLLECTOR_PROJECT_RATE: '0',
          GATEWAY_COLLECTOR_PROJECT_BURST: '100',
          GATEWAY_COLLECTOR_BURST_WINDOW_S: '3600',
        },
      });
      token = (await h.organization()).token;
    });
    after(async () => {
      for (const client of clients) await client.close();
      await h.stop();
    });

    it('a flood from one address gets 429 with Retry-After once its budget is spent; another address and another project are still served', async () => {
      const a = await newProject(h, token);
      const b = await newProject(h, token);
      const attacker = from('127.0.0.1');
      const rejectedBefore = await metric(h, 'gateway_collector_requests_rejected_total', {
        reason: 'rate_limit_address',
      });

      const answers = await flood(attacker, a.domain, 60);
      assert.equal(acceptedEvents(answers), 40, 'exactly the address budget is accepted');
      const refused = answers.filter((x) => x.status === 429);
      assert.equal(refused.length, 20);
      for (const answer of refused) {
        assert.equal(answer.json.error, 'Too Many Requests');
        assert.match(answer.json.message, /client address/);
        const retryAfter = Number(answer.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600, String(retryAfter));
      }
      // Refused again before the body is read: not even malformed JSON gets to the parser.
      const unread = await attacker.call('POST', a.domain, {
        rawBody: '{"data_collection":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(unread.status, 429);

      const neighbour = from('127.0.0.2');
      assert.equal((await neighbour.call('POST', a.domain, { body: body() })).status, 202, 'another address');
      assert.equal((await neighbour.call('POST', b.domain, { body: body() })).status, 202, 'another project');

      const events = new CollectedEventStore(h.running.store);
      assert.equal(await events.countEvents(a.id), 41);
      assert.equal(await events.countEvents(b.id), 1);
      const rejectedAfter = await metric(h, 'gateway_collector_requests_rejected_total', {
        reason: 'rate_limit_address',
      });
      assert.equal(rejectedAfter - rejectedBefore, 21);
    });

    it("the address counted is the connection's, not X-Forwarded-For's; an address's refusals spend nothing of the project's budget", async () => {
      const p = await newProject(h, token);
      const attacker = from('127.0.0.8');
      // An attacker naming a new address in every request is still one address.
      let i = 0;
      const answers = await flood(attacker, p.domain, 200, () => body(), 8);
      const spoofed = await Promise.all(
        Array.from({ length: 20 }, () =>
          attacker.call('POST', p.domain, {
            body: body(),
            headers: { 'x-forwarded-for': `198.51.100.${++i}`, forwarded: `for=198.51.100.${i}` },
          }),
        ),
      );
      assert.equal(acceptedEvents([...answers, ...spoofed]), 40, 'the address budget, once');
      assert.ok(
        [...answers, ...spoofed].filter((a) => a.status === 429).every((a) => /client address/.test(a.json.message)),
      );
      // 180 requests refused by the address budget: had they been counted against the project
      // (budget 100), its own clients would now be refused too. It has 60 events left.
      const normal = from('127.0.0.9');
      const served = await flood(normal, p.domain, 40, () => body(), 1);
      assert.equal(acceptedEvents(served), 40);
      const second = from('127.0.0.10');
      const rest = await flood(second, p.domain, 21, () => body(), 1);
      assert.equal(acceptedEvents(rest), 20);
      assert.match(rest.at(-1)!.json.message, /for this project/);
      assert.equal(await new CollectedEventStore(h.running.store).countEvents(p.id), 100);
    });

    it("many addresses flooding one project are held by the project's budget; other projects are served", async () => {
      const target = await newProject(h, token);
      const other = await newProject(h, token);
      const answers = (
        await Promise.all(
          ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].map((address) =>
            flood(from(address), target.domain, 20, () => body(2), 4),
          ),
        )
      ).flat();
      assert.equal(acceptedEvents(answers), 100, 'exactly the project budget is accepted');
      const refused = answers.filter((x) => x.status === 429);
      assert.ok(refused.length >= 10);
      assert.ok(refused.every((x) => /project/.test(x.json.message) && Number(x.headers['retry-after']) >= 1));
      assert.equal((await from('127.0.0.7').call('POST', other.domain, { body: body() })).status, 202);
      assert.equal(await new CollectedEventStore(h.running.store).countEvents(target.id), 100);
    });
  });

  describe(`collector flood: sizes and quota (${store})`, () => {
    let h: Harness;
    let token: string;
    let client: Client;
    before(async () => {
      h = await startHarness({
        store,
        env: {
          GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
          GATEWAY_COLLECTOR_ADDRESS_BURST: '0',
          GATEWAY_COLLECTOR_PROJECT_RATE: '0',
          GATEWAY_COLLECTOR_PROJECT_BURST: '0',
          GATEWAY_COLLECTOR_QUOTA_EVENTS: '25',
          GATEWAY_COLLECTOR_QUOTA_BYTES: '20000',
          GATEWAY_COLLECTOR_MAX_EVENTS: '10',
          GATEWAY_COLLECTOR_MAX_EVENT_BYTES: '4096',
          GATEWAY_COLLECTOR_BODY_LIMIT_BYTES: '16384',
        },
      });
      token = (await h.organization()).token;
      client = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await client.close();
      await h.stop();
    });

    it('stored events stop growing at the quota: requests past it are refused whole with 429 and counted', async () => {
      const p = await newProject(h, token);
      const events = new CollectedEventStore(h.running.store);
      const before = await metric(h, 'gateway_collector_events_rejected_total', { reason: 'quota' });
      assert.equal((await client.call('POST', p.domain, { body: body(10) })).status, 202);
      assert.equal((await client.call('POST', p.domain, { body: body(10) })).status, 202);
      const crossing = await client.call('POST', p.domain, { body: body(10) });
      assert.equal(crossing.status, 429, 'ten more would make 30 > 25: refused whole');
      assert.match(crossing.json.message, /quota/);
      assert.ok(Number(crossing.headers['retry-after']) >= 1);
      assert.equal(await events.countEvents(p.id), 20);
      const answers = await flood(client, p.domain, 30);
      assert.equal(acceptedEvents(answers), 5);
      assert.equal(answers.filter((a) => a.status === 429).length, 25);
      assert.equal(await events.countEvents(p.id), 25);
      assert.deepEqual((await events.totals(p.id)).events, 25);
      const after = await metric(h, 'gateway_collector_events_rejected_total', { reason: 'quota' });
      assert.equal(after - before, 35);
      // A client retrying an id already stored is not charged again.
      const other = await newProject(h, token);
      for (let i = 0; i < 3; i++)
        assert.equal(
          (
            await client.call('POST', other.domain, {
              body: { data_collection: { events: [{ ...page(), id: 'same' }] } },
            })
          ).status,
          202,
        );
      assert.equal((await events.totals(other.id)).events, 1);
    });

    it('the byte quota holds too: large events stop at the stored bytes allowed', async () => {
      const p = await newProject(h, token);
      const events = new CollectedEventStore(h.running.store);
      const answers = await flood(client, p.domain, 15, () => body(1, 'x'.repeat(3000)), 1);
      const stored = await events.totals(p.id);
      assert.ok(stored.bytes <= 20000, `${stored.bytes} bytes stored`);
      assert.ok(stored.bytes > 20000 - 3500, 'the last event that fits is stored');
      assert.equal(stored.events, acceptedEvents(answers));
      assert.ok(answers.at(-1)!.status === 429);
    });

    it('sizes: a body over the limit gets 413, too many events 400, one event over its size 413 naming it; all counted', async () => {
      const p = await newProject(h, token);
      const count = (reason: string) => metric(h, 'gateway_collector_requests_rejected_total', { reason });
      const before = {
        body: await count('body_too_large'),
        many: await count('too_many_events'),
        event: await count('event_too_large'),
      };
      const big = await client.call('POST', p.domain, { body: body(1, 'x'.repeat(17_000)) });
      assert.equal(big.status, 413);
      const many = await client.call('POST', p.domain, { body: body(11) });
      assert.equal(many.status, 400);
      assert.equal(many.json.param, 'data_collection.events');
      // The shared context is copied into each event: the stored event, not the body, is measured.
      const oversized = await client.call('POST', p.domain, {
        body: {
          data_collection: {
            context: { session: { padding: 't'.repeat(1800) } },
            events: [page(), { type: 'page', data: { name: 'y'.repeat(500) }, custom: 'z'.repeat(2000) }],
          },
        },
      });
      assert.equal(oversized.status, 413, oversized.text);
      assert.equal(oversized.json.param, 'data_collection.events[1]');
      assert.equal(await new CollectedEventStore(h.running.store).countEvents(p.id), 0, 'nothing of it was stored');
      assert.equal((await count('body_too_large')) - before.body, 1);
      assert.equal((await count('too_many_events')) - before.many, 1);
      assert.equal((await count('event_too_large')) - before.event, 1);
    });
  });

  describe(`collector retention (${store})`, () => {
    let h: Harness;
    let token: string;
    let client: Client;
    before(async () => {
      h = await startHarness({
        store,
        env: {
          // Outbox rows stay put, so the test sees what retention does to them.
          GATEWAY_OUTBOX_WORKER: '0',
          GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1',
          GATEWAY_COLLECTOR_RETENTION_DAYS: '30',
          // The background sweep would race the one this test runs.
          GATEWAY_COLLECTOR_RETENTION_SWEEP_MS: '3600000',
        },
      });
      token = (await h.organization()).token;
      client = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await client.close();
      await h.stop();
    });

    it('deletes events older than the retention in batches, with their outbox rows and warehouse copies, and frees their quota', async () => {
      const p = await newProject(h, token, [
        { component_slug: 'gateway/warehouse' },
        { component_slug: 'gateway/webhook', settings: { url: 'http://127.0.0.1:9/hook' } },
      ]);
      const [warehouse, webhook] = p.components as [{ id: string }, { id: string }];
      const store = h.running.store;
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
      const fresh = await client.call('POST', p.domain, { body: body(5) });
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
      const metricsBefore = await metric(h, 'gateway_collector_deleted_total', {
        table: 'events',
        reason: 'retention',
      });

      // Imported here, so the rate-limit and quota tests above also run against code without retention.
      const { CollectedEventRetention } = await import('../../src/store/collected-events-retention.js');
      const { RetentionSweeper } = await import('../../src/collector/retention-sweeper.js');
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
      const metricsAfter = await metric(h, 'gateway_collector_deleted_total', { table: 'events', reason: 'retention' });
      assert.equal(metricsAfter - metricsBefore, 50);
      assert.deepEqual(await sweeper.sweep(), { events: 0, bytes: 0, deliveries: 0, warehouse: 0, transactions: 3 });
    });
  });
}
