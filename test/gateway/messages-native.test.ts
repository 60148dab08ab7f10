import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { header, keySpend, parseSse, usageRowOf, waitFor } from '../support/chat-kit.js';
import { NATIVE, THINKING, faithfulBody, startNativeMessages } from './messages-native-fixture.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * /v1/messages, native pass-through (docs/agent-endpoints.md): a model whose first target is
 * Anthropic gets the client's own Messages body, and the client gets Anthropic's answer.
 */
describe('POST /v1/messages: native pass-through to Anthropic', () => {
  const env = suiteFixture(startNativeMessages);
  beforeEach(() => env.reset());

  it('forwards the client body as sent: thinking, top_k, cache_control on tools and blocks, stop_sequences, unknown fields; gateway members removed, model replaced', async () => {
    env.anthropic.setScenario({ text: 'ok' });
    const body = faithfulBody({
      tags: ['team-a'],
      enable_debug: false,
      gateway_tool_ids: [],
      compression_model: undefined,
    });
    const result = await env.post(body, { 'anthropic-beta': 'interleaved-thinking-2025-05-14,context-1m-2025-08-07' });
    assert.equal(result.status, 200, result.text);
    const received = env.anthropic.lastRequest()!;
    const { tags: _t, enable_debug: _d, gateway_tool_ids: _g, compression_model: _c, ...expected } = body;
    assert.deepEqual(received.body, { ...expected, model: 'claude-native-20250929' });
    assert.equal(received.headers['anthropic-version'], '2023-06-01');
    assert.equal(received.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14,context-1m-2025-08-07');
    assert.equal(received.headers['x-api-key'], 'sk-ant', 'the provider key, never the gateway key');
    assert.equal(env.openai.requests.length, 0);
  });

  it('JSON: thinking and signature blocks, stop_sequence and usage come back as Anthropic sent them; one usage row with cache reads and writes', async () => {
    env.anthropic.setScenario({
      thinking: THINKING,
      text: 'Rome: 24°C.',
      stopSequence: 'END',
      usage: { inputTokens: 1000, cachedInputTokens: 600, cacheCreationInputTokens: 300, outputTokens: 42 },
    });
    const result = await env.post(faithfulBody());
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
    const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
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
    env.anthropic.setScenario({
      thinking: THINKING,
      textChunks: ['Rome ', 'is ', 'warm.'],
      stopSequence: 'END',
      usage: { inputTokens: 500, cachedInputTokens: 200, cacheCreationInputTokens: 100, outputTokens: 9 },
    });
    const result = await env.post(faithfulBody({ stream: true, enable_debug: true }));
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

    const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.stream), 1);
    assert.equal(Number(row.status_code), 200);
    assert.equal(Number(row.input_tokens), 500);
    assert.equal(Number(row.cached_input_tokens), 200);
    assert.equal(Number(row.cache_creation_input_tokens), 100);
    assert.equal(Number(row.output_tokens), 9);
  });

  it('the official SDK: messages.create and messages.stream return thinking blocks and stop_sequence', async () => {
    env.anthropic.setScenario({
      thinking: THINKING,
      textChunks: ['Hi ', 'there'],
      stopSequence: 'END',
      usage: { inputTokens: 30, cachedInputTokens: 10, outputTokens: 4 },
    });
    const params = faithfulBody() as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const created = await env.client.messages.create(params);
    assert.deepEqual(created.content, [
      { type: 'thinking', ...THINKING },
      { type: 'text', text: 'Hi there' },
    ]);
    assert.equal(created.stop_reason, 'stop_sequence');
    assert.equal(created.stop_sequence, 'END');
    assert.equal(created.model, 'claude-native');

    const stream = env.client.messages.stream(faithfulBody() as unknown as Anthropic.MessageStreamParams);
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
    env.anthropic.reset();
    const pieces = Array.from({ length: 200 }, (_, i) => `word${i} `);
    env.anthropic.setScenario({ textChunks: pieces, chunkDelayMs: 10, usage: { inputTokens: 50, outputTokens: 200 } });
    const controller = new AbortController();
    const response = await env.raw.post(
      '/v1/messages',
      { model: NATIVE, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'Talk' }] },
      {
        token: env.key.key,
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
    assert.equal(env.anthropic.requests.length, 1);
    return { abortedAt, closedAt: await env.anthropic.requests[0]!.closed };
  }

  it('a client that leaves mid-stream closes the upstream within 100 ms and is metered as 499', async () => {
    await streamAndLeave(`native-abort-warmup-${Date.now()}`);
    const requestId = `native-abort-${Date.now()}`;
    const { abortedAt, closedAt } = await streamAndLeave(requestId);
    assert.ok(
      closedAt - abortedAt < 100,
      `upstream socket closed ${(closedAt - abortedAt).toFixed(1)} ms after the client left`,
    );
    assert.equal(env.anthropic.requests[0]!.responseEndedAt, undefined, 'the upstream never finished its answer');
    const row = await usageRowOf(env.h.running.store, requestId);
    assert.equal(Number(row.status_code), 499);
    assert.equal(row.error_code, 'client_closed');
    assert.equal(Number(row.input_tokens), 50, "message_start's input count");
    assert.ok(
      Number(row.output_tokens) > 0 && Number(row.output_tokens) < 200,
      `output ${row.output_tokens} estimated from what was produced`,
    );
  });

  it('admission applies: key model restrictions and monthly ceiling (reservation settled to the real cost)', async () => {
    const restricted = await env.h.createKey(env.org, { name: 'restricted', models: ['openai/other'] });
    const refused = await env.post(faithfulBody({ model: NATIVE }), {}, restricted.key);
    assert.equal(refused.json.type, 'error');
    assert.ok(refused.status === 403 || refused.status === 404, `status ${refused.status}`);
    assert.equal(env.anthropic.requests.length, 0);

    const capped = await env.h.createKey(env.org, { name: 'capped', max_usage: 100 });
    env.anthropic.setScenario({ usage: { inputTokens: 1000, outputTokens: 500 } });
    const ok = await env.post(
      { model: NATIVE, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      {},
      capped.key,
    );
    assert.equal(ok.status, 200);
    await usageRowOf(env.h.running.store, header(ok, 'x-request-id')!);
    const spend = await waitFor(
      async () => {
        const s = await keySpend(env.h.running.store, capped.id);
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
    env.anthropic.setScenario({ text: 'done', usage: { inputTokens: 4000, outputTokens: 1 } });
    const result = await env.post(body);
    assert.equal(result.status, 200, result.text);
    const sent = env.anthropic.lastRequest()!.body;
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
    const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
    assert.ok(Number(row.uncompressed_input_tokens) > 4000);

    // Without `system`, the body still compresses as Messages and none is added.
    delete body.system;
    await env.post(body);
    assert.equal('system' in env.anthropic.lastRequest()!.body, false);
    assert.ok(
      JSON.stringify(env.anthropic.lastRequest()!.body.messages[2].content[1].content).length < lines.length / 2,
    );
  });

  it('gateway tools on the request keep the translated path (the tool loop works on the canonical shape)', async () => {
    const toolsOrg = await env.h.organization();
    const toolsKey = await env.h.createKey(toolsOrg);
    const activated = await env.h.console(
      'POST',
      `/v1/organizations/${toolsOrg.id}/gateway_tools/gateway_current_time`,
      {
        token: toolsOrg.token,
        body: { active: true },
      },
    );
    assert.equal(activated.status, 200, activated.text);
    env.anthropic.setScenario({ text: 'translated' });
    const result = await env.post(
      faithfulBody({ model: NATIVE, gateway_tool_ids: ['gateway_current_time'] }),
      {},
      toolsKey.key,
    );
    assert.equal(result.status, 200, result.text);
    const sent = env.anthropic.lastRequest()!.body;
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
