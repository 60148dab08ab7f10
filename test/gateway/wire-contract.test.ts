import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, header, sseData, usageRowOf } from '../support/chat-kit.js';
import {
  assertMatches,
  assertSpecError,
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  CompressionInfoSchema,
  CompressMetadataSchema,
  ModelListSchema,
  ModelSchema,
} from '../support/spec-contract.js';

/**
 * Issue 20, item 3: every gateway response checked against the spec's tables and the public
 * OpenAPI document (test/support/spec-contract.ts): integer milliseconds, `technique`, status
 * codes, the gateway members in the final stream chunk, cache-write tokens reported and priced,
 * and the X-Gateway-Provider / X-Gateway-Fallback-Used headers on chat, messages and responses.
 */

const GPT = 'openai/gpt-4o-mini';
const CLAUDE = 'anthropic/claude-cache';
const FALLBACK = 'test/fallback'; // a provider that always fails, then the working one
const DOWN = 'test/down'; // only the failing provider
const UNROUTABLE = 'acme/unroutable'; // a provider whose key is not set
const CLAUDE_PRICING = {
  input_per_mtok: 3,
  output_per_mtok: 15,
  cached_input_per_mtok: 0.3,
  cache_write_per_mtok: 3.75,
};

/** A tool result the compressor shrinks a lot: a pip install log. */
function compressibleMessages(): Array<Record<string, unknown>> {
  const log =
    Array.from(
      { length: 200 },
      (_, i) =>
        `Collecting package${i}==1.0.${i}\n  Downloading package${i}-1.0.${i}-py3-none-any.whl (${i} kB)\n` +
        `     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ ${i}.0/${i}.0 kB 1.2 MB/s eta 0:00:00`,
    ).join('\n') +
    `\nSuccessfully installed ${Array.from({ length: 200 }, (_, i) => `package${i}-1.0.${i}`).join(' ')}`;
  return [
    { role: 'user', content: 'Install the dependencies.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'bash', arguments: JSON.stringify({ command: 'pip install -r requirements.txt' }) },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: log },
    { role: 'user', content: 'Go on.' },
  ];
}

const hi = [{ role: 'user', content: 'Hi' }];

/** The chunks of a chat stream, `[DONE]` last; each one checked against the chunk schema. */
function chatChunks(result: HttpResult): any[] {
  assert.equal(result.status, 200, result.text);
  const events = sseData(result.text);
  assert.equal(events.at(-1), '[DONE]');
  const chunks = events.slice(0, -1);
  for (const [i, chunk] of chunks.entries()) assertMatches(ChatCompletionChunkSchema, chunk, `chunk ${i}`);
  return chunks;
}

describe('wire contract: responses validate against the spec tables', () => {
  let h: Harness;
  let openai: MockUpstream;
  let down: MockUpstream;
  let anthropic: MockUpstream;
  let org: { id: string; token: string };
  let key: { id: string; key: string };

  before(async () => {
    openai = await startMockOpenAI();
    down = await startMockOpenAI();
    anthropic = await startMockAnthropic();
    h = await startHarness({
      config: {
        providers: [
          { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'mock-down', kind: 'openai', base_url: down.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'keyless', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'UNSET_CONTRACT_KEY' },
        ],
        models: [
          { id: GPT, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }], pricing: PRICING },
          { id: CLAUDE, providers: [{ provider: 'mock-anthropic', model: 'claude-cache' }], pricing: CLAUDE_PRICING },
          {
            id: FALLBACK,
            providers: [
              { provider: 'mock-down', model: 'broken' },
              { provider: 'mock-openai', model: 'gpt-4o-mini' },
            ],
            pricing: PRICING,
          },
          { id: DOWN, providers: [{ provider: 'mock-down', model: 'broken' }], pricing: PRICING },
          { id: UNROUTABLE, providers: [{ provider: 'keyless', model: 'x' }], pricing: PRICING },
        ],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { MOCK_KEY: 'sk-mock' },
    });
    org = await h.organization();
    key = await h.createKey(org, { name: 'contract' });
  });
  after(async () => {
    await h.stop();
    await Promise.all([openai.close(), down.close(), anthropic.close()]);
  });
  beforeEach(() => {
    for (const mock of [openai, down, anthropic]) mock.reset();
    openai.setScenario({ text: 'Hello.', usage: { inputTokens: 40, outputTokens: 2 } });
    anthropic.setScenario({ text: 'Hello.', usage: { inputTokens: 40, outputTokens: 2 } });
    down.setScenario({ status: 500, errorMessage: 'down' });
  });

  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}, token = key.key) =>
    h.gateway('POST', '/v1/chat/completions', { token, headers, body: { model: GPT, messages: hi, ...body } });

  describe('chat completions', () => {
    it('a JSON completion with compression: spec 2.4, time_ms a whole number of milliseconds', async () => {
      const result = await chat({ messages: compressibleMessages(), compression_model: 'claude' });
      assert.equal(result.status, 200, result.text);
      assertMatches(ChatCompletionSchema, result.json, 'the completion');
      assert.ok(result.json.compression, 'compression applied');
      assertMatches(CompressionInfoSchema, result.json.compression, 'compression');
    });

    it('streamed without include_usage: compression and debug ride on the final chunk, the finish chunk', async () => {
      const result = await chat({
        messages: compressibleMessages(),
        compression_model: 'claude',
        stream: true,
        enable_debug: true,
      });
      const chunks = chatChunks(result);
      const last = chunks.at(-1);
      assert.equal(last.choices[0].finish_reason, 'stop');
      assertMatches(CompressionInfoSchema, last.compression, 'compression of the final chunk');
      assert.equal(typeof last.debug, 'object');
      assert.equal(last.usage, undefined, 'no usage chunk was asked for');
      for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.compression, undefined, 'only on the final chunk');
    });

    it('streamed with include_usage: the usage chunk is final and carries usage, compression and debug', async () => {
      const result = await chat({
        messages: compressibleMessages(),
        compression_model: 'claude',
        stream: true,
        stream_options: { include_usage: true },
        enable_debug: true,
      });
      const last = chatChunks(result).at(-1);
      assert.deepEqual(last.choices, []);
      assert.equal(last.usage.prompt_tokens, 40);
      assertMatches(CompressionInfoSchema, last.compression, 'compression of the usage chunk');
      assert.equal(typeof last.debug, 'object');
    });

    it('streamed with debug only (X-Gateway-Debug): debug on the final chunk', async () => {
      const last = chatChunks(await chat({ stream: true }, { 'x-gateway-debug': 'true' })).at(-1);
      assert.equal(last.choices[0].finish_reason, 'stop');
      assert.equal(last.debug.provider, 'mock-openai');
      assert.equal(last.compression, undefined);
    });

    it('streamed with nothing to add: the finish chunk is plain', async () => {
      const last = chatChunks(await chat({ stream: true })).at(-1);
      assert.deepEqual(Object.keys(last).sort(), ['choices', 'created', 'id', 'model', 'object']);
    });

    it('cache writes are reported as input_tokens_details.cache_creation_tokens and priced at the write price', async () => {
      anthropic.setScenario({
        text: 'Hello.',
        usage: { inputTokens: 10_000, cachedInputTokens: 6_000, cacheCreationInputTokens: 3_000, outputTokens: 500 },
      });
      const result = await chat({ model: CLAUDE });
      assert.equal(result.status, 200, result.text);
      assertMatches(ChatCompletionSchema, result.json, 'the completion');
      assert.deepEqual(result.json.usage.input_tokens_details, { cached_tokens: 6_000, cache_creation_tokens: 3_000 });
      assert.equal(result.json.usage.prompt_tokens, 10_000);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.cache_creation_input_tokens), 3_000);
      assert.equal(Number(row.cost_micro_usd), 1_000 * 3 + 6_000 * 0.3 + 3_000 * 3.75 + 500 * 15);

      const streamed = await chat({ model: CLAUDE, stream: true, stream_options: { include_usage: true } });
      assert.deepEqual(chatChunks(streamed).at(-1).usage.input_tokens_details, {
        cached_tokens: 6_000,
        cache_creation_tokens: 3_000,
      });
    });
  });

  describe('X-Gateway-Provider and X-Gateway-Fallback-Used', () => {
    function assertServed(result: HttpResult, provider: string, fallback: boolean, what: string): void {
      assert.equal(result.status, 200, `${what}: ${result.text}`);
      assert.equal(header(result, 'x-gateway-provider'), provider, what);
      // The OpenAPI document's enum is ["1"]: present with 1 when a fallback answered, else absent.
      assert.equal(header(result, 'x-gateway-fallback-used'), fallback ? '1' : undefined, what);
    }

    it('on chat completions, JSON and streamed, with and without a fallback', async () => {
      assertServed(await chat({}), 'mock-openai', false, 'json');
      assertServed(await chat({ stream: true }), 'mock-openai', false, 'stream');
      assertServed(await chat({ model: FALLBACK }), 'mock-openai', true, 'json after a failed primary');
      assertServed(await chat({ model: FALLBACK, stream: true }), 'mock-openai', true, 'stream after a failed primary');
      assert.equal(down.requests.length, 2, 'the primary was tried each time');
    });

    it('on /v1/messages, native and translated, JSON and streamed', async () => {
      const messages = (model: string, stream = false) =>
        h.gateway('POST', '/v1/messages', { token: key.key, body: { model, max_tokens: 50, messages: hi, stream } });
      assertServed(await messages(CLAUDE), 'mock-anthropic', false, 'native json');
      assertServed(await messages(CLAUDE, true), 'mock-anthropic', false, 'native stream');
      assertServed(await messages(GPT), 'mock-openai', false, 'translated json');
      assertServed(await messages(FALLBACK, true), 'mock-openai', true, 'translated stream after a failed primary');
    });

    it('on /v1/responses, JSON and streamed', async () => {
      const responses = (model: string, stream = false) =>
        h.gateway('POST', '/v1/responses', { token: key.key, body: { model, input: 'Hi', stream } });
      assertServed(await responses(GPT), 'mock-openai', false, 'json');
      assertServed(await responses(CLAUDE, true), 'mock-anthropic', false, 'stream');
      assertServed(await responses(FALLBACK), 'mock-openai', true, 'json after a failed primary');
    });

    it('/v1/responses reports cache writes in input_tokens_details too', async () => {
      anthropic.setScenario({
        text: 'Hello.',
        usage: { inputTokens: 10_000, cachedInputTokens: 6_000, cacheCreationInputTokens: 3_000, outputTokens: 500 },
      });
      const result = await h.gateway('POST', '/v1/responses', { token: key.key, body: { model: CLAUDE, input: 'Hi' } });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(result.json.usage.input_tokens_details, { cached_tokens: 6_000, cache_creation_tokens: 3_000 });
    });
  });

  describe('compress and models', () => {
    it('/v1/compress: spec 2.5, technique tool for a requested bundle, auto otherwise, integer milliseconds', async () => {
      const body = { model: GPT, messages: compressibleMessages() };
      const compress = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
        h.gateway('POST', '/v1/compress', { token: key.key, headers, body: { ...body, ...extra } });
      const auto = await compress({});
      assert.equal(auto.status, 200, auto.text);
      assertMatches(CompressMetadataSchema, auto.json.compression, 'compression');
      assert.equal(auto.json.compression.technique, 'auto');
      const byBody = await compress({ compression_model: 'codex' });
      assertMatches(CompressMetadataSchema, byBody.json.compression, 'compression');
      assert.equal(byBody.json.compression.technique, 'tool');
      const byHeader = await compress({}, { 'x-gateway-compression-model': 'cursor' });
      assert.equal(byHeader.json.compression.technique, 'tool');
    });

    it('/v1/models and /v1/models/{id}: spec 2.7', async () => {
      const list = await h.gateway('GET', '/v1/models', { token: key.key });
      assertMatches(ModelListSchema, list.json, 'the model list');
      const one = await h.gateway('GET', `/v1/models/${encodeURIComponent(GPT)}`, { token: key.key });
      assertMatches(ModelSchema, one.json, 'a model');
    });
  });

  describe('errors: the envelope and the status of each code', () => {
    it('request errors', async () => {
      assertSpecError(
        await h.gateway('POST', '/v1/chat/completions', { token: key.key, rawBody: '{"model":' }),
        'invalid_json',
      );
      assertSpecError(
        await h.gateway('POST', '/v1/chat/completions', { token: key.key, body: { model: GPT } }),
        'invalid_request',
      );
      assertSpecError(await chat({ gateway_tool_ids: ['no_such_tool'] }), 'invalid_gateway_tool_ids');
      assertSpecError(await chat({ model: 'no slash' }), 'bad_model_id');
      assertSpecError(
        await h.gateway('POST', '/v1/count_tokens', { token: key.key, body: { model: 'no-slash', messages: hi } }),
        'bad_model_id',
      );
      assertSpecError(await chat({ model: 'acme/no-such-model' }), 'model_not_found');
      assertSpecError(
        await h.gateway('POST', '/v1/responses', {
          token: key.key,
          body: { model: 'acme/no-such-model', input: 'Hi' },
        }),
        'model_not_found',
      );
      assertSpecError(await chat({ model: UNROUTABLE }), 'provider_not_supported');
    });

    it('credential and limit errors', async () => {
      assertSpecError(
        await h.gateway('POST', '/v1/chat/completions', { body: { model: GPT, messages: hi } }),
        'unauthorized',
      );
      const inactive = await h.createKey(org, { name: 'inactive' });
      const update = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${inactive.id}`, {
        token: org.token,
        body: { active: false },
      });
      assert.equal(update.status, 200, update.text);
      assertSpecError(await chat({}, {}, inactive.key), 'forbidden');
      const broke = await h.createKey(org, { name: 'no budget', max_usage: 0 });
      assertSpecError(await chat({}, {}, broke.key), 'usage_limit_exceeded');
    });

    it('provider errors', async () => {
      assertSpecError(await chat({ model: DOWN }), 'provider_error');
    });
  });
});
