import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';
import { usageRecord } from '../support/usage-record.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Prices per million tokens = micro-USD per token, chosen so every expected amount is exact.
const CACHED = 'test/cached-model'; // input 4, cached read 0.4, cache write 5
const PLAIN = 'test/plain-model'; // input 2, no cache prices: caching saves nothing on it
const CONFIG = {
  models: [
    {
      id: CACHED,
      providers: [{ provider: 'local', model: 'echo' }],
      pricing: { input_per_mtok: 4, output_per_mtok: 16, cached_input_per_mtok: 0.4, cache_write_per_mtok: 5 },
    },
    {
      id: PLAIN,
      providers: [{ provider: 'local', model: 'echo' }],
      pricing: { input_per_mtok: 2, output_per_mtok: 8 },
    },
  ],
};

for (const store of storeKinds()) {
  describe(`console usage savings (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string };
    let other: { id: string; token: string };
    let alpha: { id: string };
    let beta: { id: string };
    const now = Date.now();

    const row = (
      fields: Partial<UsageRecordsTable> & { created_at: number; api_key_id: string },
      orgId = org.id,
    ): UsageRecordsTable =>
      usageRecord(orgId, {
        model: CACHED,
        provider: 'local',
        upstream_model: 'echo',
        input_tokens: 1_000,
        output_tokens: 100,
        compression_savings_micro_usd: null,
        ...fields,
      });

    const savings = (query: string, token = org.token, orgId = org.id) =>
      h.console('GET', `/v1/organizations/${orgId}/usage/savings?${query}`, { token });

    before(async () => {
      h = await startHarness({ store, config: CONFIG });
      org = await h.organization();
      other = await h.organization();
      alpha = await h.createKey(org, { name: 'alpha' });
      beta = await h.createKey(org, { name: 'beta' });
      const elsewhere = await h.createKey(other, { name: 'elsewhere' });
      await h.running.store.db
        .insertInto('usage_records')
        .values([
          // Cached reads, cache writes, and a compression saving the request path recorded.
          row({
            created_at: now - HOUR,
            api_key_id: alpha.id,
            input_tokens: 10_000,
            cached_input_tokens: 6_000,
            cache_creation_input_tokens: 2_000,
            uncompressed_input_tokens: 15_000,
            compression_savings_micro_usd: 20_000,
            cost_micro_usd: 30_000,
          }),
          // Compressed, saving not recorded: estimated at the input price (2,000 tokens × 4).
          row({
            created_at: now - 2 * DAY,
            api_key_id: beta.id,
            input_tokens: 1_000,
            uncompressed_input_tokens: 3_000,
            cost_micro_usd: 5_600,
          }),
          // No cache prices: its cached reads save nothing.
          row({
            created_at: now - HOUR,
            api_key_id: alpha.id,
            model: PLAIN,
            input_tokens: 5_000,
            cached_input_tokens: 3_000,
            cost_micro_usd: 10_800,
          }),
          // Clamped as metering counts it: reads ≤ input (5,000), writes ≤ what is left (0).
          row({
            created_at: now - 2 * DAY,
            api_key_id: beta.id,
            input_tokens: 5_000,
            cached_input_tokens: 9_000,
            cache_creation_input_tokens: 1_000,
            cost_micro_usd: 2_000,
          }),
          // A model no longer in the catalogue: its recorded saving counts, its caching cannot be priced.
          row({
            created_at: now - HOUR,
            api_key_id: beta.id,
            model: 'gone/model',
            cached_input_tokens: 100,
            uncompressed_input_tokens: 1_500,
            compression_savings_micro_usd: 500,
            cost_micro_usd: 700,
          }),
          // A compressed request that grew saves no tokens.
          row({
            created_at: now - 3 * HOUR,
            api_key_id: alpha.id,
            input_tokens: 2_000,
            uncompressed_input_tokens: 1_900,
          }),
          // Outside the window, and another organization's: never counted.
          row({ created_at: now - 40 * DAY, api_key_id: alpha.id, cached_input_tokens: 1_000, cost_micro_usd: 99_999 }),
          row(
            { created_at: now - HOUR, api_key_id: elsewhere.id, cached_input_tokens: 1_000, cost_micro_usd: 77_777 },
            other.id,
          ),
        ])
        .execute();
    });
    after(() => h.stop());

    it('prices caching and compression per model, next to what was spent', async () => {
      const result = await savings('period=7d&group_by=model');
      assert.equal(result.status, 200, result.text);
      const body = result.json;
      assert.equal(body.object, 'usage_savings');
      assert.equal(body.buckets.length, 7);
      // Reads: 6,000 × (4 − 0.4) + 5,000 × 3.6 = 39,600; writes: 2,000 × (5 − 4) = 2,000.
      // Compression: 20,000 recorded + 500 recorded + 2,000 tokens × 4 estimated = 28,500.
      assert.deepEqual(
        {
          requests: body.totals.requests,
          cost: body.totals.cost_micro_usd,
          reads: body.totals.cache_read_tokens,
          writes: body.totals.cache_write_tokens,
          readSavings: body.totals.cache_read_savings_micro_usd,
          writeExtra: body.totals.cache_write_extra_micro_usd,
          caching: body.totals.caching_savings_micro_usd,
          compressed: body.totals.compressed_requests,
          savedTokens: body.totals.compression_saved_tokens,
          compression: body.totals.compression_savings_micro_usd,
          estimated: body.totals.compression_estimated_micro_usd,
          estimatedRequests: body.totals.compression_estimated_requests,
          isEstimate: body.totals.estimated,
          total: body.totals.savings_micro_usd,
          without: body.totals.cost_without_savings_micro_usd,
        },
        {
          requests: 6,
          cost: 30_000 + 5_600 + 10_800 + 2_000 + 700 + 1_000,
          reads: 6_000 + 3_000 + 5_000 + 100,
          writes: 2_000,
          readSavings: 39_600,
          writeExtra: 2_000,
          caching: 37_600,
          compressed: 4,
          savedTokens: 5_000 + 2_000 + 500,
          compression: 28_500,
          estimated: 8_000,
          estimatedRequests: 2, // the one that grew is an estimate too (of nothing saved)
          isEstimate: true,
          total: 66_100,
          without: 50_100 + 66_100,
        },
      );
      assert.equal(body.totals.saved_fraction, 66_100 / 116_200);
      assert.deepEqual(body.unpriced_models, ['gone/model']);
      const byModel = Object.fromEntries(body.groups.map((g: any) => [g.key, g]));
      assert.deepEqual(
        body.groups.map((g: any) => g.key),
        [CACHED, 'gone/model', PLAIN],
        'ordered by savings',
      );
      assert.equal(byModel[CACHED].caching_savings_micro_usd, 37_600);
      assert.equal(byModel[CACHED].compression_savings_micro_usd, 28_000);
      assert.equal(byModel[CACHED].estimated, true);
      assert.equal(byModel[PLAIN].savings_micro_usd, 0, 'no cache price, no caching saving');
      assert.equal(byModel[PLAIN].cache_read_tokens, 3_000);
      assert.equal(byModel['gone/model'].savings_micro_usd, 500);
      assert.equal(byModel['gone/model'].estimated, false);
    });

    it('series add up to the totals, in UTC day buckets', async () => {
      const body = (await savings('period=7d&granularity=day')).json;
      for (const bucket of body.buckets) assert.equal(Date.parse(bucket) % DAY, 0);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      assert.equal(sum(body.series.cost_micro_usd), body.totals.cost_micro_usd);
      assert.equal(sum(body.series.caching_savings_micro_usd), body.totals.caching_savings_micro_usd);
      assert.equal(sum(body.series.compression_savings_micro_usd), body.totals.compression_savings_micro_usd);
      assert.equal(sum(body.series.compression_estimated_micro_usd), 8_000);
      const twoDaysAgo = body.buckets.findIndex((b: string) => {
        const start = Date.parse(b);
        return start <= now - 2 * DAY && now - 2 * DAY < start + DAY;
      });
      assert.equal(body.series.compression_estimated_micro_usd[twoDaysAgo], 8_000);
      assert.equal(body.series.caching_savings_micro_usd[twoDaysAgo], 18_000);
    });

    it('per API key, with the key names', async () => {
      const body = (await savings('period=7d&group_by=api_key')).json;
      assert.deepEqual(
        body.groups.map((g: any) => [g.label, g.savings_micro_usd, g.cost_micro_usd]),
        [
          ['alpha', 20_000 + 21_600 - 2_000, 30_000 + 10_800 + 1_000],
          ['beta', 8_000 + 18_000 + 500, 5_600 + 2_000 + 700],
        ],
      );
    });

    it('per UTC day, oldest first', async () => {
      const body = (await savings('period=7d&group_by=day')).json;
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const days = [...new Set([day(now - 2 * DAY), day(now - 3 * HOUR), day(now - HOUR)])];
      assert.deepEqual(
        body.groups.map((g: any) => g.key),
        days,
      );
      assert.equal(body.groups[0].label, days[0]);
      assert.equal(body.groups[0].savings_micro_usd, 8_000 + 18_000);
      // Hour buckets over a day still group per day.
      const hourly = (await savings('period=24h&group_by=day')).json;
      assert.equal(hourly.granularity, 'hour');
      assert.equal(hourly.buckets.length, 24);
      assert.equal(
        hourly.groups.reduce((a: number, g: any) => a + g.requests, 0),
        4,
      );
    });

    it('counts only the organization of the token: another one is refused, a read token may look', async () => {
      assert.equal((await savings('period=7d', other.token)).status, 403);
      const theirs = (await savings('period=7d', other.token, other.id)).json;
      assert.equal(theirs.totals.requests, 1);
      assert.equal(theirs.totals.cost_micro_usd, 77_777);
      const reader = await h.organization(undefined, 'read');
      assert.equal((await savings('period=7d', reader.token, reader.id)).status, 200);
    });

    it('an unknown breakdown or a bad window is a 400 that names it', async () => {
      const wrong = await savings('group_by=tag');
      assert.equal(wrong.status, 400);
      assert.equal(wrong.json.param, 'group_by');
      const late = await savings('from=2026-01-02&to=2026-01-01');
      assert.equal(late.status, 400);
      assert.equal(late.json.param, 'to');
      const extra = await savings('period=7d&unknown=1');
      assert.equal(extra.status, 400);
    });

    it('beyond ten keys or models the rest are summed as "(other)"', async () => {
      const lone = await h.organization();
      const key = await h.createKey(lone);
      await h.running.store.db
        .insertInto('usage_records')
        .values(
          Array.from({ length: 13 }, (_, i) =>
            row(
              {
                created_at: now - HOUR,
                api_key_id: key.id,
                model: `gone/m${String(i).padStart(2, '0')}`,
                uncompressed_input_tokens: 2_000,
                compression_savings_micro_usd: 100 + i,
              },
              lone.id,
            ),
          ),
        )
        .execute();
      const body = (await savings('period=7d&group_by=model', lone.token, lone.id)).json;
      assert.equal(body.groups.length, 11);
      assert.equal(body.groups[0].key, 'gone/m12');
      assert.equal(body.groups[10].key, '(other)');
      assert.equal(body.groups[10].savings_micro_usd, 100 + 101 + 102);
      assert.equal(body.totals.savings_micro_usd, 13 * 100 + 78);
      assert.equal(body.unpriced_models.length, 0, 'recorded savings need no price');
    });
  });
}
