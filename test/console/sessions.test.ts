import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';
import { usageRecord } from '../support/usage-record.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Prices per million tokens = micro-USD per token, so every expected amount is exact.
const CACHED = 'test/cached-model'; // input 4, cached read 0.4, cache write 5
const PLAIN = 'test/plain-model'; // input 2, no cache prices
const PRICES: Record<string, { input: number; read: number; write: number }> = {
  [CACHED]: { input: 4, read: 0.4, write: 5 },
  [PLAIN]: { input: 2, read: 2, write: 2 },
};
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

const AGENTS = {
  claude: 'claude-cli/1.0.83 (external, cli)',
  codex: 'codex_cli_rs/0.20.0 (Mac OS 14.5.0; arm64) iTerm.app/3.5.10',
  opencode: 'opencode/0.5.1 ai-sdk/provider-utils/3.0.0',
};

/** A session's figures counted again from its rows, with the pricing rules written out here. */
function recount(rows: UsageRecordsTable[]) {
  const sum = (f: (r: UsageRecordsTable) => number) => rows.reduce((total, r) => total + f(r), 0);
  const read = (r: UsageRecordsTable) => Math.min(r.cached_input_tokens, r.input_tokens);
  const written = (r: UsageRecordsTable) =>
    Math.min(r.cache_creation_input_tokens, Math.max(0, r.input_tokens - r.cached_input_tokens));
  const price = (r: UsageRecordsTable) => PRICES[r.model] ?? { input: 0, read: 0, write: 0 };
  const compression = (r: UsageRecordsTable) =>
    r.uncompressed_input_tokens === null
      ? 0
      : (r.compression_savings_micro_usd ??
        Math.round(Math.max(0, r.uncompressed_input_tokens - r.input_tokens) * price(r).input));
  const caching = (r: UsageRecordsTable) =>
    Math.round(read(r) * (price(r).input - price(r).read)) - Math.round(written(r) * (price(r).write - price(r).input));
  return {
    requests: rows.length,
    input_tokens: sum((r) => r.input_tokens),
    cached_input_tokens: sum(read),
    cache_write_tokens: sum(written),
    output_tokens: sum((r) => r.output_tokens),
    cost_micro_usd: sum((r) => r.cost_micro_usd),
    compression_savings_micro_usd: sum(compression),
    caching_savings_micro_usd: sum(caching),
    savings_micro_usd: sum(compression) + sum(caching),
    models: [...new Set(rows.map((r) => r.model))].sort(),
    api_key_ids: [...new Set(rows.map((r) => r.api_key_id))].sort(),
    started_at: new Date(Math.min(...rows.map((r) => r.created_at - r.latency_ms))).toISOString(),
    ended_at: new Date(Math.max(...rows.map((r) => r.created_at))).toISOString(),
  };
}

for (const store of storeKinds()) {
  describe(`console sessions (${store})`, () => {
    let h: Harness;
    let org: { id: string; slug: string; token: string };
    let other: { id: string; token: string };
    let alpha: { id: string; key: string };
    let beta: { id: string; key: string };
    const now = Date.now();

    const list = (query = '', token = org.token, orgId = org.id) =>
      h.console('GET', `/v1/organizations/${orgId}/sessions${query ? `?${query}` : ''}`, { token });
    const detail = (id: string, token = org.token, orgId = org.id) =>
      h.console('GET', `/v1/organizations/${orgId}/sessions/${encodeURIComponent(id)}`, { token });
    const chat = (key: string, headers: Record<string, string>, content = 'Hi') =>
      h.gateway('POST', '/v1/chat/completions', {
        token: key,
        headers,
        body: { model: CACHED, messages: [{ role: 'user', content }] },
      });
    const rowsOf = (sessionId: string) =>
      h.running.store.db
        .selectFrom('usage_records')
        .selectAll()
        .where('organization_id', '=', org.id)
        .where('session_id', '=', sessionId)
        .execute() as Promise<UsageRecordsTable[]>;

    before(async () => {
      h = await startHarness({ store, config: CONFIG });
      org = await h.organization();
      other = await h.organization();
      alpha = await h.createKey(org, { name: 'alpha' });
      beta = await h.createKey(org, { name: 'beta' });
      const elsewhere = await h.createKey(other, { name: 'elsewhere' });

      // Real requests through the gateway, each agent with its own user agent and session header.
      const sent = [
        await chat(alpha.key, { 'user-agent': AGENTS.claude, 'x-claude-code-session-id': 'cc-1' }),
        // A subagent's request stays in its parent's session.
        await chat(alpha.key, {
          'user-agent': AGENTS.claude,
          'x-claude-code-session-id': 'cc-1',
          'x-claude-code-agent-id': 'sub-1',
        }),
        await chat(beta.key, { 'user-agent': AGENTS.codex, session_id: 'cx-1', 'thread-id': 't-1' }),
        await chat(beta.key, { 'user-agent': AGENTS.opencode, 'x-session-id': 'oc-1' }),
        await chat(alpha.key, { 'user-agent': 'OpenAI/JS 4.0' }),
        await chat(elsewhere.key, { 'user-agent': AGENTS.claude, 'x-claude-code-session-id': 'cc-1' }),
      ];
      for (const answer of sent) assert.equal(answer.status, 200, answer.text);

      // Seeded rows with money in them: cached reads, writes, recorded and estimated compression.
      const seed = (fields: Partial<UsageRecordsTable> & { created_at: number; api_key_id: string }) =>
        usageRecord(org.id, { model: CACHED, provider: 'local', upstream_model: 'echo', ...fields });
      await h.running.store.db
        .insertInto('usage_records')
        .values([
          seed({
            created_at: now - 3 * HOUR,
            api_key_id: alpha.id,
            session_id: 'cc-1',
            agent: 'claude-cli/1.0.80',
            input_tokens: 10_000,
            cached_input_tokens: 6_000,
            cache_creation_input_tokens: 2_000,
            uncompressed_input_tokens: 15_000,
            compression_savings_micro_usd: 20_000,
            cost_micro_usd: 30_000,
            latency_ms: 2_000,
          }),
          seed({
            created_at: now - 2 * HOUR,
            api_key_id: beta.id,
            session_id: 'cc-1',
            agent: 'claude-cli/1.0.80',
            model: PLAIN,
            input_tokens: 5_000,
            cached_input_tokens: 3_000,
            uncompressed_input_tokens: 7_000,
            cost_micro_usd: 10_800,
          }),
          seed({
            created_at: now - 30 * MINUTE,
            api_key_id: beta.id,
            session_id: 'cx-1',
            agent: 'codex_cli_rs/0.19.0',
            input_tokens: 5_000,
            cached_input_tokens: 9_000,
            cache_creation_input_tokens: 1_000,
            cost_micro_usd: 2_000,
            status_code: 429,
            error_code: 'rate_limited',
          }),
          seed({
            created_at: now - 5 * HOUR,
            api_key_id: beta.id,
            session_id: 'oc-old',
            agent: 'opencode/0.4.0',
            model: 'gone/model',
            cached_input_tokens: 100,
            uncompressed_input_tokens: 1_500,
            compression_savings_micro_usd: 500,
            cost_micro_usd: 700,
          }),
        ])
        .execute();
    });
    after(() => h.stop());

    it('fills the session and the agent of each metered request from its headers and user agent', async () => {
      const rows = await h.running.store.db
        .selectFrom('usage_records')
        .select(['session_id', 'agent'])
        .where('organization_id', '=', org.id)
        .where('provider', '=', 'local')
        .where('tags', '=', '[]')
        .where('created_at', '>', now - MINUTE)
        .execute();
      const seen = rows.map((r) => `${r.session_id}|${r.agent}`).sort();
      assert.deepEqual(seen, [
        'cc-1|claude-cli/1.0.83',
        'cc-1|claude-cli/1.0.83',
        'cx-1|codex_cli_rs/0.20.0',
        'null|null',
        'oc-1|opencode/0.5.1',
      ]);
    });

    it('names a session after the conversation compression derived when the client sent no session header', async () => {
      const team = await h.organization();
      const key = await h.createKey(team, { name: 'compressing', compression: true });
      const task = [{ role: 'user', content: 'Fix the failing test in src/app.ts' }];
      const turns = [
        task,
        [...task, { role: 'assistant', content: 'Looking at it.' }, { role: 'user', content: 'Go on.' }],
        [{ role: 'user', content: 'Another task altogether' }],
      ];
      for (const messages of turns) {
        const answer = await h.gateway('POST', '/v1/chat/completions', {
          token: key.key,
          headers: { 'user-agent': 'OpenAI/JS 4.0' },
          body: { model: CACHED, messages },
        });
        assert.equal(answer.status, 200, answer.text);
      }
      const listed = await h.console('GET', `/v1/organizations/${team.id}/sessions`, { token: team.token });
      assert.equal(listed.status, 200, listed.text);
      const sessions = listed.json.data.map((s: { id: string; requests: number }) => [s.id, s.requests]);
      assert.equal(sessions.length, 2, listed.text);
      assert.deepEqual(
        sessions.map(([, n]: [string, number]) => n).sort(),
        [1, 2],
        'both turns of the first task together',
      );
      for (const [id] of sessions) assert.match(id, /^conversation-[0-9a-f]{40}$/);
    });

    it('lists every session with figures equal to a re-count of its usage rows', async () => {
      const answer = await list();
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.object, 'list');
      const ids = answer.json.data.map((s: { id: string }) => s.id);
      assert.deepEqual([...ids].sort(), ['cc-1', 'cx-1', 'oc-1', 'oc-old']);
      for (const session of answer.json.data) {
        const expected = recount(await rowsOf(session.id));
        for (const [field, value] of Object.entries(expected))
          assert.deepEqual(session[field], value, `${session.id}.${field}`);
        assert.equal(session.duration_ms, Date.parse(session.ended_at) - Date.parse(session.started_at));
      }
      const cc = answer.json.data.find((s: { id: string }) => s.id === 'cc-1');
      assert.equal(cc.agent, 'claude-cli');
      assert.equal(cc.agent_version, '1.0.83', 'the newest version the session ran with');
      assert.ok(cc.savings_micro_usd > 0 && cc.compression_savings_micro_usd >= 20_000);
      const starts = answer.json.data.map((s: { started_at: string }) => s.started_at);
      assert.deepEqual(starts, [...starts].sort().reverse(), 'newest start first');
    });

    it('filters by key, agent and time, each figure counting only the rows that pass', async () => {
      const byKey = await list(`api_key_id=${beta.id}`);
      assert.equal(byKey.status, 200, byKey.text);
      assert.deepEqual(byKey.json.data.map((s: { id: string }) => s.id).sort(), ['cc-1', 'cx-1', 'oc-1', 'oc-old']);
      const ccOnBeta = byKey.json.data.find((s: { id: string }) => s.id === 'cc-1');
      const betaRows = (await rowsOf('cc-1')).filter((r) => r.api_key_id === beta.id);
      assert.equal(ccOnBeta.requests, betaRows.length);
      assert.equal(ccOnBeta.cost_micro_usd, recount(betaRows).cost_micro_usd);

      const codex = await list('agent=codex_cli_rs');
      assert.deepEqual(
        codex.json.data.map((s: { id: string }) => s.id),
        ['cx-1'],
      );
      // `_` is not a wildcard: no other agent matches a name one character off.
      assert.deepEqual((await list('agent=codex-cli-rs')).json.data, []);

      const recent = await list(`from=${new Date(now - HOUR).toISOString()}`);
      assert.deepEqual(recent.json.data.map((s: { id: string }) => s.id).sort(), ['cc-1', 'cx-1', 'oc-1']);
      const old = await list(
        `from=${new Date(now - 6 * HOUR).toISOString()}&to=${new Date(now - 4 * HOUR).toISOString()}`,
      );
      assert.deepEqual(
        old.json.data.map((s: { id: string }) => s.id),
        ['oc-old'],
      );
    });

    it('pages through every session once, in order', async () => {
      const all = (await list()).json.data.map((s: { id: string }) => s.id);
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 5; page++) {
        const answer = await list(`limit=1${after ? `&starting_after=${after}` : ''}`);
        assert.equal(answer.status, 200, answer.text);
        seen.push(...answer.json.data.map((s: { id: string }) => s.id));
        after = answer.json.last_key;
        if (!answer.json.has_more) break;
      }
      assert.deepEqual(seen, all);
    });

    it('shows one session with its requests in time order, figures per request', async () => {
      const answer = await detail('cc-1');
      assert.equal(answer.status, 200, answer.text);
      const rows = (await rowsOf('cc-1')).sort((a, b) => a.created_at - b.created_at);
      assert.equal(answer.json.requests.length, rows.length);
      assert.equal(answer.json.requests_truncated, false);
      assert.deepEqual(
        answer.json.requests.map((r: { request_id: string }) => r.request_id),
        rows.map((r) => r.request_id),
      );
      for (const [i, request] of answer.json.requests.entries()) {
        const expected = recount([rows[i]!]);
        for (const field of ['input_tokens', 'cached_input_tokens', 'cost_micro_usd', 'savings_micro_usd'] as const)
          assert.equal(request[field], expected[field], `request ${i} ${field}`);
        assert.equal(request.latency_ms, rows[i]!.latency_ms);
        assert.equal(request.status_code, rows[i]!.status_code);
      }
      assert.equal(answer.json.cost_micro_usd, recount(rows).cost_micro_usd);
      const codex = await detail('cx-1');
      assert.ok(codex.json.requests.some((r: { status_code: number }) => r.status_code === 429));
    });

    it("keeps organizations apart: another organization's sessions are never seen", async () => {
      // A foreign organization's path is refused before anything is read, as on every console route
      // (console-auth.ts, registerOrganizationScope); through its own path, another's session is not found.
      assert.equal((await detail('cc-1', other.token, org.id)).status, 403);
      assert.equal((await list('', other.token, org.id)).status, 403);
      assert.equal((await detail('cx-1', other.token, other.id)).status, 404);
      const own = await list('', other.token, other.id);
      assert.deepEqual(
        own.json.data.map((s: { id: string; requests: number }) => [s.id, s.requests]),
        [['cc-1', 1]],
      );
      assert.equal((await detail('no-such-session')).status, 404);
    });

    it('lets a read-only token read, and refuses bad filters with a 400', async () => {
      // The same organization (looked up by its slug), through a token that may only read.
      const readOnly = await h.organization(org.slug, 'read');
      const read = await list('', readOnly.token);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.data.length, 4);
      assert.equal((await detail('cc-1', readOnly.token)).status, 200);
      for (const query of [
        'agent=Claude%20CLI',
        'limit=0',
        'from=yesterday',
        `from=${new Date(now).toISOString()}&to=${new Date(now - HOUR).toISOString()}`,
        'colour=blue',
      ]) {
        const answer = await list(query);
        assert.equal(answer.status, 400, `${query}: ${answer.text}`);
        assert.equal(typeof answer.json.message, 'string', answer.text);
      }
    });
  });
}
