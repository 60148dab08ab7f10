import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { MODEL_OF } from '../support/three-upstreams.js';
import { threeUpstreamsWithOpenAI } from '../support/sdk-clients.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { GATEWAY_ONLY_FIELDS } from '../../src/providers/shared/gateway-fields.js';

/**
 * OpenAI-style clients (openai SDK, Aider, Cline, LangChain) send back what OpenAI returned and
 * what OpenAI accepts; Edgee's SDKs add their own gateway members (issue 18, blocker 7). All of
 * it is accepted; gateway members never reach a provider; OpenAI gets the client's messages as
 * sent, the translating adapters what each member means.
 */
const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: null,
  },
};

/** A history as clients keep it: response messages appended verbatim, every optional member present. */
const HISTORY = [
  { role: 'system', content: 'Be brief.', name: 'setup' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }], name: 'ana' },
  {
    role: 'assistant',
    content: null,
    refusal: null,
    annotations: [],
    audio: null,
    function_call: null,
    tool_calls: [
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temp":3}' },
  { role: 'assistant', content: 'Cold: 3 °C.', refusal: null, annotations: [], tool_calls: null },
  // The deprecated pair: one function call and the function message answering it.
  { role: 'user', content: 'And Rome?' },
  { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
  { role: 'function', name: 'get_weather', content: '{"temp":24}' },
  { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot say more.' }] },
  { role: 'user', content: 'Thanks.' },
];

/** Edgee's SDK members, every version (deprecated ones included). */
const EDGEE_FIELDS = {
  tags: ['edgee'],
  compression_model: 'agentic',
  compression_configuration: { rate: 0.8, semantic_preservation_threshold: 80 },
  compression_rate: 0.5,
  compression_semantic_preservation_threshold: 90,
  enable_compression: true,
  compression_technique: 'auto',
  enable_claude_compression: false,
  enable_opencode_compression: false,
};

describe('chat completions: every member OpenAI accepts, and Edgee SDK members', () => {
  const env = suiteFixture(threeUpstreamsWithOpenAI);
  beforeEach(() => {
    for (const mock of Object.values(env.mocks)) mock.reset();
  });

  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    env.h.gateway('POST', '/v1/chat/completions', {
      token: env.key.key,
      body: { model, messages: HISTORY, tools: [WEATHER], ...EDGEE_FIELDS, ...extra },
    });

  it('OpenAI gets the messages and tools as sent, and no gateway member', async () => {
    const result = await chat(MODEL_OF.openai, { seed: 7, logprobs: false, service_tier: 'auto' });
    assert.equal(result.status, 200, result.text);
    const sent = env.mocks.openai.lastRequest()!.body;
    assert.deepEqual(sent.messages, HISTORY);
    assert.deepEqual(sent.tools, [WEATHER]);
    for (const field of GATEWAY_ONLY_FIELDS) assert.ok(!(field in sent), `${field} reached OpenAI`);
    // OpenAI's own top-level members are forwarded (docs/agent-endpoints.md, "Unknown fields").
    assert.equal(sent.seed, 7);
    assert.equal(sent.service_tier, 'auto');
  });

  it('Anthropic gets the deprecated function call as tool_use / tool_result and the refusal as text', async () => {
    const result = await chat(MODEL_OF.anthropic, { service_tier: 'auto' });
    assert.equal(result.status, 200, result.text);
    const sent = env.mocks.anthropic.lastRequest()!.body;
    for (const field of [...GATEWAY_ONLY_FIELDS, 'service_tier'])
      assert.ok(!(field in sent), `${field} reached Anthropic`);
    const blocks = sent.messages.flatMap((m: any) => m.content.map((b: any) => ({ role: m.role, ...b })));
    const legacyCall = blocks.find((b: any) => b.type === 'tool_use' && b.input.city === 'Rome');
    assert.ok(legacyCall, JSON.stringify(sent.messages));
    const legacyResult = blocks.find((b: any) => b.type === 'tool_result' && b.tool_use_id === legacyCall.id);
    assert.equal(legacyResult.content, '{"temp":24}');
    assert.ok(blocks.some((b: any) => b.role === 'assistant' && b.text === 'I cannot say more.'));
  });

  it('Gemini gets the same as function calls and responses', async () => {
    const result = await chat(MODEL_OF.gemini);
    assert.equal(result.status, 200, result.text);
    const sent = env.mocks.gemini.lastRequest()!.body;
    const parts = sent.contents.flatMap((c: any) => c.parts);
    assert.ok(parts.some((p: any) => p.functionCall?.args?.city === 'Rome'));
    assert.ok(parts.some((p: any) => p.functionResponse?.response?.temp === 24));
    for (const field of GATEWAY_ONLY_FIELDS) assert.ok(!(field in sent), field);
  });

  it('enable_compression turns compression on for a key that has it off, false turns it off', async () => {
    const noisy = 'line of build output\n'.repeat(400);
    const body = (enable: boolean) => ({
      model: MODEL_OF.openai,
      messages: [
        { role: 'user', content: 'Build it.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"make"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: noisy },
        { role: 'user', content: 'And now?' },
      ],
      enable_compression: enable,
    });
    const on = await env.h.gateway('POST', '/v1/chat/completions', { token: env.key.key, body: body(true) });
    assert.equal(on.status, 200, on.text);
    assert.ok(on.json.compression?.saved_tokens > 0, on.text);
    assert.ok(!('enable_compression' in env.mocks.openai.lastRequest()!.body));
    const off = await env.h.gateway('POST', '/v1/chat/completions', {
      token: env.key.key,
      body: body(false),
      headers: {},
    });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.json.compression, undefined);
  });

  it('the openai SDK sends a history with these members through chat.completions.create', async () => {
    env.mocks.anthropic.setScenario({ text: 'ok' });
    const completion = await env.client.chat.completions.create({
      model: MODEL_OF.anthropic,
      messages: HISTORY as never,
      tools: [WEATHER as never],
    });
    assert.equal(completion.choices[0]!.message.content, 'ok');
  });

  it('still refuses what OpenAI refuses: a function message without a name, tool_calls on a user message', async () => {
    for (const [message, param] of [
      [{ role: 'function', content: 'x' }, 'messages[0].name'],
      [{ role: 'user', content: 'x', tool_calls: [] }, 'messages[0].tool_calls'],
    ] as const) {
      const result = await env.h.gateway('POST', '/v1/chat/completions', {
        token: env.key.key,
        body: { model: MODEL_OF.openai, messages: [message] },
      });
      assert.equal(result.status, 400, result.text);
      assert.equal(result.json.error.param, param);
    }
  });
});
