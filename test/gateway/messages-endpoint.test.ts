import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import Anthropic from '@anthropic-ai/sdk';
import { usageRowOf, parseSse } from '../support/chat-kit.js';
import { startThreeUpstreams, MODEL_OF, type ThreeUpstreams } from '../support/three-upstreams.js';

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('POST /v1/messages with the official @anthropic-ai/sdk', () => {
  let env: ThreeUpstreams;
  let client: Anthropic;
  let dispatcher: Agent;
  before(async () => {
    env = await startThreeUpstreams();
    dispatcher = new Agent({ connect: { ca: env.h.ca } });
    // Only the base URL and the key change; the SDK sends x-api-key and anthropic-version.
    client = new Anthropic({
      apiKey: env.key.key,
      baseURL: env.h.running.urls.gateway,
      fetchOptions: { dispatcher } as never,
      maxRetries: 0,
    });
  });
  after(async () => {
    await env.stop();
    await dispatcher.close();
  });

  for (const upstream of ['openai', 'anthropic'] as const) {
    const model = MODEL_OF[upstream];

    it(`${upstream}: messages.create returns an Anthropic message with usage split like Anthropic's`, async () => {
      env.mocks[upstream].setScenario({
        text: 'Hello there',
        usage: { inputTokens: 30, outputTokens: 3, cachedInputTokens: 10 },
      });
      const { data: message, response } = await client.messages
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
      const stream = client.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
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
      const first = await client.messages.create({
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

      const streamed = await client.messages
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
      const second = await client.messages.create({
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
    const small = await client.messages.countTokens({
      model: MODEL_OF.anthropic,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const large = await client.messages.countTokens({
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
    const message = await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(message.model, 'claude-haiku-4-5');
    assert.deepEqual(message.content, [{ type: 'text', text: 'bare' }]);
    assert.equal(env.mocks.anthropic.lastRequest()!.body.model, 'claude-haiku-4-5');
  });

  it('content blocks: kept as sent to Anthropic (native path), translated for OpenAI, as documented', async () => {
    env.mocks.anthropic.setScenario({ text: 'ok' });
    await client.messages.create({
      model: MODEL_OF.anthropic,
      max_tokens: 50,
      system: [{ type: 'text', text: 'Long system prompt', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_9',
              is_error: true,
              content: [{ type: 'text', text: 'timeout' }],
            },
          ],
        },
      ],
      tools: [WEATHER_TOOL],
    });
    const sent = env.mocks.anthropic.lastRequest()!.body;
    assert.deepEqual(sent.system, [{ type: 'text', text: 'Long system prompt', cache_control: { type: 'ephemeral' } }]);
    assert.deepEqual(sent.messages[0].content[1], {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    });
    assert.deepEqual(sent.messages[0].content[2], {
      type: 'image',
      source: { type: 'url', url: 'https://example.com/cat.png' },
    });
    // Native pass-through (docs/agent-endpoints.md): thinking blocks and is_error reach Anthropic as sent.
    assert.deepEqual(
      sent.messages[1].content.map((b: any) => b.type),
      ['thinking', 'tool_use'],
      'thinking is kept on the native path',
    );
    assert.deepEqual(sent.messages[2].content[0], {
      type: 'tool_result',
      tool_use_id: 'toolu_9',
      is_error: true,
      content: [{ type: 'text', text: 'timeout' }],
    });

    env.mocks.openai.setScenario({ text: 'ok' });
    await client.messages.create({
      model: MODEL_OF.openai,
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
      stop_sequences: ['END'],
      temperature: 0.2,
      metadata: { user_id: 'u-1' },
    });
    const toOpenAI = env.mocks.openai.lastRequest()!.body;
    assert.deepEqual(toOpenAI.messages[0].content[1], {
      type: 'image_url',
      image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' },
    });
    assert.deepEqual(toOpenAI.stop, ['END']);
    assert.equal(toOpenAI.temperature, 0.2);
    assert.equal(toOpenAI.user, 'u-1');
    assert.equal(toOpenAI.max_tokens, 50);
  });

  it('tool_choice any / tool / none map onto the upstream', async () => {
    env.mocks.anthropic.setScenario({ text: 'ok' });
    const base = {
      model: MODEL_OF.anthropic,
      max_tokens: 20,
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };
    await client.messages.create({ ...base, tool_choice: { type: 'any' } });
    assert.deepEqual(env.mocks.anthropic.lastRequest()!.body.tool_choice, { type: 'any' });
    await client.messages.create({
      ...base,
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    });
    assert.deepEqual(env.mocks.anthropic.lastRequest()!.body.tool_choice, {
      type: 'tool',
      name: 'get_weather',
      disable_parallel_tool_use: true,
    });
    env.mocks.openai.setScenario({ text: 'ok' });
    await client.messages.create({ ...base, model: MODEL_OF.openai, tool_choice: { type: 'none' } });
    assert.equal(env.mocks.openai.lastRequest()!.body.tool_choice, 'none');
  });

  describe('errors in Anthropic shape, with the gateway code and param', () => {
    it('a bad key is an AuthenticationError', async () => {
      const bad = new Anthropic({
        apiKey: 'gw-wrong',
        baseURL: env.h.running.urls.gateway,
        fetchOptions: { dispatcher } as never,
        maxRetries: 0,
      });
      await assert.rejects(
        bad.messages.create({ model: MODEL_OF.anthropic, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }),
        (error: any) => {
          assert.ok(error instanceof Anthropic.AuthenticationError);
          assert.equal(error.status, 401);
          assert.equal(error.type, 'authentication_error');
          assert.equal((error as any).error.type, 'error');
          assert.equal((error as any).error.error.code, 'unauthorized');
          return true;
        },
      );
    });

    it('an unknown model (not even shaped like a Claude name) is a NotFoundError naming the param', async () => {
      await assert.rejects(
        client.messages.create({ model: 'nope-9', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }),
        (error: any) => {
          assert.ok(error instanceof Anthropic.NotFoundError);
          assert.equal((error as any).error.error.type, 'not_found_error');
          assert.equal((error as any).error.error.code, 'model_not_found');
          assert.equal((error as any).error.error.param, 'model');
          assert.match(error.message, /anthropic\/nope-9/);
          return true;
        },
      );
    });

    it('schema and block errors are 400 invalid_request_error naming the field', async () => {
      const missing = await env.h.gateway('POST', '/v1/messages', {
        headers: { 'x-api-key': env.key.key, 'anthropic-version': '2023-06-01' },
        body: { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }] },
      });
      assert.equal(missing.status, 400);
      assert.equal(missing.json.type, 'error');
      assert.equal(missing.json.error.type, 'invalid_request_error');
      assert.equal(missing.json.error.code, 'invalid_request');
      assert.equal(missing.json.error.param, 'max_tokens');
      assert.ok(missing.json.request_id);

      const badBlock = await env.h.gateway('POST', '/v1/messages', {
        token: env.key.key,
        body: {
          model: 'claude-haiku-4-5',
          max_tokens: 5,
          messages: [
            { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] },
          ],
        },
      });
      assert.equal(badBlock.status, 400);
      assert.equal(badBlock.json.error.param, 'messages[0].content[0].source');

      // A server tool only Anthropic runs: refused when the request is translated for OpenAI.
      const serverTool = await env.h.gateway('POST', '/v1/messages', {
        token: env.key.key,
        body: {
          model: MODEL_OF.openai,
          max_tokens: 5,
          messages: [{ role: 'user', content: 'Hi' }],
          tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        },
      });
      assert.equal(serverTool.status, 400);
      assert.equal(serverTool.json.error.type, 'invalid_request_error');
      assert.equal(serverTool.json.error.param, 'tools[0].type');
      assert.match(serverTool.json.error.message, /^tools\.0\.type: .*web_search_20250305.* is not supported/);

      const badJson = await env.h.gateway('POST', '/v1/messages', {
        token: env.key.key,
        rawBody: '{"model":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(badJson.status, 400);
      assert.equal(badJson.json.type, 'error');
      assert.equal(badJson.json.error.code, 'invalid_json');
    });

    it('an upstream failure is an api_error with provider details', async () => {
      env.mocks.openai.setScenario({ status: 500, errorMessage: 'boom' });
      await assert.rejects(
        client.messages.create({ model: MODEL_OF.openai, max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }),
        (error: any) => {
          assert.ok(error instanceof Anthropic.InternalServerError);
          assert.equal((error as any).error.error.type, 'api_error');
          assert.equal((error as any).error.error.code, 'provider_error');
          assert.equal((error as any).error.error.upstream_status, 500);
          return true;
        },
      );
    });

    it('a failure mid-stream is an `error` event the SDK throws', async () => {
      env.mocks.openai.setScenario({ textChunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'], closeMidStream: true });
      const stream = client.messages.stream({
        model: MODEL_OF.openai,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      await assert.rejects(stream.finalMessage(), (error: any) => {
        assert.ok(error instanceof Anthropic.APIError);
        assert.equal((error as any).error.error.code, 'provider_error');
        return true;
      });
    });
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
        ? await client.messages.stream(params as never).finalMessage()
        : await client.messages.create(params as never);
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
