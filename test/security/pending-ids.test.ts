import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { assertGatewayError, PRICING } from '../support/chat-kit.js';

/**
 * Issue 16, row 8 (pending ids): every deferred gateway-tool turn stored a row, and a key could
 * create them without limit for the hour they live. Each key now keeps at most
 * GATEWAY_PENDING_MAX_PER_KEY live ids (a new one evicts that key's oldest), for
 * GATEWAY_PENDING_TTL_SECONDS.
 */
const MODEL = 'openai/gpt-4o-mini';
const CAP = 5;
const TTL_SECONDS = 30;
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
/** A turn that calls a gateway tool and a client tool: the gateway defers it and issues a pending id. */
const MIXED_TURN = {
  toolCalls: [
    { id: 'call_g', name: 'gateway_current_time' },
    { id: 'call_c', name: 'get_weather', arguments: { city: 'Paris' } },
  ],
};

for (const store of storeKinds()) {
  describe(`pending gateway-tool ids are capped per key and expire (issue 16 row 8, ${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    let org: { id: string; token: string };

    before(async () => {
      mock = await startMockOpenAI({ apiKey: 'sk-mock' });
      mock.setScenario(MIXED_TURN);
      h = await startHarness({
        store,
        config: {
          providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
          models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'gpt-4o-mini' }], pricing: PRICING }],
        },
        env: {
          MOCK_KEY: 'sk-mock',
          GATEWAY_PENDING_MAX_PER_KEY: String(CAP),
          GATEWAY_PENDING_TTL_SECONDS: String(TTL_SECONDS),
        },
      });
      org = await h.organization();
      const activated = await h.console('POST', `/v1/organizations/${org.id}/gateway_tools/gateway_current_time`, {
        token: org.token,
        body: { active: true },
      });
      assert.equal(activated.status, 200, activated.text);
    });
    after(async () => {
      await h.stop();
      await mock.close();
    });

    const messages = [{ role: 'user', content: 'time and weather?' }];
    async function deferTurn(key: string): Promise<{ id: string; assistant: unknown }> {
      const result = await h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: { model: MODEL, messages, tools: [WEATHER], gateway_tool_ids: ['gateway_current_time'] },
      });
      assert.equal(result.status, 200, result.text);
      assert.ok(result.json.gateway_pending_id, result.text);
      return { id: result.json.gateway_pending_id, assistant: result.json.choices[0].message };
    }
    const resume = (key: string, turn: { id: string; assistant: unknown }) =>
      h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: {
          model: MODEL,
          tools: [WEATHER],
          gateway_pending_id: turn.id,
          messages: [...messages, turn.assistant, { role: 'tool', tool_call_id: 'call_c', content: 'sunny' }],
        },
      });
    const rowsOf = (apiKeyId: string) =>
      h.running.store.db
        .selectFrom('gateway_pending_operations')
        .select(['id', 'created_at', 'expires_at'])
        .where('api_key_id', '=', apiKeyId)
        .execute();

    it(`a key that defers turns in a loop keeps only its ${CAP} newest ids; other keys keep theirs`, async () => {
      const flooder = await h.createKey(org, { name: 'flooder' });
      const bystander = await h.createKey(org, { name: 'bystander' });
      const bystanderTurn = await deferTurn(bystander.key);
      const turns = [];
      for (let i = 0; i < 3 * CAP; i++) turns.push(await deferTurn(flooder.key));

      const rows = await rowsOf(flooder.id);
      assert.equal(rows.length, CAP, `${rows.length} pending rows for one key`);
      assert.deepEqual(
        rows.map((r) => r.id).sort(),
        turns
          .slice(-CAP)
          .map((t) => t.id)
          .sort(),
        'the newest are kept',
      );
      assert.equal((await rowsOf(bystander.id)).length, 1, 'another key’s id is not evicted');

      assertGatewayError(await resume(flooder.key, turns[0]!), {
        status: 400,
        code: 'invalid_request',
        param: 'gateway_pending_id',
      });
      assert.equal((await resume(flooder.key, turns.at(-1)!)).status, 200);
      assert.equal((await resume(bystander.key, bystanderTurn)).status, 200);
    });

    it(`ids live GATEWAY_PENDING_TTL_SECONDS (${TTL_SECONDS} s) and not a moment longer`, async () => {
      const key = await h.createKey(org, { name: 'ttl' });
      const turn = await deferTurn(key.key);
      const [row] = await rowsOf(key.id);
      assert.equal(Number(row!.expires_at) - Number(row!.created_at), TTL_SECONDS * 1000);
      await h.running.store.db
        .updateTable('gateway_pending_operations')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', turn.id)
        .execute();
      assertGatewayError(await resume(key.key, turn), {
        status: 400,
        code: 'invalid_request',
        param: 'gateway_pending_id',
      });
    });
  });
}
