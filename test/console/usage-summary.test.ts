import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';
import { usageRecord } from '../support/usage-record.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

for (const store of storeKinds()) {
  describe(`console usage summary (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string };
    let other: { id: string; token: string };
    let alpha: { id: string; key: string };
    let beta: { id: string; key: string };
    const now = Date.now();
    const rows: Array<Partial<UsageRecordsTable> & { created_at: number }> = [];

    const row = (
      fields: Partial<UsageRecordsTable> & { created_at: number; api_key_id: string },
      orgId = org.id,
    ): UsageRecordsTable => usageRecord(orgId, fields);

    const summary = (query: string, token = org.token, orgId = org.id) =>
      h.console('GET', `/v1/organizations/${orgId}/usage/summary?${query}`, { token });

    before(async () => {
      h = await startHarness({ store });
      org = await h.organization();
      other = await h.organization();
      alpha = await h.createKey(org, { name: 'alpha', max_usage: 10 });
      beta = await h.createKey(org, { name: 'beta' });
      const otherKey = await h.createKey(other, { name: 'elsewhere' });
      const records = [
        row({ created_at: now - 1 * HOUR, api_key_id: alpha.id, tags: '["checkout","batch"]', cost_micro_usd: 5_000 }),
        row({
          created_at: now - 2 * HOUR,
          api_key_id: alpha.id,
          model: 'anthropic/claude-haiku-4-5',
          provider: 'anthropic',
          tags: '["checkout"]',
          cost_micro_usd: 7_000,
          input_tokens: 300,
          output_tokens: 20,
        }),
        row({
          created_at: now - 2 * DAY,
          api_key_id: beta.id,
          cost_micro_usd: 2_000,
          status_code: 502,
          error_code: 'provider_error',
        }),
        row({ created_at: now - 40 * DAY, api_key_id: beta.id, cost_micro_usd: 999_999 }),
        row({ created_at: now - 1 * HOUR, api_key_id: otherKey.id, cost_micro_usd: 123_456 }, other.id),
      ];
      rows.push(...records);
      await h.running.store.db.insertInto('usage_records').values(records).execute();
    });
    after(() => h.stop());

    it('sums spend, tokens and requests per model in UTC day buckets over the last 7 days', async () => {
      const result = await summary('period=7d&granularity=day&group_by=model');
      assert.equal(result.status, 200, result.text);
      const body = result.json;
      assert.equal(body.object, 'usage_summary');
      assert.equal(body.buckets.length, 7);
      for (const bucket of body.buckets) assert.equal(Date.parse(bucket) % DAY, 0, 'buckets start at UTC midnight');
      assert.ok(
        Date.parse(body.buckets[6]) <= now && now < Date.parse(body.buckets[6]) + DAY,
        'the last bucket is today',
      );
      assert.deepEqual(body.totals, {
        requests: 3,
        errors: 1,
        input_tokens: 500,
        output_tokens: 120,
        cost_micro_usd: 14_000,
        cost_usd: 0.014,
      });
      assert.deepEqual(body.groups.map((g: any) => [g.key, g.cost_micro_usd, g.requests]).sort(), [
        ['anthropic/claude-haiku-4-5', 7_000, 1],
        ['openai/gpt-4o-mini', 7_000, 2],
      ]);
      const openai = body.groups.find((g: any) => g.key === 'openai/gpt-4o-mini');
      const index = (ms: number) =>
        body.buckets.findIndex((b: string) => Date.parse(b) <= ms && ms < Date.parse(b) + DAY);
      const expected = new Array(7).fill(0);
      expected[index(now - HOUR)] += 5_000;
      expected[index(now - 2 * DAY)] += 2_000;
      assert.deepEqual(openai.series.cost_micro_usd, expected);
      assert.equal(
        openai.series.tokens.reduce((a: number, b: number) => a + b, 0),
        300,
      );
      assert.equal(openai.errors, 1);
    });

    it('groups are ordered by spend, then tokens', async () => {
      const body = (await summary('period=7d&group_by=model')).json;
      // Equal spend (7,000 each): the anthropic group has more tokens (320 against 300).
      assert.deepEqual(
        body.groups.map((g: any) => g.key),
        ['anthropic/claude-haiku-4-5', 'openai/gpt-4o-mini'],
      );
    });

    it('hour buckets over 24 hours, by provider', async () => {
      const body = (await summary('period=24h&group_by=provider')).json;
      assert.equal(body.granularity, 'hour');
      assert.equal(body.buckets.length, 24);
      for (const bucket of body.buckets) assert.equal(Date.parse(bucket) % HOUR, 0);
      assert.deepEqual(
        body.groups.map((g: any) => [g.key, g.cost_micro_usd]),
        [
          ['anthropic', 7_000],
          ['openai', 5_000],
        ],
      );
      assert.equal(body.totals.requests, 2);
    });

    it('by tag, a request counts under each of its tags and the totals count it once', async () => {
      const body = (await summary('period=7d&group_by=tag')).json;
      const byTag = Object.fromEntries(body.groups.map((g: any) => [g.key, g.cost_micro_usd]));
      assert.deepEqual(byTag, { checkout: 12_000, batch: 5_000, '(untagged)': 2_000 });
      assert.equal(body.totals.cost_micro_usd, 14_000);
    });

    it('by API key, groups carry the key name; a deleted key keeps its name, marked', async () => {
      const byKey = (await summary('period=7d&group_by=api_key')).json;
      assert.deepEqual(
        byKey.groups.map((g: any) => [g.key, g.label]),
        [
          [alpha.id, 'alpha'],
          [beta.id, 'beta'],
        ],
      );
      const doomed = await h.createKey(org, { name: 'doomed' });
      await h.running.store.db
        .insertInto('usage_records')
        .values(row({ created_at: now - 3 * HOUR, api_key_id: doomed.id, cost_micro_usd: 1 }))
        .execute();
      assert.equal(
        (await h.console('DELETE', `/v1/organizations/${org.id}/api_keys/${doomed.id}`, { token: org.token })).status,
        200,
      );
      const after = (await summary('period=7d&group_by=api_key')).json;
      assert.equal(after.groups.find((g: any) => g.key === doomed.id).label, 'doomed (deleted)');
    });

    it('a custom window and month to date', async () => {
      const from = new Date(now - 3 * DAY).toISOString().slice(0, 10);
      const custom = (await summary(`from=${from}&to=${new Date(now - DAY).toISOString()}&granularity=day`)).json;
      assert.equal(custom.from, `${from}T00:00:00.000Z`);
      assert.equal(custom.totals.cost_micro_usd, 2_000, 'only the row two days ago');
      const mtd = (await summary('period=mtd')).json;
      assert.equal(
        mtd.from,
        new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1)).toISOString(),
      );
    });

    it('beyond ten groups the rest are summed as "(other)"', async () => {
      const many = Array.from({ length: 13 }, (_, i) =>
        row({
          created_at: now - 5 * HOUR,
          api_key_id: beta.id,
          model: `test/m${String(i).padStart(2, '0')}`,
          cost_micro_usd: 100 + i,
          tags: '["many"]',
        }),
      );
      const lone = await h.organization();
      const loneKey = await h.createKey(lone);
      await h.running.store.db
        .insertInto('usage_records')
        .values(many.map((r) => ({ ...r, organization_id: lone.id, api_key_id: loneKey.id })))
        .execute();
      const body = (await summary('period=24h', lone.token, lone.id)).json;
      assert.equal(body.groups.length, 11);
      const otherGroup = body.groups.at(-1);
      assert.equal(otherGroup.key, '(other)');
      assert.equal(otherGroup.requests, 3);
      assert.equal(otherGroup.cost_micro_usd, 100 + 101 + 102);
      assert.equal(
        body.groups.reduce((sum: number, g: any) => sum + g.cost_micro_usd, 0),
        body.totals.cost_micro_usd,
      );
    });

    it('refuses bad windows and unknown parameters with 400 naming the parameter', async () => {
      const cases: Array<[string, string]> = [
        ['to=2026-01-01', 'to'],
        ['from=yesterday', 'from'],
        ['from=2026-02-01&to=2026-01-01', 'to'],
        ['from=2020-01-01&granularity=hour', 'granularity'],
        ['period=1y', 'period'],
        ['colour=blue', 'colour'],
      ];
      for (const [query, param] of cases) {
        const result = await summary(query);
        assert.equal(result.status, 400, `${query}: ${result.text}`);
        assert.equal(result.json.param, param, query);
        assert.equal(result.json.error, 'Bad Request');
      }
    });

    it("another organization's usage is refused, and a read token may look", async () => {
      const refused = await summary('period=7d', other.token);
      assert.equal(refused.status, 403);
      assert.equal(
        (await h.console('GET', `/v1/organizations/${org.id}/usage/keys`, { token: other.token })).status,
        403,
      );
      const reader = await h.organization(undefined, 'read');
      assert.equal((await summary('period=7d', reader.token, reader.id)).status, 200);
      assert.equal((await h.console('GET', `/v1/organizations/${org.id}/usage/summary`)).status, 401);
    });

    it("month-to-date spend per key against its ceiling comes from the key's ledger", async () => {
      const month = new Date(now).toISOString().slice(0, 7);
      await h.running.store.db
        .insertInto('key_spend')
        .values({ api_key_id: alpha.id, month, spent_micro_usd: 2_500_000, reserved_micro_usd: 10_000 })
        .execute();
      await h.running.store.db
        .insertInto('key_spend')
        .values({ api_key_id: beta.id, month: '2001-01', spent_micro_usd: 9, reserved_micro_usd: 0 })
        .execute();
      const result = await h.console('GET', `/v1/organizations/${org.id}/usage/keys`, { token: org.token });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.json.month, month);
      const [first, second] = result.json.data;
      assert.deepEqual(first, {
        api_key_id: alpha.id,
        name: 'alpha',
        active: true,
        max_usage: 10,
        spent_micro_usd: 2_500_000,
        reserved_micro_usd: 10_000,
        spent_usd: 2.5,
        used_fraction: 0.25,
      });
      assert.equal(second.api_key_id, beta.id);
      assert.equal(second.spent_micro_usd, 0, 'another month does not count');
      assert.equal(second.used_fraction, null, 'no ceiling');
      const past = await h.console('GET', `/v1/organizations/${org.id}/usage/keys?month=2001-01`, { token: org.token });
      assert.equal(past.json.data.find((k: any) => k.api_key_id === beta.id).spent_micro_usd, 9);
      assert.equal(
        (await h.console('GET', `/v1/organizations/${org.id}/usage/keys?month=2001-13`, { token: org.token })).status,
        400,
      );
    });

    it("GET /v1/organizations/me names the token's organization and permission", async () => {
      const reader = await h.organization('reader-org-' + store, 'read');
      const me = await h.console('GET', '/v1/organizations/me', { token: reader.token });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.json.object, 'organization');
      assert.equal(me.json.id, reader.id);
      assert.equal(me.json.slug, reader.slug);
      assert.equal(me.json.token.permission, 'read');
      assert.equal((await h.console('GET', '/v1/organizations/me')).status, 401);
      assert.equal((await h.console('GET', '/v1/organizations/me', { token: 'wrong' })).status, 401);
    });
  });
}
