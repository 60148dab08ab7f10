import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockAgentUpstream, type MockScenario, type MockUpstream } from '../support/mock-upstreams/index.js';
import {
  PRICING,
  header,
  rawClient,
  usageRowOf,
  usageRowsByRequest,
  waitFor,
  type RawClient,
} from '../support/chat-kit.js';
import { recordSettles } from '../support/settle-recorder.js';

const GPT = 'openai/gpt-4o-mini';
const CLAUDE = 'anthropic/claude-sonnet-4-5';

/** The four ways into the core: each endpoint's body for `stream`, and the model it asks for. */
const ENDPOINTS = [
  {
    name: 'chat completions',
    path: '/v1/chat/completions',
    body: (stream: boolean) => ({ model: GPT, stream, messages: [{ role: 'user', content: 'Hi' }] }),
  },
  {
    name: 'messages (native to Anthropic)',
    path: '/v1/messages',
    body: (stream: boolean) => ({
      model: CLAUDE,
      stream,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    }),
  },
  {
    name: 'responses',
    path: '/v1/responses',
    body: (stream: boolean) => ({ model: GPT, stream, input: 'Hi' }),
  },
  {
    name: 'chat completions with gateway tools',
    path: '/v1/chat/completions',
    body: (stream: boolean) => ({
      model: GPT,
      stream,
      messages: [{ role: 'user', content: 'What time is it?' }],
      gateway_tool_ids: ['gateway_current_time'],
    }),
    // The model calls the gateway tool first; the gateway runs it and calls the model again.
    scenario: [
      { toolCalls: [{ id: 'call_1', name: 'gateway_current_time', arguments: { timezone: 'UTC' } }] },
      { text: 'It is noon.' },
    ] as MockScenario[],
  },
] as const;

for (const store of storeKinds()) {
  describe(`one metered call core behind every endpoint (${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    let key: { id: string; key: string };
    /** A key whose monthly ceiling is spent: every request is refused at admission. */
    let capped: { id: string; key: string };
    let raw: RawClient;
    let settles: ReturnType<typeof recordSettles>;

    before(async () => {
      settles = recordSettles();
      mock = await startMockAgentUpstream();
      h = await startHarness({
        store,
        config: {
          providers: [
            { id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' },
            { id: 'mock-anthropic', kind: 'anthropic', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' },
          ],
          models: [
            { id: GPT, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }], pricing: PRICING },
            { id: CLAUDE, providers: [{ provider: 'mock-anthropic', model: 'claude-sonnet-4-5' }], pricing: PRICING },
          ],
          retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      const org = await h.organization();
      key = await h.createKey(org);
      capped = await h.createKey(org, { name: 'capped', max_usage: 0 });
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
      await mock.close();
    });
    beforeEach(() => mock.reset());

    const requestId = (what: string) => `${what}-${store}-${randomBytes(4).toString('hex')}`;

    /** Exactly one usage row for the request, settled exactly once through the core. */
    async function assertMeteredOnce(id: string) {
      const row = await usageRowOf(h.running.store, id);
      // A second row would be written at the same time as the first; give it the time to show.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await usageRowsByRequest(h.running.store, id)).length, 1, 'one usage row');
      assert.equal(settles.timesSettled(id), 1, 'settled once, by the core');
      return row;
    }

    for (const endpoint of ENDPOINTS) {
      for (const stream of [false, true]) {
        it(`${endpoint.name}${stream ? ', streamed' : ''}: one usage row, settled by the core, with the answering provider named`, async () => {
          mock.setScenario('scenario' in endpoint ? [...endpoint.scenario] : { text: 'Hello there.' });
          const id = requestId('answered');
          const response = await raw.post(endpoint.path, endpoint.body(stream), {
            token: key.key,
            headers: { 'x-request-id': id },
          });
          const text = await response.body.text();
          assert.equal(response.statusCode, 200, text);
          const provider = endpoint.path === '/v1/messages' ? 'mock-anthropic' : 'mock-openai';
          assert.equal(header(response, 'x-gateway-provider'), provider);
          assert.equal(header(response, 'x-gateway-fallback-used'), undefined);
          const row = await assertMeteredOnce(id);
          assert.equal(Number(row.status_code), 200);
          assert.equal(row.endpoint, endpoint.path);
          assert.equal(row.provider, provider);
          assert.equal(Number(row.stream), stream ? 1 : 0);
          assert.ok(Number(row.output_tokens) > 0, 'the answer is metered');
          if ('scenario' in endpoint) assert.equal(mock.requests.length, 2, 'two upstream calls, one row');
        });

        it(`${endpoint.name}${stream ? ', streamed' : ''}: a client that leaves is metered once as 499`, async () => {
          mock.setScenario({ hangBeforeHeadersMs: Infinity });
          const id = requestId('aborted');
          const controller = new AbortController();
          const pending = raw.post(endpoint.path, endpoint.body(stream), {
            token: key.key,
            headers: { 'x-request-id': id },
            signal: controller.signal,
          });
          await waitFor(() => mock.requests.length === 1, { what: 'the upstream request' });
          controller.abort();
          await assert.rejects(pending);
          await mock.requests[0]!.closed;
          const row = await assertMeteredOnce(id);
          assert.equal(Number(row.status_code), 499);
          assert.equal(row.error_code, 'client_closed');
          assert.equal(row.endpoint, endpoint.path);
        });

        it(`${endpoint.name}${stream ? ', streamed' : ''}: a request the key's ceiling refuses is metered once as 429`, async () => {
          const id = requestId('refused');
          const response = await raw.post(endpoint.path, endpoint.body(stream), {
            token: capped.key,
            headers: { 'x-request-id': id },
          });
          const text = await response.body.text();
          assert.equal(response.statusCode, 429, text);
          const row = await assertMeteredOnce(id);
          assert.equal(row.error_code, 'usage_limit_exceeded');
          assert.equal(Number(row.cost_micro_usd), 0);
          assert.equal(row.endpoint, endpoint.path);
          assert.equal(Number(row.stream), stream ? 1 : 0);
          assert.equal(mock.requests.length, 0, 'nothing sent upstream');
        });
      }

      it(`${endpoint.name}: a client that leaves mid-stream is metered once as 499`, async () => {
        const first: MockScenario = {
          textChunks: ['one ', 'two ', 'three'],
          hangAfterEvent: 1,
          hangBetweenChunksMs: Infinity,
        };
        mock.setScenario('scenario' in endpoint ? { ...endpoint.scenario[1], ...first } : first);
        const id = requestId('left-mid-stream');
        const controller = new AbortController();
        const response = await raw.post(endpoint.path, endpoint.body(true), {
          token: key.key,
          headers: { 'x-request-id': id },
          signal: controller.signal,
        });
        assert.equal(response.statusCode, 200);
        // Read until the first bytes arrived, then leave.
        const reader = response.body[Symbol.asyncIterator]();
        await reader.next();
        controller.abort();
        await reader.return?.().catch(() => undefined);
        await mock.requests[0]!.closed;
        const row = await assertMeteredOnce(id);
        assert.equal(Number(row.status_code), 499);
        assert.equal(row.error_code, 'client_closed');
        assert.equal(Number(row.stream), 1);
      });
    }
  });
}
