import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { keySpend, PRICING, waitFor } from '../support/chat-kit.js';
import { monthOf } from '../../src/limits/budget-ledger.js';

/**
 * Several gateway instances on one store (issue 9, item 1; docs/scale-out.md). What the other
 * suites already prove is not repeated here:
 * - budget race across two processes on PostgreSQL: test/gateway/budget-race.test.ts;
 * - key changes on A seen by B within 2 s: test/gateway/auth.test.ts ("across two instances");
 * - kill -9 and restart: test/faults/crash.test.ts; collector outbox: test/collector/restart.test.ts.
 * This file covers the rest: a gateway_pending_id made on A is resumed on B, a gateway tool
 * activated through A's console is injected by B within 2 s, and a reservation whose holder died
 * is released by whichever live instance sweeps first.
 */
const MODEL = 'openai/gpt-4o-mini';
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

for (const store of storeKinds()) {
  describe(`two instances on one ${store} store`, () => {
    let mock: MockUpstream;
    let a: Harness;
    let b: Harness;
    let org: { id: string; token: string };

    before(async () => {
      mock = await startMockOpenAI();
      const config = {
        providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl }],
        models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'gpt-4o-mini' }], pricing: PRICING }],
      };
      a = await startHarness({ store, config });
      // B sweeps every 100 ms; A keeps the 30 s default, so a release seen within a second is B's.
      b = await startHarness({
        store,
        config,
        dataDir: a.dataDir,
        ...(a.schema ? { schema: a.schema } : {}),
        env: { GATEWAY_SWEEP_INTERVAL_MS: '100' },
      });
      org = await a.organization();
    });
    after(async () => {
      await b.stop();
      await a.stop();
      await mock.close();
    });
    beforeEach(() => mock.reset());

    it('a gateway_pending_id created on A is resumed on B', async () => {
      assert.equal(
        (
          await a.console('POST', `/v1/organizations/${org.id}/gateway_tools/gateway_calculator`, {
            token: org.token,
            body: { active: true },
          })
        ).status,
        200,
      );
      const key = await a.createKey(org);
      mock.setScenario([
        {
          toolCalls: [
            { id: 'call_g1', name: 'gateway_calculator', arguments: { expression: '6 * 7' } },
            { id: 'call_c1', name: 'get_weather', arguments: { city: 'Paris' } },
          ],
        },
        { text: 'Sunny and 42.' },
      ]);
      const messages = [{ role: 'user', content: 'Weather and 6*7?' }];
      const first = await a.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: MODEL, messages, tools: [WEATHER], gateway_tool_ids: ['gateway_calculator'] },
      });
      assert.equal(first.status, 200, first.text);
      const pendingId = first.json.gateway_pending_id as string;
      assert.match(pendingId, /^gwp_/);
      const choice = first.json.choices[0];

      const resumed = await b.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: {
          model: MODEL,
          tools: [WEATHER],
          gateway_pending_id: pendingId,
          messages: [
            ...messages,
            choice.message,
            { role: 'tool', tool_call_id: 'call_c1', content: '{"sky":"sunny"}' },
          ],
        },
      });
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.json.choices[0].message.content, 'Sunny and 42.');
      // B filled in A's gateway result from the shared store.
      const upstream = mock.requests[1]!.body.messages;
      assert.deepEqual(
        upstream[1].tool_calls.map((c: any) => c.id),
        ['call_g1', 'call_c1'],
      );
      assert.deepEqual(JSON.parse(upstream[2].content), { expression: '6 * 7', result: 42 });
    });

    it("a gateway tool activated through A's console is injected by B within 2 s", async () => {
      const other = await a.organization();
      const key = await a.createKey(other);
      const ask = () =>
        b.gateway('POST', '/v1/chat/completions', {
          token: key.key,
          body: {
            model: MODEL,
            messages: [{ role: 'user', content: 'uuid?' }],
            gateway_tool_ids: ['gateway_generate_uuid'],
          },
        });
      assert.equal((await ask()).status, 400, 'not activated yet (and now cached on B)');
      assert.equal(
        (
          await a.console('POST', `/v1/organizations/${other.id}/gateway_tools/gateway_generate_uuid`, {
            token: other.token,
            body: { active: true },
          })
        ).status,
        200,
      );
      const started = performance.now();
      await waitFor(async () => (await ask()).status === 200, {
        timeoutMs: 2_000,
        intervalMs: 50,
        what: 'B to see the activation',
      });
      assert.ok(performance.now() - started < 2_000);
    });

    it("a reservation whose holder died is released by another live instance's sweeper", async () => {
      const key = await a.createKey(org, { name: 'capped', max_usage: 10 });
      const month = monthOf(Date.now());
      // What A would leave if it died between reserving and settling: reserved spend and an expired row.
      await a.running.store.db
        .insertInto('key_spend')
        .values({ api_key_id: key.id, month, spent_micro_usd: 0, reserved_micro_usd: 9_000_000 })
        .execute();
      await a.running.store.db
        .insertInto('budget_reservations')
        .values({
          id: randomUUID(),
          api_key_id: key.id,
          month,
          amount_micro_usd: 9_000_000,
          expires_at: Date.now() - 1,
        })
        .execute();
      const released = await waitFor(
        async () => ((await keySpend(a.running.store, key.id)).reserved === 0 ? true : undefined),
        { timeoutMs: 1_500, what: "B's sweeper" },
      );
      assert.ok(released);
      const rows = await a.running.store.db
        .selectFrom('budget_reservations')
        .select('id')
        .where('api_key_id', '=', key.id)
        .execute();
      assert.equal(rows.length, 0);
      assert.equal(
        (
          await a.gateway('POST', '/v1/chat/completions', {
            token: key.key,
            body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 },
          })
        ).status,
        200,
        'the budget is usable again',
      );
    });
  });
}
