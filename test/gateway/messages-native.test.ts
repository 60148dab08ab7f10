import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import Anthropic from '@anthropic-ai/sdk';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import {
  PRICING,
  header,
  keySpend,
  parseSse,
  rawClient,
  usageRowOf,
  waitFor,
  type RawClient,
} from '../support/chat-kit.js';

/**
 * /v1/messages, native pass-through (docs/agent-endpoints.md): a model whose first target is
 * Anthropic gets the client's own Messages body, and the client gets Anthropic's answer.
 */

const NATIVE = 'anthropic/claude-native';
const MIXED = 'anthropic/claude-mixed'; // Anthropic first, then OpenAI: native, then translated fallback
const PAIR = 'anthropic/claude-pair'; // two Anthropic targets: native fallback
const RAW = 'anthropic/claude-raw'; // a hand-written upstream that sends an `error` event mid-stream

/** Anthropic's overloaded error arriving inside a 200 stream, after the first events. */
function startErrorEventUpstream(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (type: string, payload: object) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
      send('message_start', {
        message: {
          id: 'msg_raw',
          type: 'message',
          role: 'assistant',
          model: 'raw',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 1 },
        },
      });
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'partial' } });
      send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }),
    ),
  );
}

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Everything the translation used to lose: thinking (history and setting), top_k, cache_control on tools and mid-turn tool_use, is_error, unknown fields. */
function faithfulBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-native',
    max_tokens: 2048,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    top_k: 7,
    top_p: 0.9,
    stop_sequences: ['\n\nHuman:', 'END'],
    metadata: { user_id: 'user-42' },
    service_tier: 'auto',
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    tools: [{ ...WEATHER_TOOL, cache_control: { type: 'ephemeral' } }],
    tool_choice: { type: 'auto' },
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Weather in Oslo and Rome?', cache_control: { type: 'ephemeral' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities: two calls.', signature: 'EqQBCkYIARgCIkBsig==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
          {
            type: 'tool_use',
            id: 'toolu_a',
            name: 'get_weather',
            input: { city: 'Oslo' },
            cache_control: { type: 'ephemeral' },
          },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', is_error: true, content: [{ type: 'text', text: 'timeout' }] },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"temp":24}', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
    ...extra,
  };
}

const THINKING = { thinking: 'Oslo timed out; Rome is warm.', signature: 'EqQBCkYIARgCIkB_sig_2==' };

describe('POST /v1/messages: native pass-through to Anthropic', () => {
  let h: Harness;
  let anthropic: MockUpstream;
  let anthropicB: MockUpstream;
  let openai: MockUpstream;
  let org: { id: string; token: string };
  let key: { id: string; key: string };
  let raw: RawClient;
  let dispatcher: Agent;
  let client: Anthropic;
  let errorUpstream: { server: Server; baseUrl: string };

  before(async () => {
    errorUpstream = await startErrorEventUpstream();
    anthropic = await startMockAnthropic({ apiKey: 'sk-ant' });
    anthropicB = await startMockAnthropic({ apiKey: 'sk-ant-b' });
    openai = await startMockOpenAI({ apiKey: 'sk-openai' });
    h = await startHarness({
      config: {
        providers: [
          { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_ANTHROPIC_KEY' },
          {
            id: 'mock-anthropic-b',
            kind: 'anthropic',
            base_url: anthropicB.baseUrl,
            api_key_env: 'MOCK_ANTHROPIC_B_KEY',
          },
          { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
          { id: 'raw-anthropic', kind: 'anthropic', base_url: errorUpstream.baseUrl },
        ],
        models: [
          {
            id: NATIVE,
            providers: [{ provider: 'mock-anthropic', model: 'claude-native-20250929' }],
            pricing: PRICING,
          },
          {
            id: MIXED,
            providers: [
              { provider: 'mock-anthropic', model: 'claude-mixed-up' },
              { provider: 'mock-openai', model: 'gpt-4o-mini' },
            ],
            pricing: PRICING,
          },
          {
            id: PAIR,
            providers: [
              { provider: 'mock-anthropic', model: 'claude-a' },
              { provider: 'mock-anthropic-b', model: 'claude-b' },
            ],
            pricing: PRICING,
          },
          { id: RAW, providers: [{ provider: 'raw-anthropic', model: 'claude-raw' }], pricing: PRICING },
        ],
        retry: { max_attempts: 2, base_delay_ms: 5, max_delay_ms: 50 },
      },
      env: { MOCK_ANTHROPIC_KEY: 'sk-ant', MOCK_ANTHROPIC_B_KEY: 'sk-ant-b', MOCK_OPENAI_KEY: 'sk-openai' },
    });
    org = await h.organization();
    key = await h.createKey(org);
    raw = rawClient(h.running.urls.gateway, h.ca);
    dispatcher = new Agent({ connect: { ca: h.ca } });
    client = new Anthropic({
      apiKey: key.key,
      baseURL: h.running.urls.gateway,
      fetchOptions: { dispatcher } as never,
      maxRetries: 0,
    });
  });
  after(async () => {
    await raw.close();
    await dispatcher.close();
    await h.stop();
    await Promise.all([anthropic.close(), anthropicB.close(), openai.close()]);
    errorUpstream.server.closeAllConnections();
    await new Promise((resolve) => errorUpstream.server.close(resolve));
  });
  beforeEach(() => {
    for (const mock of [anthropic, anthropicB, openai]) mock.reset();
  });

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}, token = key.key) =>
    h.gateway('POST', '/v1/messages', {
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', ...headers },
      body,
    });

  it('forwards the client body as sent: thinking, top_k, cache_control on tools and blocks, stop_sequences, unknown fields; gateway members removed, model replaced', async () => {
    anthropic.setScenario({ text: 'ok' });
    const body = faithfulBody({
      tags: ['team-a'],
      enable_debug: false,
      gateway_tool_ids: [],
      compression_model: undefined,
    });
    const result = await post(body, { 'anthropic-beta': 'interleaved-thinking-2025-05-14,context-1m-2025-08-07' });
    assert.equal(result.status, 200, result.text);
    const received = anthropic.lastRequest()!;
    const { tags: _t, enable_debug: _d, gateway_tool_ids: _g, compression_model: _c, ...expected } = body;
    assert.deepEqual(received.body, { ...expected, model: 'claude-native-20250929' });
    assert.equal(received.headers['anthropic-version'], '2023-06-01');
    assert.equal(received.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14,context-1m-2025-08-07');
    assert.equal(received.headers['x-api-key'], 'sk-ant', 'the provider key, never the gateway key');
    assert.equal(openai.requests.length, 0);
  });

  it('JSON: thinking and signature blocks, stop_sequence and usage come back as Anthropic sent them; one usage row with cache reads and writes', async () => {
    anthropic.setScenario({
      thinking: THINKING,
      text: 'Rome: 24°C.',
      stopSequence: 'END',
      usage: { inputTokens: 1000, cachedInputTokens: 600, cacheCreationInputTokens: 300, outputTokens: 42 },
    });
    const result = await post(faithfulBody());
    assert.equal(result.status, 200, result.text);
    const message = result.json;
    assert.equal(message.id, 'msg_mock', "Anthropic's id");
    assert.equal(message.model, 'claude-native', 'the model as the client sent it');
    assert.deepEqual(message.content, [
      { type: 'thinking', ...THINKING },
      { type: 'text', text: 'Rome: 24°C.' },
    ]);
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, 'END');
    assert.deepEqual(message.usage, {
      input_tokens: 100,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
      output_tokens: 42,
    });
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(row.endpoint, '/v1/messages');
    assert.equal(row.provider, 'mock-anthropic');
    assert.equal(row.upstream_model, 'claude-native-20250929');
    assert.equal(Number(row.status_code), 200);
    assert.equal(Number(row.stream), 0);
    assert.equal(Number(row.input_tokens), 1000);
    assert.equal(Number(row.cached_input_tokens), 600);
    assert.equal(Number(row.cache_creation_input_tokens), 300);
    assert.equal(Number(row.output_tokens), 42);
    assert.ok(Number(row.cost_micro_usd) > 0);
  });

  it('stream: Anthropic events relayed (thinking_delta, signature_delta, stop_sequence), message_stop last, metered once', async () => {
    anthropic.setScenario({
      thinking: THINKING,
      textChunks: ['Rome ', 'is ', 'warm.'],
      stopSequence: 'END',
      usage: { inputTokens: 500, cachedInputTokens: 200, cacheCreationInputTokens: 100, outputTokens: 9 },
    });
    const result = await post(faithfulBody({ stream: true, enable_debug: true }));
    assert.equal(result.status, 200, result.text);
    assert.match(String(result.headers['content-type']), /text\/event-stream/);
    const events = parseSse(result.text).map((e) => ({ name: e.event!, data: JSON.parse(e.data) }));
    for (const e of events) assert.equal(e.data.type, e.name);
    // The same sequence the mock sent (its ping comes after the first block start, as Anthropic's does).
    const upstreamNames = [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ];
    assert.deepEqual(
      events.map((e) => e.name),
      upstreamNames,
    );
    assert.equal(events[0]!.data.message.model, 'claude-native');
    assert.equal(events[0]!.data.message.usage.cache_read_input_tokens, 200);
    assert.deepEqual(events[1]!.data.content_block, { type: 'thinking', thinking: '', signature: '' });
    assert.deepEqual(events[2]!.data.delta, { type: 'thinking_delta', thinking: THINKING.thinking });
    assert.deepEqual(events[3]!.data.delta, { type: 'signature_delta', signature: THINKING.signature });
    const delta = events.find((e) => e.name === 'message_delta')!.data;
    assert.deepEqual(delta.delta, { stop_reason: 'stop_sequence', stop_sequence: 'END' });
    assert.equal(delta.usage.output_tokens, 9);
    assert.equal(delta.debug.provider, 'mock-anthropic');
    assert.equal(delta.debug.messages_path, 'native');

    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.stream), 1);
    assert.equal(Number(row.status_code), 200);
    assert.equal(Number(row.input_tokens), 500);
    assert.equal(Number(row.cached_input_tokens), 200);
    assert.equal(Number(row.cache_creation_input_tokens), 100);
    assert.equal(Number(row.output_tokens), 9);
  });

  it('the official SDK: messages.create and messages.stream return thinking blocks and stop_sequence', async () => {
    anthropic.setScenario({
      thinking: THINKING,
      textChunks: ['Hi ', 'there'],
      stopSequence: 'END',
      usage: { inputTokens: 30, cachedInputTokens: 10, outputTokens: 4 },
    });
    const params = faithfulBody() as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const created = await client.messages.create(params);
    assert.deepEqual(created.content, [
      { type: 'thinking', ...THINKING },
      { type: 'text', text: 'Hi there' },
    ]);
    assert.equal(created.stop_reason, 'stop_sequence');
    assert.equal(created.stop_sequence, 'END');
    assert.equal(created.model, 'claude-native');

    const stream = client.messages.stream(faithfulBody() as unknown as Anthropic.MessageStreamParams);
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const final = await stream.finalMessage();
    assert.equal(texts.join(''), 'Hi there');
    assert.deepEqual(final.content, [
      { type: 'thinking', ...THINKING },
      { type: 'text', text: 'Hi there' },
    ]);
    assert.equal(final.stop_reason, 'stop_sequence');
    assert.equal(final.stop_sequence, 'END');
    assert.equal(final.usage.input_tokens, 20);
    assert.equal(final.usage.cache_read_input_tokens, 10);
    assert.equal(final.usage.output_tokens, 4);
  });

  /** Streams from the Anthropic mock and disconnects once some text arrived. */
  async function streamAndLeave(requestId: string): Promise<{ abortedAt: number; closedAt: number }> {
    anthropic.reset();
    const pieces = Array.from({ length: 200 }, (_, i) => `word${i} `);
    anthropic.setScenario({ textChunks: pieces, chunkDelayMs: 10, usage: { inputTokens: 50, outputTokens: 200 } });
    const controller = new AbortController();
    const response = await raw.post(
      '/v1/messages',
      { model: NATIVE, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'Talk' }] },
      {
        token: key.key,
        signal: controller.signal,
        headers: { 'x-request-id': requestId },
      },
    );
    let text = '';
    let abortedAt = 0;
    try {
      for await (const chunk of response.body) {
        text += chunk.toString();
        if (!abortedAt && (text.match(/text_delta/g) ?? []).length > 5) {
          abortedAt = performance.now();
          controller.abort();
        }
      }
    } catch {
      // the aborted body rejects
    }
    assert.ok(abortedAt > 0, 'the client saw some text before leaving');
    assert.equal(anthropic.requests.length, 1);
    return { abortedAt, closedAt: await anthropic.requests[0]!.closed };
  }

  it('a client that leaves mid-stream closes the upstream within 100 ms and is metered as 499', async () => {
    await streamAndLeave(`native-abort-warmup-${Date.now()}`);
    const requestId = `native-abort-${Date.now()}`;
    const { abortedAt, closedAt } = await streamAndLeave(requestId);
    assert.ok(
      closedAt - abortedAt < 100,
      `upstream socket closed ${(closedAt - abortedAt).toFixed(1)} ms after the client left`,
    );
    assert.equal(anthropic.requests[0]!.responseEndedAt, undefined, 'the upstream never finished its answer');
    const row = await usageRowOf(h.running.store, requestId);
    assert.equal(Number(row.status_code), 499);
    assert.equal(row.error_code, 'client_closed');
    assert.equal(Number(row.input_tokens), 50, "message_start's input count");
    assert.ok(
      Number(row.output_tokens) > 0 && Number(row.output_tokens) < 200,
      `output ${row.output_tokens} estimated from what was produced`,
    );
  });

  it('a 429 is retried on the same Anthropic target (retry-after honoured), natively', async () => {
    anthropic.setScenario([{ status: 429, headers: { 'retry-after-ms': '20' } }, { text: 'after retry' }]);
    const result = await post(faithfulBody({ model: NATIVE, enable_debug: true }));
    assert.equal(result.status, 200, result.text);
    assert.equal(anthropic.requests.length, 2);
    assert.equal(anthropic.requests[1]!.body.top_k, 7, 'the retry sends the same native body');
    assert.deepEqual(result.json.content, [{ type: 'text', text: 'after retry' }]);
    assert.deepEqual(
      result.json.debug.attempts.map((a: any) => a.status),
      [429, 200],
    );
  });

  it('5xx on every try of the first Anthropic target: the next Anthropic target answers natively', async () => {
    anthropic.setScenario({ status: 529, errorMessage: 'overloaded' });
    anthropicB.setScenario({ thinking: THINKING, text: 'from b' });
    for (const stream of [false, true]) {
      anthropic.reset();
      anthropicB.reset();
      anthropic.setScenario({ status: 529, errorMessage: 'overloaded' });
      anthropicB.setScenario({ thinking: THINKING, text: 'from b' });
      const result = await post(faithfulBody({ model: PAIR, stream }));
      assert.equal(result.status, 200, result.text);
      assert.equal(anthropic.requests.length, 2, 'two attempts on the first target');
      assert.equal(anthropicB.requests.length, 1);
      assert.equal(anthropicB.lastRequest()!.body.model, 'claude-b');
      assert.equal(anthropicB.lastRequest()!.body.messages[1].content[0].type, 'thinking');
      if (!stream) assert.equal(result.json.content[0].type, 'thinking');
      else assert.match(result.text, /signature_delta/);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(row.provider, 'mock-anthropic-b');
    }
    // Both fail: the error and the row name the provider that answered last.
    anthropicB.setScenario({ status: 500 });
    const failed = await post(faithfulBody({ model: PAIR }));
    assert.equal(failed.status, 502);
    assert.equal(failed.json.error.provider, 'mock-anthropic-b');
    const row = await usageRowOf(h.running.store, header(failed, 'x-request-id')!);
    assert.equal(row.provider, 'mock-anthropic-b');
    assert.equal(Number(row.status_code), 502);
  });

  it('the Anthropic target failing before the first byte with a non-Anthropic fallback: the translated path takes over', async () => {
    for (const stream of [false, true]) {
      anthropic.reset();
      openai.reset();
      anthropic.setScenario({ status: 503 });
      openai.setScenario({ textChunks: ['from ', 'openai'], usage: { inputTokens: 40, outputTokens: 2 } });
      const result = await post(faithfulBody({ model: MIXED, stream, enable_debug: true }));
      assert.equal(result.status, 200, result.text);
      assert.equal(anthropic.requests.length, 2);
      assert.equal(openai.requests.length, 1);
      const sent = openai.lastRequest()!.body;
      assert.equal(sent.model, 'gpt-4o-mini');
      assert.ok(
        Array.isArray(sent.messages) && sent.messages.some((m: any) => m.role === 'tool'),
        'a chat-shaped request',
      );
      const message = stream
        ? (() => {
            const events = parseSse(result.text).map((e) => JSON.parse(e.data));
            assert.equal(events.at(-1).type, 'message_stop');
            return {
              text: events
                .filter((e) => e.delta?.type === 'text_delta')
                .map((e) => e.delta.text)
                .join(''),
              debug: events.find((e) => e.type === 'message_delta').debug,
            };
          })()
        : { text: result.json.content[0].text, debug: result.json.debug };
      assert.equal(message.text, 'from openai');
      assert.deepEqual(
        message.debug.attempts.map((a: any) => [a.provider, a.status]),
        [
          ['mock-anthropic', 503],
          ['mock-anthropic', 503],
          ['mock-openai', 200],
        ],
      );
      assert.equal(message.debug.messages_path, 'translated_fallback');
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(row.provider, 'mock-openai');
      assert.equal(Number(row.input_tokens), 40);
    }
  });

  it('a 400 from Anthropic is final: no retry, no fallback, an invalid_request_error with the provider details; metered', async () => {
    anthropic.setScenario({ status: 400, errorMessage: 'thinking.budget_tokens: must be less than max_tokens' });
    const result = await post(faithfulBody({ model: MIXED }));
    assert.equal(result.status, 400);
    assert.equal(result.json.type, 'error');
    assert.equal(result.json.error.type, 'invalid_request_error');
    assert.equal(result.json.error.code, 'provider_error');
    assert.equal(result.json.error.upstream_status, 400);
    assert.match(result.json.error.message, /budget_tokens/);
    assert.equal(anthropic.requests.length, 1);
    assert.equal(openai.requests.length, 0);
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 400);
    assert.equal(Number(row.input_tokens), 0);
  });

  it('429 on every try with no other target: rate_limit_error with retry-after, for the SDK a RateLimitError', async () => {
    anthropic.setScenario({ status: 429, headers: { 'retry-after': '7' } });
    const result = await post(faithfulBody({ model: NATIVE }));
    assert.equal(result.status, 429);
    assert.equal(result.json.error.type, 'rate_limit_error');
    assert.equal(header(result, 'retry-after'), '7');
    await assert.rejects(
      client.messages.create({ model: NATIVE, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.RateLimitError);
        return true;
      },
    );
  });

  it("an Anthropic `error` event mid-stream ends the client stream with the route's error event; metered with what was produced", async () => {
    const result = await post({
      model: RAW,
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(result.status, 200);
    const events = parseSse(result.text);
    assert.deepEqual(
      events.map((e) => e.event),
      ['message_start', 'content_block_start', 'content_block_delta', 'error'],
    );
    const error = JSON.parse(events.at(-1)!.data);
    assert.equal(error.type, 'error');
    assert.equal(error.error.code, 'provider_error');
    assert.match(error.error.message, /overloaded_error: Overloaded/);
    assert.ok(error.request_id);
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 502);
    assert.equal(Number(row.input_tokens), 25);
    assert.ok(Number(row.output_tokens) >= 1);
  });

  it('an upstream stream cut short becomes the error event and is metered with its status', async () => {
    anthropic.setScenario({ textChunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'], closeMidStream: true });
    const result = await post({
      model: NATIVE,
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(result.status, 200);
    const events = parseSse(result.text);
    const last = events.at(-1)!;
    assert.equal(last.event, 'error');
    const error = JSON.parse(last.data);
    assert.equal(error.type, 'error');
    assert.equal(error.error.code, 'provider_error');
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 502);
  });

  it('admission applies: key model restrictions and monthly ceiling (reservation settled to the real cost)', async () => {
    const restricted = await h.createKey(org, { name: 'restricted', models: ['openai/other'] });
    const refused = await post(faithfulBody({ model: NATIVE }), {}, restricted.key);
    assert.equal(refused.json.type, 'error');
    assert.ok(refused.status === 403 || refused.status === 404, `status ${refused.status}`);
    assert.equal(anthropic.requests.length, 0);

    const capped = await h.createKey(org, { name: 'capped', max_usage: 100 });
    anthropic.setScenario({ usage: { inputTokens: 1000, outputTokens: 500 } });
    const ok = await post(
      { model: NATIVE, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      {},
      capped.key,
    );
    assert.equal(ok.status, 200);
    await usageRowOf(h.running.store, header(ok, 'x-request-id')!);
    const spend = await waitFor(
      async () => {
        const s = await keySpend(h.running.store, capped.id);
        return s.spent === 450 && s.reserved === 0 ? s : undefined;
      },
      { what: 'settled spend' },
    );
    assert.deepEqual(spend, { spent: 450, reserved: 0 });
  });

  it('compression applies in Messages form: tool results shrink, thinking and cache hints stay, the response reports it', async () => {
    const lines = Array.from(
      { length: 400 },
      (_, i) =>
        `2024-01-01T00:00:${String(i % 60).padStart(2, '0')} INFO worker[${i % 4}] processed batch ${i} ok, queue depth 17, latency 12ms`,
    ).join('\n');
    const body = faithfulBody({ model: NATIVE, compression_model: 'claude' });
    const messages = body.messages as any[];
    messages[2].content[1].content = lines;
    anthropic.setScenario({ text: 'done', usage: { inputTokens: 4000, outputTokens: 1 } });
    const result = await post(body);
    assert.equal(result.status, 200, result.text);
    const sent = anthropic.lastRequest()!.body;
    assert.ok(
      JSON.stringify(sent.messages[2].content[1].content).length < lines.length / 2,
      'the long tool result was trimmed',
    );
    assert.deepEqual(sent.messages[1].content[0], messages[1].content[0], 'thinking kept');
    assert.deepEqual(sent.tools[0].cache_control, { type: 'ephemeral' });
    assert.equal(sent.top_k, 7);
    assert.equal('compression_model' in sent, false);
    assert.equal('system' in sent, true);
    assert.ok(result.json.compression.saved_tokens > 0);
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.ok(Number(row.uncompressed_input_tokens) > 4000);

    // Without `system`, the body still compresses as Messages and none is added.
    delete body.system;
    await post(body);
    assert.equal('system' in anthropic.lastRequest()!.body, false);
    assert.ok(JSON.stringify(anthropic.lastRequest()!.body.messages[2].content[1].content).length < lines.length / 2);
  });

  it('gateway tools on the request keep the translated path (the tool loop works on the canonical shape)', async () => {
    const toolsOrg = await h.organization();
    const toolsKey = await h.createKey(toolsOrg);
    const activated = await h.console('POST', `/v1/organizations/${toolsOrg.id}/gateway_tools/gateway_current_time`, {
      token: toolsOrg.token,
      body: { active: true },
    });
    assert.equal(activated.status, 200, activated.text);
    anthropic.setScenario({ text: 'translated' });
    const result = await post(
      faithfulBody({ model: NATIVE, gateway_tool_ids: ['gateway_current_time'] }),
      {},
      toolsKey.key,
    );
    assert.equal(result.status, 200, result.text);
    const sent = anthropic.lastRequest()!.body;
    assert.ok(
      sent.tools.some((t: any) => t.name === 'gateway_current_time'),
      'gateway tool injected',
    );
    assert.deepEqual(
      sent.messages[1].content.map((b: any) => b.type),
      ['tool_use', 'tool_use'],
      'thinking dropped by the translation',
    );
    assert.equal(sent.top_k, undefined);
    assert.match(result.json.id, /^msg_/);
    assert.notEqual(result.json.id, 'msg_mock', 'a gateway-made message');
  });
});
