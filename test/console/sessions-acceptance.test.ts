import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { seedSessions, SEEDED_MEMBERS, type SeededSessions } from '../support/seed-sessions.js';
import { Catalogue } from '../../src/catalogue/catalogue.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';

const DAY = 86_400_000;

/**
 * Issue 30's first acceptance bullet: an organization of 3 members, 5 keys and 40 sessions from
 * Claude Code, Codex and opencode, where every figure the sessions list shows equals a re-count
 * of the usage rows, read back with plain SQL and added up here with the pricing rules written
 * out (cached reads at most the input, writes at most what is left, compression recorded or
 * estimated at the input price, amounts rounded per session and model).
 */
function recount(rows: UsageRecordsTable[], catalogue: Catalogue, emails: Map<string, string>) {
  const byModel = new Map<string, UsageRecordsTable[]>();
  for (const row of rows) byModel.set(row.model, [...(byModel.get(row.model) ?? []), row]);
  const total = {
    requests: rows.length,
    input_tokens: 0,
    cached_input_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 0,
    cost_micro_usd: 0,
    compression_savings_micro_usd: 0,
    caching_savings_micro_usd: 0,
  };
  for (const [model, modelRows] of byModel) {
    const pricing = catalogue.find(model)!.pricing;
    const input = pricing.input_per_mtok;
    const read = pricing.cached_input_per_mtok ?? input;
    const write = pricing.cache_write_per_mtok ?? input;
    let reads = 0;
    let writes = 0;
    let estimatedTokens = 0;
    for (const r of modelRows) {
      const cached = Math.min(r.cached_input_tokens, r.input_tokens);
      const written = Math.min(r.cache_creation_input_tokens, Math.max(0, r.input_tokens - cached));
      reads += cached;
      writes += written;
      total.input_tokens += r.input_tokens;
      total.output_tokens += r.output_tokens;
      total.cost_micro_usd += r.cost_micro_usd;
      if (r.uncompressed_input_tokens !== null) {
        const saved = Math.max(0, r.uncompressed_input_tokens - r.input_tokens);
        if (r.compression_savings_micro_usd == null) estimatedTokens += saved;
        else total.compression_savings_micro_usd += r.compression_savings_micro_usd;
      }
    }
    total.cached_input_tokens += reads;
    total.cache_write_tokens += writes;
    total.compression_savings_micro_usd += Math.round(estimatedTokens * input);
    total.caching_savings_micro_usd += Math.round(reads * (input - read)) - Math.round(writes * (write - input));
  }
  const [agent, version] = rows[0]!.agent!.split('/');
  const starts = rows.map((r) => r.created_at - r.latency_ms);
  const ends = rows.map((r) => r.created_at);
  return {
    ...total,
    savings_micro_usd: total.compression_savings_micro_usd + total.caching_savings_micro_usd,
    agent,
    agent_version: version,
    models: [...byModel.keys()].sort(),
    api_key_ids: [...new Set(rows.map((r) => r.api_key_id))].sort(),
    member_emails: [...new Set(rows.map((r) => emails.get(r.member_id!)))].sort(),
    started_at: new Date(Math.min(...starts)).toISOString(),
    ended_at: new Date(Math.max(...ends)).toISOString(),
    duration_ms: Math.max(...ends) - Math.min(...starts),
  };
}

for (const store of storeKinds()) {
  describe(`sessions list of a seeded team equals a re-count of its usage rows (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string };
    let seeded: SeededSessions;
    const catalogue = new Catalogue({});
    const emails = new Map<string, string>();
    const keyNames = new Map<string, string>();
    const now = Date.now();

    /** Every session the API lists for a query, paged 100 at a time. */
    async function listAll(query = ''): Promise<Array<Record<string, any>>> {
      const all: Array<Record<string, any>> = [];
      let after = '';
      for (let page = 0; page < 10; page++) {
        const answer = await h.console(
          'GET',
          `/v1/organizations/${org.id}/sessions?limit=100${query}${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`,
          { token: org.token },
        );
        assert.equal(answer.status, 200, answer.text);
        all.push(...answer.json.data);
        if (!answer.json.has_more) return all;
        after = answer.json.last_key;
      }
      throw new Error('more than 10 pages');
    }

    /** The organization's rows straight from the table, with a filter in plain SQL. */
    async function rowsWhere(where = sql`1 = 1`): Promise<UsageRecordsTable[]> {
      const result = await sql<UsageRecordsTable>`select * from usage_records
        where organization_id = ${org.id} and session_id is not null and ${where}`.execute(h.running.store.db);
      return result.rows.map((r) => ({
        ...r,
        created_at: Number(r.created_at),
        latency_ms: Number(r.latency_ms),
        input_tokens: Number(r.input_tokens),
        cached_input_tokens: Number(r.cached_input_tokens),
        cache_creation_input_tokens: Number(r.cache_creation_input_tokens),
        output_tokens: Number(r.output_tokens),
        cost_micro_usd: Number(r.cost_micro_usd),
        uncompressed_input_tokens: r.uncompressed_input_tokens === null ? null : Number(r.uncompressed_input_tokens),
        compression_savings_micro_usd:
          r.compression_savings_micro_usd === null ? null : Number(r.compression_savings_micro_usd),
      }));
    }

    function assertEqualsRecount(listed: Array<Record<string, any>>, rows: UsageRecordsTable[], what: string) {
      const bySession = new Map<string, UsageRecordsTable[]>();
      for (const row of rows) bySession.set(row.session_id!, [...(bySession.get(row.session_id!) ?? []), row]);
      assert.deepEqual(listed.map((s) => s.id).sort(), [...bySession.keys()].sort(), `${what}: the sessions`);
      for (const session of listed) {
        const expected = recount(bySession.get(session.id)!, catalogue, emails);
        const { member_emails, ...figures } = expected;
        for (const [field, value] of Object.entries(figures))
          assert.deepEqual(session[field], value, `${what}: ${session.id}.${field}`);
        assert.deepEqual(
          session.members.map((m: { email: string }) => m.email).sort(),
          member_emails,
          `${what}: members`,
        );
      }
    }

    before(async () => {
      h = await startHarness({ store });
      org = await h.organization();
      const keys = [];
      for (const name of ['ada-laptop', 'ada-ci', 'grace-laptop', 'grace-devbox', 'linus-laptop']) {
        const key = await h.createKey(org, { name });
        keys.push(key.id);
        keyNames.set(key.id, name);
      }
      seeded = await seedSessions(h.running.store, org.id, keys, now);
      for (const [i, id] of seeded.memberIds.entries()) emails.set(id, SEEDED_MEMBERS[i]!.email);
      // Another organization's rows with the same session ids are never counted.
      const rival = await h.organization();
      const rivalKeys = [];
      for (let i = 0; i < 5; i++) rivalKeys.push((await h.createKey(rival, { name: `rival-${i}` })).id);
      await seedSessions(h.running.store, rival.id, rivalKeys, now);
    });
    after(() => h.stop());

    it('seeds 3 members, 5 keys and 40 sessions from the three agents', async () => {
      const rows = await rowsWhere();
      assert.equal(new Set(rows.map((r) => r.session_id)).size, 40);
      assert.equal(new Set(rows.map((r) => r.api_key_id)).size, 5);
      assert.equal(new Set(rows.map((r) => r.member_id)).size, 3);
      assert.deepEqual([...new Set(rows.map((r) => r.agent!.split('/')[0]))].sort(), [
        'claude-cli',
        'codex_cli_rs',
        'opencode',
      ]);
    });

    it('shows every figure of every session as the re-count of its rows', async () => {
      const listed = await listAll();
      assert.equal(listed.length, 40);
      assertEqualsRecount(listed, await rowsWhere(), 'all');
      for (const session of listed)
        assert.deepEqual(
          session.api_keys.map((k: { name: string }) => k.name),
          session.api_key_ids.map((id: string) => keyNames.get(id)),
        );
    });

    it('filters by member, agent, key and dates, each figure re-counted from the rows that pass', async () => {
      const [grace] = seeded.memberIds.slice(1);
      assertEqualsRecount(await listAll(`&member_id=${grace}`), await rowsWhere(sql`member_id = ${grace}`), 'member');
      assertEqualsRecount(await listAll('&agent=opencode'), await rowsWhere(sql`agent like ${'opencode/%'}`), 'agent');
      const key = [...seeded.keyOwners.keys()][3]!;
      assertEqualsRecount(await listAll(`&api_key_id=${key}`), await rowsWhere(sql`api_key_id = ${key}`), 'key');
      const from = now - 3 * DAY;
      const to = now - DAY;
      assertEqualsRecount(
        await listAll(`&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`),
        await rowsWhere(sql`created_at >= ${from} and created_at < ${to}`),
        'dates',
      );
    });

    it('offers the members, keys and agents the sessions name as filter values', async () => {
      const answer = await h.console('GET', `/v1/organizations/${org.id}/session_filters`, { token: org.token });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(
        answer.json.members.map((m: { email: string }) => m.email).sort(),
        SEEDED_MEMBERS.map((m) => m.email).sort(),
      );
      assert.equal(answer.json.api_keys.length, 5);
      assert.deepEqual(answer.json.agents, ['claude-cli', 'codex_cli_rs', 'opencode']);
    });
  });
}
