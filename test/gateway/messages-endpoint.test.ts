import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { usageRowOf, parseSse } from '../support/chat-kit.js';
import { MODEL_OF } from '../support/three-upstreams.js';
import { threeUpstreamsWithAnthropic } from '../support/sdk-clients.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { MESSAGES_WEATHER_TOOL as WEATHER_TOOL } from '../support/weather-tool.js';

describe('POST /v1/messages with the official @anthropic-ai/sdk', () => {
  const env = suiteFixture(threeUpstreamsWithAnthropic);

  for (const upstream of ['openai', 'anthropic'] as const) {
    const model = MODEL_OF[upstream];

    it(`${upstream}: messages.create returns an Anthropic message with usage split like Anthropic's`, async () => {
      env.mocks[upstream].setScenario({
        text: 'Hello there',
        usage: { inputTokens: 30, outputTokens: 3, cachedInputTokens: 10 },
      });
      const { data: message, response } = await env.client.messages
        .create({ model, max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.model, model);
      assert.match(message.id, /^msg_/);
      assert.deepEqual(message.content, [{ type: 'text', text: 'Hello there' }]);
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(message.stop_sequence, null);
      assert.equal(message.usage.input_tokens, 20, 'input_tokens excludes cache reads');
      assert.equal(message.usage.cache_read_input_tokens, 10);
      assert.equal(message.usage.output_tokens, 3);
      // The request reached the upstream in its own format, system prompt included.
      assert.match(env.mocks[upstream].lastRequest()!.rawBody, /Be brief\./);
      // Metered once, under this endpoint.
      const row = await usageRowOf(env.h.running.store, response.headers.get('x-request-id')!);
      assert.equal(row.endpoint, '/v1/messages');
      assert.equal(row.input_tokens, 30);
      assert.equal(row.output_tokens, 3);
    });

    it(`${upstream}: messages.stream delivers text events and the final message`, async () => {
      env.mocks[upstream].setScenario({
        textChunks: ['Hel', 'lo ', 'world'],
        usage: { inputTokens: 7, outputTokens: 3 },
      });
      const stream = env.client.messages.stream({
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      const pieces: string[] = [];
      stream.on('text', (text) => pieces.push(text));
      const final = await stream.finalMessage();
      assert.equal(pieces.join(''), 'Hello world');
      assert.deepEqual(final.content, [{ type: 'text', text: 'Hello world' }]);
      assert.equal(final.stop_reason, 'end_turn');
      assert.equal(final.usage.input_tokens, 7, 'message_delta restates the input count');
      assert.equal(final.usage.output_tokens, 3);
    });

    it(`${upstream}: tool use round trip — tool_use out, tool_result back, JSON and streamed`, async () => {
      env.mocks[upstream].setScenario({
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      });
      const first = await env.client.messages.create({
        model,
        max_tokens: 100,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      });
      assert.equal(first.stop_reason, 'tool_use');
      const toolUse = first.content.find((b) => b.type === 'tool_use');
      assert.ok(toolUse && toolUse.type === 'tool_use');
      assert.equal(toolUse.name, 'get_weather');
      assert.deepEqual(toolUse.input, { city: 'Paris' });

      const streamed = await env.client.messages
        .stream({
          model,
          max_tokens: 100,
          tools: [WEATHER_TOOL],
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
        })
        .finalMessage();
      const streamedUse = streamed.content.find((b) => b.type === 'tool_use');
      assert.ok(streamedUse && streamedUse.type === 'tool_use');
      assert.deepEqual(streamedUse.input, { city: 'Paris' });
      assert.equal(streamed.stop_reason, 'tool_use');

      env.mocks[upstream].setScenario({ text: 'It is sunny.' });
      const second = await env.client.messages.create({
        model,
        max_tokens: 100,
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '{"temp":21}' }] },
        ],
      });
      assert.deepEqual(second.content, [{ type: 'text', text: 'It is sunny.' }]);
      const sent = env.mocks[upstream].lastRequest()!.body;
      if (upstream === 'openai') {
        assert.equal(sent.messages.at(-1).role, 'tool');
        assert.equal(sent.messages.at(-1).tool_call_id, toolUse.id);
        assert.equal(sent.messages.at(-2).tool_calls[0].function.name, 'get_weather');
      } else {
        // The client placed no cache_control, so the gateway puts its breakpoint on the last
        // message (docs/compression.md, "Breakpoints the gateway manages").
        assert.deepEqual(sent.messages.at(-1).content[0], {
          type: 'tool_result',
          tool_use_id: toolUse.id,
          content: '{"temp":21}',
          cache_control: { type: 'ephemeral' },
        });
        assert.equal(sent.messages.at(-2).content[0].type, 'tool_use');
      }
    });
  }

  it('messages.countTokens answers {input_tokens} in Anthropic shape', async () => {
    const small = await env.client.messages.countTokens({
      model: MODEL_OF.anthropic,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const large = await env.client.messages.countTokens({
      model: 'claude-haiku-4-5',
      system: 'You are a careful assistant.',
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris, London and Rome, please, with details.' }] },
      ],
    });
    assert.deepEqual(Object.keys(small), ['input_tokens']);
    assert.ok(small.input_tokens > 0);
    assert.ok(large.input_tokens > small.input_tokens + 20);
  });

  it('a bare Anthropic model name resolves to anthropic/<name> and is echoed as sent', async () => {
    env.mocks.anthropic.setScenario({ text: 'bare' });
    const message = await env.client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(message.model, 'claude-haiku-4-5');
    assert.deepEqual(message.content, [{ type: 'text', text: 'bare' }]);
    assert.equal(env.mocks.anthropic.lastRequest()!.body.model, 'claude-haiku-4-5');
  });

  it('gateway tools run inline on this path too, JSON and streamed', async () => {
    const activated = await env.h.console(
      'POST',
      `/v1/organizations/${env.org.id}/gateway_tools/gateway_current_time`,
      { token: env.org.token, body: { active: true } },
    );
    assert.equal(activated.status, 200, activated.text);
    for (const stream of [false, true]) {
      env.mocks.openai.reset();
      env.mocks.openai.setScenario([
        {
          toolCalls: [{ id: 'call_time', name: 'gateway_current_time', arguments: { timezone: 'UTC' } }],
          usage: { inputTokens: 50, outputTokens: 7 },
        },
        { text: 'It is noon.', usage: { inputTokens: 80, outputTokens: 6 } },
      ]);
      const params = {
        model: MODEL_OF.openai,
        max_tokens: 50,
        messages: [{ role: 'user' as const, content: 'Time?' }],
        gateway_tool_ids: ['gateway_current_time'],
      };
      const message: any = stream
        ? await env.client.messages.stream(params as never).finalMessage()
        : await env.client.messages.create(params as never);
      assert.deepEqual(message.content, [{ type: 'text', text: 'It is noon.' }]);
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(message.usage.input_tokens, 130, 'both rounds are billed');
      assert.equal(env.mocks.openai.requests.length, 2);
      assert.equal(env.mocks.openai.requests[1]!.body.messages.at(-1).role, 'tool');
      if (!stream) assert.equal(message.gateway_tools_executed[0].name, 'gateway_current_time');
    }
  });

  it('gateway features apply: tags header and body, debug member, metering of streams', async () => {
    env.mocks.anthropic.setScenario({ textChunks: ['x', 'y'], usage: { inputTokens: 11, outputTokens: 2 } });
    const result = await env.h.gateway('POST', '/v1/messages', {
      headers: { 'x-api-key': env.key.key, 'anthropic-version': '2023-06-01', 'x-gateway-tags': 'agent,claude' },
      body: {
        model: 'claude-haiku-4-5',
        max_tokens: 20,
        stream: true,
        enable_debug: true,
        tags: ['team-a'],
        messages: [{ role: 'user', content: 'Hi' }],
      },
    });
    assert.equal(result.status, 200);
    const events = parseSse(result.text).map((e) => ({ name: e.event, data: JSON.parse(e.data) }));
    // Anthropic's own events, relayed natively: message_start first, ping where Anthropic put it.
    assert.equal(events[0]!.name, 'message_start');
    assert.ok(events.some((e) => e.name === 'ping'));
    assert.equal(events.at(-1)!.name, 'message_stop');
    const delta = events.find((e) => e.name === 'message_delta')!.data;
    assert.equal(delta.debug.provider, 'mock-anthropic');
    assert.deepEqual(delta.debug.tags, ['team-a', 'agent', 'claude']);
    const row = await usageRowOf(env.h.running.store, String(result.headers['x-request-id']));
    assert.equal(row.endpoint, '/v1/messages');
    assert.equal(row.stream, 1);
    assert.equal(row.input_tokens, 11);
    assert.deepEqual(JSON.parse(row.tags), ['team-a', 'agent', 'claude']);
  });
});
