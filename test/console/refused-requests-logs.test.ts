import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { parseCsv } from '../support/csv.js';
import { usageRowOf, usageRowsByKey, waitFor } from '../support/chat-kit.js';

/**
 * Issue 27 item 6: a request the gateway refuses with an identified key is on the console's
 * Logs page (the logs export it reads) with its error code; the CSV keeps the spec's columns; a
 * key flooding refusals cannot grow the table faster than its per-minute cap.
 */
const CSV_HEADER = ['Timestamp', 'API Key', 'Model', 'Provider', 'Input Tokens', 'Output Tokens', 'Cost', 'Tags'];
const STORED_PER_MINUTE = 3;

for (const store of storeKinds()) {
  describe(`refused requests on the console's Logs page (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string };
    let key: { id: string; key: string };

    before(async () => {
      h = await startHarness({
        store,
        env: { GATEWAY_STORED_REFUSALS_PER_KEY_PER_MINUTE: String(STORED_PER_MINUTE) },
      });
      org = await h.organization();
      key = await h.createKey(org, { name: 'refused' });
    });
    after(() => h.stop());

    const logs = (query: string) =>
      h.console('GET', `/v1/organizations/${org.id}/logs/export?${query}`, { token: org.token });

    it('lists a refused request with its status and error code; the CSV keeps its columns', async () => {
      const refused = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: 'openai/gpt-4o-mini', messages: 'not a list' },
        headers: { 'x-request-id': `logs-refused-${store}` },
      });
      assert.equal(refused.status, 400);
      await usageRowOf(h.running.store, `logs-refused-${store}`);

      const json = await logs('format=json&period=1h');
      assert.equal(json.status, 200, json.text);
      const record = (json.json as Array<Record<string, unknown>>).find(
        (r) => r.request_id === `logs-refused-${store}`,
      );
      assert.ok(record, 'the refused request is in the Logs export');
      assert.equal(record.status, 400);
      assert.equal(record.error_code, 'invalid_request');
      assert.equal(record.api_key_id, key.id);
      assert.equal(record.model, 'openai/gpt-4o-mini');
      assert.equal(record.cost, '0.000000');

      const csv = await logs('format=csv&period=1h');
      assert.equal(csv.status, 200);
      const [header, ...rows] = parseCsv(csv.text);
      assert.deepEqual(header, CSV_HEADER);
      for (const row of rows) assert.equal(row.length, CSV_HEADER.length);
    });

    it('the usage summary counts refusals as errors, under a "(refused)" provider', async () => {
      const summary = await h.console('GET', `/v1/organizations/${org.id}/usage/summary?period=24h&group_by=provider`, {
        token: org.token,
      });
      assert.equal(summary.status, 200, summary.text);
      const refused = (summary.json.groups as Array<Record<string, unknown>>).find((g) => g.key === '');
      assert.ok(refused, summary.text);
      assert.equal(refused.label, '(refused)');
      assert.ok(Number(refused.errors) >= 1 && refused.errors === refused.requests);
      assert.equal(refused.cost_micro_usd, 0);
    });

    it('a 401 belongs to no organization: no row anywhere', async () => {
      const before = (await usageRowsByKey(h.running.store, key.id)).length;
      const unauthenticated = await h.gateway('GET', '/v1/models', {
        token: 'sk-unknown',
        headers: { 'x-request-id': `logs-401-${store}` },
      });
      assert.equal(unauthenticated.status, 401);
      const count = await h.running.store.db
        .selectFrom('usage_records')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('request_id', '=', `logs-401-${store}`)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
      assert.equal((await usageRowsByKey(h.running.store, key.id)).length, before);
    });

    it('a key flooding refusals stores at most its per-minute cap of them', async () => {
      const flooder = await h.createKey(org, { name: 'flooder' });
      const ids: string[] = [];
      for (let i = 0; i < STORED_PER_MINUTE * 3; i++) {
        const id = `flood-${store}-${i}`;
        ids.push(id);
        const refused = await h.gateway('POST', '/v1/chat/completions', {
          token: flooder.key,
          body: { model: 'openai/gpt-4o-mini', messages: [], max_tokens: -1 },
          headers: { 'x-request-id': id },
        });
        assert.equal(refused.status, 400);
      }
      // The first refusals are stored; once the cap's last one is committed, an over-cap one would be too.
      await usageRowOf(h.running.store, ids[STORED_PER_MINUTE - 1]!);
      const marker = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: 'openai/gpt-4o-mini', messages: 'x' },
        headers: { 'x-request-id': `after-flood-${store}` },
      });
      assert.equal(marker.status, 400);
      await usageRowOf(h.running.store, `after-flood-${store}`);
      const stored = await waitFor(() => usageRowsByKey(h.running.store, flooder.id));
      assert.deepEqual(stored.map((row) => row.request_id).sort(), ids.slice(0, STORED_PER_MINUTE).sort());
    });
  });
}
