import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockAgentUpstream, type MockUpstream } from '../support/mock-upstreams/index.js';
import {
  PRICING,
  keySpend,
  rawClient,
  usageRowOf,
  usageRowsByRequest,
  waitFor,
  type RawClient,
} from '../support/chat-kit.js';
import { sql } from 'kysely';
import { recordSettles } from '../support/settle-recorder.js';
import { monthOf } from '../../src/limits/budget-ledger.js';

/**
 * `serve` (src/pipeline/serve.ts) settles every opened call exactly once, whichever strategy
 * answers it, including the calls whose client leaves before any answer: in a native plan's
 * translated fallback, between the gateway-tool loop's rounds, on a native Responses target.
 * Settles are counted on `Call.settle` itself, and the key's reservation must be released
 * (nothing left for the expiry sweeper).
 */

const MIXED = 'anthropic/claude-mixed'; // Anthropic first (native), then OpenAI (translated fallback)
const GPT = 'openai/gpt-4o-mini';
const CODEX = 'openai/gpt-5-codex'; // an OpenAI target serving the Responses API natively

for (const store of storeKinds()) {
  describe(`serve settles each opened call once, the client gone before an answer (${store})`, () => {
    let h: Harness;
    let anthropic: MockUpstream;
    let openai: MockUpstream;
    let raw: RawClient;
    /** A key with a monthly ceiling: its requests hold a reservation until they are settled. */
    let key: { id: string; key: string };
    let settles: ReturnType<typeof recordSettles>;

    before(async () => {
      settles = recordSettles();
      anthropic = await startMockAgentUpstream();
      openai = await startMockAgentUpstream();
      h = await startHarness({
        store,
        config: {
          providers: [
            { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
            { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' },
            {
              id: 'mock-responses',
              kind: 'openai',
              base_url: openai.baseUrl,
              api_key_env: 'MOCK_KEY',
              responses_api: true,
            },
          ],
          models: [
            {
              id: MIXED,
              providers: [
                { provider: 'mock-anthropic', model: 'claude-sonnet-4-5' },
                { provider: 'mock-openai', model: 'gpt-4o-mini' },
              ],
              pricing: PRICING,
            },
            { id: GPT, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }], pricing: PRICING },
            { id: CODEX, providers: [{ provider: 'mock-responses', model: 'gpt-5-codex' }], pricing: PRICING },
          ],
          retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      const org = await h.organization();
      key = await h.createKey(org, { name: 'ceiling', max_usage: 100 });
      const activated = await h.console('POST', `/v1/organizations/${org.id}/gateway_tools/gateway_current_time`, {
        token: org.token,
        body: { active: true },
      });
      assert.equal(activated.status, 200, activated.text);
      raw = rawClient(h.running.urls.gateway, h.ca);
    });
    after(async () => {
      settles.restore();
      await raw.close();
      await h.stop();
      await anthropic.close();
      await openai.close();
    });
    beforeEach(() => {
      anthropic.reset();
      openai.reset();
    });

    /** Posts, waits until `upstreamCalls` requests reached `upstream`, then leaves; returns the request id. */
    async function leaveWhileWaiting(
      path: string,
      body: Record<string, unknown>,
      upstream: MockUpstream,
      upstreamCalls: number,
    ): Promise<string> {
      const id = `left-${store}-${randomBytes(4).toString('hex')}`;
      const controller = new AbortController();
      const pending = raw.post(path, body, {
        token: key.key,
        headers: { 'x-request-id': id },
        signal: controller.signal,
      });
      await waitFor(() => upstream.requests.length === upstreamCalls, { what: 'the upstream request' });
      controller.abort();
      // A stream's headers may have left already (the tool loop's first round answered): its body is cut.
      await assert.rejects(pending.then((response) => response.body.text()));
      await upstream.requests[upstreamCalls - 1]!.closed;
      return id;
    }

    /** One usage row, one settle through the core, 499, and the key's reservation released. */
    async function assertSettledOnceAs499(id: string) {
      const row = await usageRowOf(h.running.store, id);
      // A second settle would come at once: give it the time to show.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await usageRowsByRequest(h.running.store, id)).length, 1, 'one usage row');
      assert.equal(settles.timesSettled(id), 1, 'settled once, by the core');
      assert.equal(Number(row.status_code), 499);
      assert.equal(row.error_code, 'client_closed');
      assert.equal((await keySpend(h.running.store, key.id)).reserved, 0, 'no reservation left for the sweeper');
      return row;
    }

    // The key's spend row locked by the test holds the request in admission (its reservation waits on PostgreSQL's row lock).
    it(
      'a client that leaves during admission: nothing is sent upstream, settled once as 499',
      { skip: store !== 'postgres' },
      async () => {
        const db = h.running.store.db;
        await db
          .insertInto('key_spend')
          .values({ api_key_id: key.id, month: monthOf(Date.now()), spent_micro_usd: 0, reserved_micro_usd: 0 })
          .onConflict((oc) => oc.columns(['api_key_id', 'month']).doNothing())
          .execute();
        const id = `left-in-admission-${randomBytes(4).toString('hex')}`;
        await db.transaction().execute(async (trx) => {
          await sql`select 1 from key_spend where api_key_id = ${key.id} for update`.execute(trx);
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          const holder = rows[0]!.pid;
          const controller = new AbortController();
          const pending = raw.post(
            '/v1/chat/completions',
            { model: GPT, messages: [{ role: 'user', content: 'Hi' }] },
            {
              token: key.key,
              headers: { 'x-request-id': id },
              signal: controller.signal,
            },
          );
          await waitFor(
            async () => {
              const blocked = await sql<{
                pid: number;
              }>`select pid from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))`.execute(db);
              return blocked.rows.length > 0;
            },
            { what: 'the request waiting for its reservation' },
          );
          controller.abort();
          await assert.rejects(pending);
          // The gateway sees the connection close on its next turns; the lock is held until then.
          await new Promise((resolve) => setTimeout(resolve, 300));
        });
        await assertSettledOnceAs499(id);
        assert.equal(openai.requests.length, 0, 'nothing was sent upstream');
      },
    );

    for (const stream of [false, true]) {
      const mode = stream ? ', streamed' : '';

      it(`native plan${mode}: the client leaves during the translated fallback the failed native target handed over to`, async () => {
        anthropic.setScenario({ status: 503 });
        openai.setScenario({ hangBeforeHeadersMs: Infinity });
        const body = { model: MIXED, stream, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] };
        const id = await leaveWhileWaiting('/v1/messages', body, openai, 1);
        assert.equal(anthropic.requests.length, 1, 'the native target was tried first');
        assert.ok(Array.isArray(openai.requests[0]!.body.messages), 'the fallback is a chat-shaped request');
        const row = await assertSettledOnceAs499(id);
        assert.equal(row.provider, 'mock-openai', 'the provider the client was waiting for');
      });

      it(`gateway-tool loop${mode}: the client leaves while the round after the tool waits; the first round is charged`, async () => {
        openai.setScenario([
          {
            toolCalls: [{ id: 'call_1', name: 'gateway_current_time', arguments: { timezone: 'UTC' } }],
            usage: { inputTokens: 30, outputTokens: 5 },
          },
          { hangBeforeHeadersMs: Infinity },
        ]);
        const body = {
          model: GPT,
          stream,
          messages: [{ role: 'user', content: 'What time is it?' }],
          gateway_tool_ids: ['gateway_current_time'],
        };
        const id = await leaveWhileWaiting('/v1/chat/completions', body, openai, 2);
        const row = await assertSettledOnceAs499(id);
        assert.ok(Number(row.input_tokens) > 30, 'the first round, plus the prompt of the call the client left');
        assert.equal(Number(row.output_tokens), 5, "the first round's output");
      });

      it(`native Responses${mode}: the client leaves before the target answers`, async () => {
        openai.setScenario({ hangBeforeHeadersMs: Infinity });
        const id = await leaveWhileWaiting('/v1/responses', { model: CODEX, stream, input: 'Hi' }, openai, 1);
        assert.equal(openai.requests[0]!.path, '/v1/responses', 'passed through natively');
        await assertSettledOnceAs499(id);
      });
    }
  });
}
