import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { parseCsv } from '../support/csv.js';
import { splitTags, microUsdToDecimal } from '../../src/console/export/export-format.js';
import { unescapeFormulaCell } from '../../src/console/export/csv.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';

/** GET /v1/organizations/{orgId}/logs/export (spec 2.9, 4.2): CSV and JSON round trips, filters, errors. */
const HOUR = 3_600_000;
const AWKWARD_NAMES = [
  'plain',
  'comma, "quoted" name',
  'line one\nline two\r\nthree',
  'ünïcødé 🚀 名前',
  '=SUM(A1) ; tab\there',
  '  spaces around  ',
];
const AWKWARD_TAGS = [
  ['prod'],
  ['say "hi"', 'émoji 🎉'],
  ['multi\nline', 'semi;colon'],
  [],
  ['back\\slash', 'with, comma'],
  [' padded tag '],
];

interface Expected {
  id: string;
  created_at: number;
  api_key_id: string;
  name: string;
  tags: string[];
  cost: number;
  input: number;
  output: number;
  model: string;
}

for (const store of storeKinds()) {
  describe(`usage export (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string; slug: string };
    const expected: Expected[] = [];
    const keyIds: string[] = [];
    const now = Date.now();

    before(async () => {
      h = await startHarness({ store });
      org = await h.organization();
      const other = await h.organization();
      for (const name of AWKWARD_NAMES) keyIds.push((await h.createKey(org, { name })).id);
      const otherKey = await h.createKey(other, { name: 'other org key' });
      const rows: UsageRecordsTable[] = [];
      AWKWARD_NAMES.forEach((name, i) => {
        for (let j = 0; j < 3; j++) {
          const created_at = now - (i * 3 + j + 1) * HOUR;
          const row = usageRow({
            organization_id: org.id,
            api_key_id: keyIds[i]!,
            created_at,
            tags: AWKWARD_TAGS[i]!,
            cost: 1_234_567 * (j + 1) + i,
            input: 1000 + i,
            output: 20 + j,
            model: `openai/gpt-${i}`,
          });
          rows.push(row);
          expected.push({
            id: row.id,
            created_at,
            api_key_id: keyIds[i]!,
            name,
            tags: AWKWARD_TAGS[i]!,
            cost: row.cost_micro_usd,
            input: row.input_tokens,
            output: row.output_tokens,
            model: row.model,
          });
        }
      });
      // Outside the default 24h window, and another organization's row: never exported here.
      rows.push(
        usageRow({
          organization_id: org.id,
          api_key_id: keyIds[0]!,
          created_at: now - 30 * HOUR,
          tags: ['old'],
          cost: 1,
          input: 1,
          output: 1,
          model: 'openai/old',
        }),
      );
      rows.push(
        usageRow({
          organization_id: other.id,
          api_key_id: otherKey.id,
          created_at: now - HOUR,
          tags: ['prod'],
          cost: 1,
          input: 1,
          output: 1,
          model: 'openai/other',
        }),
      );
      await h.running.store.db.insertInto('usage_records').values(rows).execute();
      // A deleted key keeps its name in the export (api_keys rows are soft-deleted).
      assert.equal(
        (await h.console('DELETE', `/v1/organizations/${org.id}/api_keys/${keyIds[4]}`, { token: org.token })).status,
        200,
      );
      expected.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
    });
    after(async () => h.stop());

    const exportPath = (query: string) => `/v1/organizations/${org.id}/logs/export${query ? `?${query}` : ''}`;

    async function csv(query: string) {
      const result = await h.console('GET', exportPath(query), { token: org.token });
      assert.equal(result.status, 200, result.text);
      assert.match(String(result.headers['content-type']), /^text\/csv/);
      assert.match(
        String(result.headers['content-disposition']),
        /^attachment; filename="usage-\d{8}T\d{6}Z-\d{8}T\d{6}Z\.csv"$/,
      );
      const [header, ...records] = parseCsv(result.text);
      assert.deepEqual(header, [
        'Timestamp',
        'API Key',
        'Model',
        'Provider',
        'Input Tokens',
        'Output Tokens',
        'Cost',
        'Tags',
      ]);
      return records;
    }

    async function json(query: string) {
      const result = await h.console('GET', exportPath(query), { token: org.token });
      assert.equal(result.status, 200, result.text);
      assert.match(String(result.headers['content-type']), /^application\/json/);
      assert.match(String(result.headers['content-disposition']), /\.json"$/);
      return result.json as any[];
    }

    function assertCsvMatches(records: string[][], want: Expected[]) {
      assert.equal(records.length, want.length);
      records.forEach((record, i) => {
        const row = want[i]!;
        assert.equal(record.length, 8);
        assert.equal(record[0], new Date(row.created_at).toISOString());
        // A formula-leading name ('=SUM(A1) …') leaves prefixed with ' (test/security/csv-injection.test.ts).
        assert.equal(unescapeFormulaCell(record[1]!), `${row.name} (${row.api_key_id})`);
        assert.equal(record[2], row.model);
        assert.equal(record[3], 'openai');
        assert.equal(record[4], String(row.input));
        assert.equal(record[5], String(row.output));
        assert.equal(record[6], microUsdToDecimal(row.cost));
        assert.deepEqual(splitTags(unescapeFormulaCell(record[7]!)), row.tags);
      });
    }

    function assertJsonMatches(records: any[], want: Expected[]) {
      assert.equal(records.length, want.length);
      records.forEach((record, i) => {
        const row = want[i]!;
        assert.equal(record.id, row.id);
        assert.equal(record.timestamp, new Date(row.created_at).toISOString());
        assert.equal(record.api_key_id, row.api_key_id);
        assert.equal(record.api_key_name, row.name);
        assert.equal(record.model, row.model);
        assert.equal(record.provider, 'openai');
        assert.equal(record.input_tokens, row.input);
        assert.equal(record.output_tokens, row.output);
        assert.equal(record.cost, microUsdToDecimal(row.cost));
        assert.equal(record.cost_micro_usd, row.cost);
        assert.deepEqual(record.tags, row.tags);
        assert.equal(record.status, 200);
        assert.equal(typeof record.request_id, 'string');
        assert.equal(record.cached_input_tokens, 7);
      });
    }

    it('CSV: the default 24h export round-trips awkward names and tags through a CSV parser', async () => {
      assertCsvMatches(await csv(''), expected);
    });

    it('JSON: the same rows as snake_case records', async () => {
      assertJsonMatches(await json('format=json'), expected);
    });

    it('cost is an exact decimal of micro-USD, never a float', () => {
      assert.equal(microUsdToDecimal(0), '0.000000');
      assert.equal(microUsdToDecimal(1), '0.000001');
      assert.equal(microUsdToDecimal(1_234_567), '1.234567');
      assert.equal(microUsdToDecimal(9_007_199_254_740_991), '9007199254.740991');
    });

    it('filters by api_key_id[] (bracketed, bare and repeated) in both formats', async () => {
      const want = expected.filter((r) => r.api_key_id === keyIds[1] || r.api_key_id === keyIds[4]);
      assertCsvMatches(await csv(`api_key_id[]=${keyIds[1]}&api_key_id[]=${keyIds[4]}`), want);
      assertJsonMatches(await json(`format=json&api_key_id=${keyIds[1]}&api_key_id=${keyIds[4]}`), want);
      assertCsvMatches(
        await csv(`api_key_id=${keyIds[2]}`),
        expected.filter((r) => r.api_key_id === keyIds[2]),
      );
    });

    it('filters by tags[] (any of the tags), awkward tags included', async () => {
      for (const tags of [['say "hi"'], ['multi\nline', 'prod'], ['with, comma'], ['émoji 🎉'], ['100%_like']]) {
        const want = expected.filter((r) => r.tags.some((t) => tags.includes(t)));
        const query = tags.map((t) => `tags[]=${encodeURIComponent(t)}`).join('&');
        assertCsvMatches(await csv(query), want);
        assertJsonMatches(await json(`format=json&${query.replace(/tags\[\]/g, 'tags')}`), want);
      }
    });

    it('period and from_date/to_date select the window; to_date as a bare date covers that day', async () => {
      assertCsvMatches(
        await csv('period=4h'),
        expected.filter((r) => r.created_at > now - 4 * HOUR),
      );
      assertJsonMatches(await json('format=json&period=20h'), [...expected]);
      const from = new Date(now - 7 * HOUR).toISOString();
      const to = new Date(now - 2 * HOUR).toISOString();
      assertJsonMatches(
        await json(`format=json&from_date=${from}&to_date=${to}`),
        expected.filter((r) => r.created_at >= now - 7 * HOUR && r.created_at < now - 2 * HOUR),
      );
      const old = await json(
        `format=json&from_date=${new Date(now - 31 * HOUR).toISOString()}&to_date=${new Date(now - 29 * HOUR).toISOString()}`,
      );
      assert.deepEqual(
        old.map((r) => r.model),
        ['openai/old'],
      );
      const day = new Date(now + 86_400_000).toISOString().slice(0, 10);
      assert.equal((await json(`format=json&from_date=2000-01-01&to_date=${day}`)).length, expected.length + 1);
    });

    it('an empty window is a header-only CSV and an empty JSON array', async () => {
      assert.deepEqual(await csv('from_date=2001-01-01&to_date=2001-01-02'), []);
      assert.deepEqual(await json('format=json&from_date=2001-01-01&to_date=2001-01-02'), []);
    });

    it('bad parameters are 400s that name the parameter', async () => {
      for (const [query, param] of [
        ['period=5x', 'period'],
        ['period=0h', 'period'],
        ['period=99999d', 'period'],
        ['format=xml', 'format'],
        ['from_date=yesterday', 'from_date'],
        ['to_date=2025-02-30', 'to_date'],
        ['from_date=2025-02-01&to_date=2025-01-01', 'from_date'],
        ['period=1h&period=2h', 'period'],
        ['limit=5', 'limit'],
        [`tags[]=${'x'.repeat(201)}`, 'tags[]'],
      ] as const) {
        const result = await h.console('GET', exportPath(query), { token: org.token });
        assert.equal(result.status, 400, query);
        assert.equal(result.json.error, 'Bad Request');
        assert.equal(result.json.param, param, query);
        assert.ok(result.json.message.includes(param), query);
      }
    });

    it('never contains a key secret', async () => {
      const text = (await h.console('GET', exportPath('format=json&period=30d'), { token: org.token })).text;
      assert.ok(!/gw-[A-Za-z0-9_-]{43}/.test(text));
    });
  });
}

function usageRow(input: {
  organization_id: string;
  api_key_id: string;
  created_at: number;
  tags: string[];
  cost: number;
  input: number;
  output: number;
  model: string;
}): UsageRecordsTable {
  return {
    id: randomUUID(),
    request_id: `req_${randomUUID().replace(/-/g, '')}`,
    created_at: input.created_at,
    organization_id: input.organization_id,
    api_key_id: input.api_key_id,
    model: input.model,
    provider: 'openai',
    upstream_model: 'gpt',
    endpoint: 'chat.completions',
    input_tokens: input.input,
    cached_input_tokens: 7,
    cache_creation_input_tokens: 0,
    output_tokens: input.output,
    reasoning_tokens: 0,
    uncompressed_input_tokens: null,
    cost_micro_usd: input.cost,
    tags: JSON.stringify(input.tags),
    status_code: 200,
    error_code: null,
    latency_ms: 10,
    stream: 0,
  };
}
