import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAgentUpstream, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, header, parseSse, usageRowOf } from '../support/chat-kit.js';

/**
 * /v1/responses, native pass-through (docs/agent-endpoints.md): a model whose first target
 * serves OpenAI's Responses API gets the client's own Responses body, and the client gets
 * OpenAI's answer.
 */

const NATIVE = 'openai/gpt-native'; // a Responses-capable OpenAI target
const MIXED = 'openai/gpt-mixed'; // Responses target first, then a chat-only one: native, then translated
const CHAT_ONLY = 'openai/gpt-chat-only'; // an OpenAI-compatible target without the Responses API

/** What Codex sends and the translation cannot carry: additional_tools, namespace and custom tools, custom tool items. */
function codexBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'gpt-native',
    instructions: 'You are Codex.',
    input: [
      { type: 'additional_tools', role: 'developer', tools: [{ type: 'namespace', name: 'mcp', tools: [] }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the probe file.' }] },
      { type: 'custom_tool_call', call_id: 'call_1', name: 'exec', input: 'cat probe.txt' },
      { type: 'custom_tool_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'probe-42' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
    ],
    tools: [
      { type: 'custom', name: 'exec', description: 'Run a script', format: { type: 'text' } },
      { type: 'namespace', name: 'mcp', tools: [{ type: 'function', name: 'lookup', parameters: {} }] },
      { type: 'web_search' },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'codex-session-1',
    text: { verbosity: 'low' },
    tags: ['codex'],
    ...extra,
  };
}

describe('POST /v1/responses, native pass-through to OpenAI', () => {
  let h: Harness;
  let upstream: MockUpstream; // speaks Responses (and chat completions, and Messages)
  let chatOnly: MockUpstream; // speaks chat completions only
  let key: { id: string; key: string };

  before(async () => {
    upstream = await startMockAgentUpstream({ apiKey: 'sk-openai' });
    chatOnly = await startMockOpenAI({ apiKey: 'sk-openai' });
    h = await startHarness({
      config: {
        providers: [
          {
            id: 'openai-responses',
            kind: 'openai',
            base_url: upstream.baseUrl,
            api_key_env: 'MOCK_KEY',
            responses_api: true,
          },
          { id: 'openai-chat', kind: 'openai', base_url: chatOnly.baseUrl, api_key_env: 'MOCK_KEY' },
        ],
        models: [
          { id: NATIVE, providers: [{ provider: 'openai-responses', model: 'gpt-up' }], pricing: PRICING },
          {
            id: MIXED,
            providers: [
              { provider: 'openai-responses', model: 'gpt-up' },
              { provider: 'openai-chat', model: 'gpt-chat' },
            ],
            pricing: PRICING,
          },
          { id: CHAT_ONLY, providers: [{ provider: 'openai-chat', model: 'gpt-chat' }], pricing: PRICING },
        ],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { MOCK_KEY: 'sk-openai' },
    });
    key = await h.createKey(await h.organization());
  });
  after(async () => {
    await h.stop();
    await upstream.close();
    await chatOnly.close();
  });
  beforeEach(() => {
    upstream.reset();
    chatOnly.reset();
  });

  const responses = (body: Record<string, unknown>) => h.gateway('POST', '/v1/responses', { token: key.key, body });

  it('forwards the body as sent: every input item and tool type, unknown fields; gateway members removed, model replaced', async () => {
    const result = await responses(codexBody());
    assert.equal(result.status, 200, result.text);
    const sent = upstream.lastRequest()!;
    assert.equal(sent.path, '/v1/responses');
    assert.equal(sent.headers.authorization, 'Bearer sk-openai');
    const expected = codexBody({ model: 'gpt-up' });
    delete expected.tags;
    assert.deepEqual(sent.body, expected);
  });

  it('JSON: the Response as OpenAI wrote it, model echoing the client, usage metered, debug names the native path', async () => {
    upstream.setScenario({
      toolCalls: [{ id: 'call_2', name: 'exec', input: 'ls' }],
      usage: { inputTokens: 900, outputTokens: 40, cachedInputTokens: 600, reasoningTokens: 12 },
    });
    const result = await responses(codexBody({ enable_debug: true }));
    assert.equal(result.status, 200, result.text);
    assert.equal(result.json.id, 'resp_mock');
    assert.equal(result.json.model, 'gpt-native');
    assert.equal(result.json.output[0].type, 'custom_tool_call');
    assert.equal(result.json.output[0].input, 'ls');
    assert.equal(result.json.debug.responses_path, 'native');
    assert.equal(header(result, 'x-gateway-provider'), 'openai-responses');
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.input_tokens), 900);
    assert.equal(Number(row.cached_input_tokens), 600);
    assert.equal(Number(row.output_tokens), 40);
    assert.equal(Number(row.reasoning_tokens), 12);
    assert.equal(row.endpoint, '/v1/responses');
    assert.equal(row.provider, 'openai-responses');
  });

  it('stream: OpenAI events relayed in order, response.completed last with the gateway members, metered once', async () => {
    upstream.setScenario({ textChunks: ['probe', '-42'], usage: { inputTokens: 300, outputTokens: 5 } });
    const result = await responses(codexBody({ stream: true, enable_debug: true }));
    assert.equal(result.status, 200, result.text);
    assert.match(String(result.headers['content-type']), /^text\/event-stream/);
    const events = parseSse(result.text);
    const names = events.map((e) => e.event);
    assert.equal(names[0], 'response.created');
    assert.equal(names.at(-1), 'response.completed');
    assert.deepEqual(
      events.filter((e) => e.event === 'response.output_text.delta').map((e) => JSON.parse(e.data).delta),
      ['probe', '-42'],
    );
    const created = JSON.parse(events[0]!.data);
    assert.equal(created.response.model, 'gpt-native');
    const completed = JSON.parse(events.at(-1)!.data);
    assert.equal(completed.response.model, 'gpt-native');
    assert.equal(completed.response.usage.input_tokens, 300);
    assert.equal(completed.response.debug.responses_path, 'native');
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.input_tokens), 300);
    assert.equal(Number(row.output_tokens), 5);
    assert.equal(Number(row.stream), 1);
  });

  it('an upstream stream cut short ends the client stream with response.failed and is metered with its error', async () => {
    upstream.setScenario({ textChunks: ['a ', 'b ', 'c ', 'd'], closeMidStream: true });
    const result = await responses(codexBody({ stream: true }));
    assert.equal(result.status, 200);
    const last = parseSse(result.text).at(-1)!;
    assert.equal(last.event, 'response.failed');
    assert.equal(JSON.parse(last.data).response.status, 'failed');
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 502);
    assert.equal(row.error_code, 'provider_error');
  });

  it('a target without the Responses API keeps the translated path (chat completions upstream)', async () => {
    const result = await responses({ model: CHAT_ONLY, input: 'Hi' });
    assert.equal(result.status, 200, result.text);
    assert.equal(chatOnly.lastRequest()!.path, '/v1/chat/completions');
    assert.equal(upstream.requests.length, 0);
  });

  it('gateway tools keep the translated path; a body only the native path can carry is then refused with a 400', async () => {
    const plain = await responses({ model: NATIVE, input: 'Hi', gateway_pending_id: 'gp_unknown' });
    assert.notEqual(plain.status, 200);
    assert.ok(
      upstream.requests.every((r) => r.path !== '/v1/responses'),
      'not native',
    );
    const refused = await responses({ ...codexBody(), model: CHAT_ONLY });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error.code, 'invalid_request');
    // Codex's own items and tools translate (responses-codex-conversion.test.ts); the hosted web_search does not.
    assert.equal(refused.json.error.param, 'tools[2].type');
  });

  it('the native target failing before the first byte: a translatable request falls back to the translated path', async () => {
    upstream.setScenario({ status: 503, errorMessage: 'overloaded' });
    const result = await responses({ model: MIXED, input: 'Hi', enable_debug: true });
    assert.equal(result.status, 200, result.text);
    assert.equal(result.json.debug.responses_path, 'translated_fallback');
    assert.deepEqual(
      result.json.debug.attempts.map((a: { provider: string; status: number }) => [a.provider, a.status]),
      [
        ['openai-responses', 503],
        ['openai-chat', 200],
      ],
    );
    assert.equal(header(result, 'x-gateway-fallback-used'), '1');
    assert.equal(chatOnly.lastRequest()!.path, '/v1/chat/completions');
  });

  it('... and a request the translation cannot carry gets the native error, with no fallback', async () => {
    upstream.setScenario({ status: 503, errorMessage: 'overloaded' });
    const result = await responses({ ...codexBody(), model: MIXED });
    assert.equal(result.status, 502, result.text);
    assert.equal(result.json.error.code, 'provider_error');
    assert.equal(chatOnly.requests.length, 0);
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 502);
  });
});
