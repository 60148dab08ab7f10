import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropSchema, startHarness, storeKinds, type Harness, type StoreKind } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import {
  PRICING,
  header,
  keySpend,
  rawClient,
  usageRowOf,
  usageRowsByKey,
  waitFor,
  type RawClient,
} from '../support/chat-kit.js';

const MODEL = 'openai/gpt-4o-mini';
const user = (content = 'Hi') => [{ role: 'user', content }];

function mockConfig(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
    models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini-upstream' }], pricing: PRICING }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

for (const store of storeKinds()) {
  describe(`usage metering of chat completions (${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    let org: { id: string; token: string };
    let key: { id: string; key: string };
    let raw: RawClient;

    before(async () => {
      mock = await startMockOpenAI();
      h = await startHarness({ store, config: mockConfig(mock), env: { MOCK_OPENAI_KEY: 'sk-mock' } });
      org = await h.organization();
      key = await h.createKey(org);
      raw = rawClient(h.running.urls.gateway, h.ca);
    });
    after(async () => {
      await raw.close();
      await h.stop();
      await mock.close();
    });
    beforeEach(() => mock.reset());

    const chat = (body: Record<string, unknown>, token = key.key, headers: Record<string, string> = {}) =>
      h.gateway('POST', '/v1/chat/completions', { body: { model: MODEL, messages: user(), ...body }, token, headers });

    it('a JSON completion writes one row with the caller model, provider, exact tokens and catalogue cost', async () => {
      mock.setScenario({ usage: { inputTokens: 1000, outputTokens: 500 }, hangBeforeHeadersMs: 5 });
      const result = await chat({ tags: ['metering'] });
      assert.equal(result.status, 200, result.text);
      const requestId = header(result, 'x-request-id')!;
      assert.ok(requestId);
      const row = await usageRowOf(h.running.store, requestId);
      assert.equal(row.request_id, requestId);
      assert.equal(row.organization_id, org.id);
      assert.equal(row.api_key_id, key.id);
      assert.equal(row.model, MODEL);
      assert.equal(row.provider, 'mock-openai');
      assert.equal(row.upstream_model, 'gpt-4o-mini-upstream');
      assert.equal(row.endpoint, '/v1/chat/completions');
      assert.equal(Number(row.input_tokens), 1000);
      assert.equal(Number(row.cached_input_tokens), 0);
      assert.equal(Number(row.output_tokens), 500);
      // 1000 × $0.15/MTok + 500 × $0.60/MTok = 150 + 300 micro-USD.
      assert.equal(Number(row.cost_micro_usd), 450);
      assert.equal(Number(row.status_code), 200);
      assert.equal(row.error_code, null);
      assert.ok(Number(row.latency_ms) > 0, `latency ${row.latency_ms}`);
      assert.equal(Number(row.stream), 0);
      assert.deepEqual(JSON.parse(row.tags), ['metering']);
      const now = Date.now();
      assert.ok(Number(row.created_at) <= now && Number(row.created_at) > now - 60_000);
    });

    it('cached prompt tokens are charged at the cached price', async () => {
      mock.setScenario({ usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 500 } });
      const result = await chat({});
      assert.equal(result.json.usage.input_tokens_details.cached_tokens, 400);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.cached_input_tokens), 400);
      // 600 × 0.15 + 400 × 0.075 + 500 × 0.60 = 90 + 30 + 300.
      assert.equal(Number(row.cost_micro_usd), 420);
    });

    it('a streamed completion writes one row with the upstream usage, even when the client did not ask for usage', async () => {
      mock.setScenario({ textChunks: ['a', 'b', 'c'], usage: { inputTokens: 2000, outputTokens: 1000 } });
      const result = await chat({ stream: true });
      assert.equal(result.status, 200);
      assert.equal(
        mock.lastRequest()!.body.stream_options?.include_usage,
        true,
        'the gateway always asks the upstream for usage',
      );
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.stream), 1);
      assert.equal(Number(row.status_code), 200);
      assert.equal(Number(row.input_tokens), 2000);
      assert.equal(Number(row.output_tokens), 1000);
      assert.equal(Number(row.cost_micro_usd), 900);
    });

    it('an upstream failure writes one row with the gateway status and no cost', async () => {
      mock.setScenario({ status: 500 });
      const result = await chat({});
      assert.equal(result.status, 502);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.status_code), 502);
      assert.equal(row.error_code, 'provider_error');
      assert.equal(row.provider, 'mock-openai');
      assert.equal(Number(row.output_tokens), 0);
      assert.equal(Number(row.cost_micro_usd), 0);

      mock.setScenario({ status: 500 });
      const streamed = await chat({ stream: true });
      assert.equal(streamed.status, 502, 'nothing was streamed yet: a JSON error');
      const streamedRow = await usageRowOf(h.running.store, header(streamed, 'x-request-id')!);
      assert.equal(Number(streamedRow.stream), 1);
      assert.equal(Number(streamedRow.status_code), 502);
    });

    it('requests refused before admission (schema, unknown model, model restriction) leave a zero-cost row with their error code', async () => {
      const restricted = await h.createKey(org, { name: 'restricted', models: ['openai/other'] });
      const refused = [
        await chat({ max_tokens: 0 }, key.key, { 'x-request-id': `refused-schema-${store}` }),
        await chat({ model: 'openai/unknown' }, key.key, { 'x-request-id': `refused-model-${store}` }),
        await chat({}, restricted.key, { 'x-request-id': `refused-forbidden-${store}` }),
      ];
      assert.deepEqual(
        refused.map((r) => r.status),
        [400, 400, 403],
      );
      const rows = await Promise.all(refused.map((r) => usageRowOf(h.running.store, header(r, 'x-request-id')!)));
      assert.deepEqual(
        rows.map((row) => [Number(row.status_code), row.error_code, Number(row.cost_micro_usd), row.provider]),
        [
          [400, 'invalid_request', 0, ''],
          [400, 'model_not_found', 0, ''],
          [403, 'forbidden', 0, ''],
        ],
      );
      assert.deepEqual(
        rows.map((row) => row.api_key_id),
        [key.id, key.id, restricted.id],
      );
      assert.equal(rows[1]!.model, 'openai/unknown', 'the model the client asked for');
      assert.equal(Number(rows[0]!.input_tokens) + Number(rows[0]!.output_tokens), 0);
      assert.deepEqual(await keySpend(h.running.store, restricted.id), { spent: 0, reserved: 0 });
    });

    it('a request refused for the key ceiling leaves a zero-cost row with status 429 usage_limit_exceeded', async () => {
      const capped = await h.createKey(org, { name: 'capped', max_usage: 0 });
      const refused = await chat({ tags: ['over-budget'] }, capped.key, { 'x-request-id': `refused-budget-${store}` });
      assert.equal(refused.status, 429);
      assert.equal(refused.json.error.code, 'usage_limit_exceeded');
      const row = await usageRowOf(h.running.store, `refused-budget-${store}`);
      assert.equal(row.api_key_id, capped.id);
      assert.equal(Number(row.status_code), 429);
      assert.equal(row.error_code, 'usage_limit_exceeded');
      assert.equal(Number(row.cost_micro_usd), 0);
      assert.equal(Number(row.input_tokens) + Number(row.output_tokens), 0);
      assert.deepEqual(JSON.parse(row.tags as string), ['over-budget']);
      assert.equal(mock.requests.length, 0, 'the upstream was never called');
    });

    it('a client that leaves before the answer is metered with status 499 and the estimated prompt', async () => {
      mock.setScenario({ hangBeforeHeadersMs: Infinity });
      const controller = new AbortController();
      const requestId = `abort-json-${store}-${randomBytes(3).toString('hex')}`;
      const pending = raw.post(
        '/v1/chat/completions',
        { model: MODEL, messages: user('please wait') },
        { token: key.key, signal: controller.signal, headers: { 'x-request-id': requestId } },
      );
      await waitFor(() => mock.requests.length === 1, { what: 'the upstream request' });
      controller.abort();
      await assert.rejects(pending);
      await mock.requests[0]!.closed;
      const row = await usageRowOf(h.running.store, requestId);
      assert.equal(Number(row.status_code), 499);
      assert.equal(row.error_code, 'client_closed');
      assert.ok(Number(row.input_tokens) > 0, 'the prompt is estimated');
      assert.equal(Number(row.output_tokens), 0);
    });

    it('streamed usage reaches the key ledger, with and without a monthly ceiling', async () => {
      const unlimited = await h.createKey(org, { name: 'unlimited' });
      const capped = await h.createKey(org, { name: 'capped', max_usage: 100 });
      mock.setScenario({ usage: { inputTokens: 1000, outputTokens: 500 } });
      for (const k of [unlimited, capped]) {
        const a = await chat({ stream: true }, k.key);
        const b = await chat({ stream: true, stream_options: { include_usage: true } }, k.key);
        assert.equal(a.status, 200);
        assert.equal(b.status, 200);
        await usageRowOf(h.running.store, header(b, 'x-request-id')!);
        const spend = await waitFor(
          async () => {
            const s = await keySpend(h.running.store, k.id);
            return s.spent === 900 && s.reserved === 0 ? s : undefined;
          },
          { what: `spend of key ${k.id}` },
        ).catch(async () => keySpend(h.running.store, k.id));
        assert.deepEqual(
          spend,
          { spent: 900, reserved: 0 },
          'two streamed requests of 450 micro-USD each, nothing left reserved',
        );
      }
    });

    it('a stream that fails half-way writes one row with the error and the tokens streamed so far', async () => {
      mock.setScenario({ closeMidStream: true, textChunks: Array.from({ length: 20 }, (_, i) => `piece${i} `) });
      const result = await chat({ stream: true });
      assert.equal(result.status, 200);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.status_code), 502);
      assert.equal(row.error_code, 'provider_error');
      assert.equal(Number(row.stream), 1);
      assert.ok(Number(row.output_tokens) > 0, 'the text streamed before the failure is counted');
    });

    it('a capped key gets its reservation back when the upstream fails, and pays only what was used', async () => {
      const capped = await h.createKey(org, { name: 'capped-failures', max_usage: 10 });
      mock.setScenario({ status: 500 });
      assert.equal((await chat({}, capped.key)).status, 502);
      assert.equal((await chat({ stream: true }, capped.key)).status, 502);
      mock.setScenario({ usage: { inputTokens: 1000, outputTokens: 500 } });
      const ok = await chat({ max_tokens: 2000 }, capped.key);
      assert.equal(ok.status, 200);
      await usageRowOf(h.running.store, header(ok, 'x-request-id')!);
      const spend = await waitFor(
        async () => {
          const s = await keySpend(h.running.store, capped.id);
          return s.reserved === 0 ? s : undefined;
        },
        { what: 'reservations settled' },
      );
      assert.deepEqual(
        spend,
        { spent: 450, reserved: 0 },
        'failures cost nothing; the success costs its actual usage, not its worst case',
      );
    });

    it('every admitted request of this key has exactly one row', async () => {
      const before = (await usageRowsByKey(h.running.store, key.id)).length;
      mock.setScenario({});
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(i % 2 ? { stream: true } : {})));
      assert.ok(results.every((r) => r.status === 200));
      const ids = new Set(results.map((r) => header(r, 'x-request-id')!));
      assert.equal(ids.size, 30);
      const rows = await waitFor(
        async () => {
          const all = await usageRowsByKey(h.running.store, key.id);
          return all.length >= before + 30 ? all : undefined;
        },
        { what: '30 more rows' },
      );
      const mine = rows.filter((r) => ids.has(r.request_id));
      assert.equal(mine.length, 30);
      assert.equal(new Set(mine.map((r) => r.request_id)).size, 30, 'no request metered twice');
    });
  });

  describe(`no usage row is lost on a graceful stop (${store})`, () => {
    it('rows of requests answered just before stop() are all stored', async () => {
      const mock = await startMockOpenAI();
      const dataDir = mkdtempSync(join(tmpdir(), 'gateway-metering-'));
      const schema = store === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
      const common = {
        store: store as StoreKind,
        dataDir,
        ...(schema ? { schema } : {}),
        config: mockConfig(mock),
        env: { MOCK_OPENAI_KEY: 'sk-mock' },
      };
      let second: Harness | undefined;
      try {
        const first = await startHarness(common);
        const org = await first.organization();
        const key = await first.createKey(org);
        mock.setScenario({ usage: { inputTokens: 100, outputTokens: 10 } });
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            first.gateway('POST', '/v1/chat/completions', {
              token: key.key,
              body: { model: MODEL, messages: user(`n${i}`), ...(i % 3 === 0 ? { stream: true } : {}) },
            }),
          ),
        );
        assert.ok(results.every((r) => r.status === 200));
        const ids = results.map((r) => header(r, 'x-request-id')!);
        await first.stop();

        second = await startHarness(common);
        const rows = await usageRowsByKey(second.running.store, key.id);
        assert.deepEqual(new Set(rows.map((r) => r.request_id)), new Set(ids));
        assert.equal(rows.length, 40);
        assert.equal((await keySpend(second.running.store, key.id)).spent, 40 * Math.round(100 * 0.15 + 10 * 0.6));
      } finally {
        await second?.stop();
        await mock.close();
        rmSync(dataDir, { recursive: true, force: true });
        if (schema) await dropSchema(schema);
      }
    });
  });
}
