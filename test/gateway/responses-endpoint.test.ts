import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { usageRowOf, assertGatewayError } from '../support/chat-kit.js';
import { MODEL_OF } from '../support/three-upstreams.js';
import { threeUpstreamsWithOpenAI } from '../support/sdk-clients.js';
import { suiteFixture } from '../support/suite-fixture.js';

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

describe('POST /v1/responses with the official openai SDK', () => {
  const env = suiteFixture(threeUpstreamsWithOpenAI);

  for (const upstream of ['openai', 'anthropic'] as const) {
    const model = MODEL_OF[upstream];

    it(`${upstream}: responses.create returns a completed Response with output_text and usage`, async () => {
      env.mocks[upstream].setScenario({
        text: 'Hello there',
        usage: { inputTokens: 30, outputTokens: 3, cachedInputTokens: 10 },
      });
      const { data: response, response: raw } = await env.client.responses
        .create({ model, instructions: 'Be brief.', input: 'Hi', max_output_tokens: 100, temperature: 0.5 })
        .withResponse();
      assert.equal(response.object, 'response');
      assert.match(response.id, /^resp_/);
      assert.equal(response.status, 'completed');
      assert.equal(response.model, model);
      assert.equal(response.output_text, 'Hello there');
      const message = response.output[0]!;
      assert.equal(message.type, 'message');
      assert.ok(message.type === 'message');
      assert.equal(message.role, 'assistant');
      assert.deepEqual(message.content, [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }]);
      assert.deepEqual(response.usage, {
        input_tokens: 30,
        input_tokens_details: { cached_tokens: 10, cache_creation_tokens: 0 },
        output_tokens: 3,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 33,
      });
      assert.equal(response.instructions, 'Be brief.');
      assert.match(env.mocks[upstream].lastRequest()!.rawBody, /Be brief\./);
      const row = await usageRowOf(env.h.running.store, raw.headers.get('x-request-id')!);
      assert.equal(row.endpoint, '/v1/responses');
    });

    it(`${upstream}: responses.create with stream: true yields the Responses events in order`, async () => {
      env.mocks[upstream].setScenario({
        textChunks: ['Hel', 'lo ', 'world'],
        usage: { inputTokens: 7, outputTokens: 3 },
      });
      const stream = await env.client.responses.create({
        model,
        input: [{ role: 'user', content: 'Hi' }],
        stream: true,
      });
      const types: string[] = [];
      let text = '';
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      assert.equal(text, 'Hello world');
      assert.deepEqual(types.slice(0, 4), [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
      ]);
      assert.deepEqual(types.slice(-4), [
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      assert.equal(completed!.output_text, 'Hello world');
      assert.equal(completed!.usage!.input_tokens, 7);
      assert.equal(completed!.usage!.output_tokens, 3);
    });

    it(`${upstream}: function call round trip — function_call out, function_call_output back, JSON and streamed`, async () => {
      env.mocks[upstream].setScenario({
        toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }],
      });
      const first = await env.client.responses.create({ model, input: 'Weather in Paris?', tools: [WEATHER_TOOL] });
      const call = first.output.find((o) => o.type === 'function_call');
      assert.ok(call && call.type === 'function_call');
      assert.equal(call.name, 'get_weather');
      assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
      assert.equal(call.status, 'completed');
      assert.match(call.id!, /^fc_/);

      const streamed = await env.client.responses
        .stream({ model, input: 'Weather in Paris?', tools: [WEATHER_TOOL] })
        .finalResponse();
      const streamedCall = streamed.output.find((o) => o.type === 'function_call');
      assert.ok(streamedCall && streamedCall.type === 'function_call');
      assert.deepEqual(JSON.parse(streamedCall.arguments), { city: 'Paris' });

      env.mocks[upstream].setScenario({ text: 'It is sunny.' });
      const second = await env.client.responses.create({
        model,
        tools: [WEATHER_TOOL],
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' },
        ],
      });
      assert.equal(second.output_text, 'It is sunny.');
      const sent = env.mocks[upstream].lastRequest()!.body;
      if (upstream === 'openai') {
        assert.deepEqual(sent.messages.at(-1), { role: 'tool', tool_call_id: call.call_id, content: '{"temp":21}' });
        assert.equal(sent.messages.at(-2).tool_calls[0].id, call.call_id);
        assert.equal(sent.tools[0].function.name, 'get_weather');
      } else {
        // Translated for Anthropic without cache_control: the gateway's breakpoint on the last message.
        assert.deepEqual(sent.messages.at(-1).content[0], {
          type: 'tool_result',
          tool_use_id: call.call_id,
          content: '{"temp":21}',
          cache_control: { type: 'ephemeral' },
        });
        assert.equal(sent.tools[0].name, 'get_weather');
      }
    });
  }

  it('message items with input_text / input_image / output_text parts, developer role and a bare model name', async () => {
    env.mocks.openai.setScenario({ text: 'ok' });
    await env.client.responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'developer', content: 'Rules.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look' },
            { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'low' },
          ],
        },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          id: 'msg_1',
          content: [{ type: 'output_text', text: 'A cat.', annotations: [] }],
        },
        { role: 'user', content: 'More?' },
      ],
      reasoning: { effort: 'low' },
      store: false,
    });
    const sent = env.mocks.openai.lastRequest()!.body;
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Rules.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
        ],
      },
      { role: 'assistant', content: 'A cat.' },
      { role: 'user', content: 'More?' },
    ]);
    assert.equal(sent.reasoning_effort, 'low');
    assert.equal(sent.model, 'gpt-4o-mini');
  });

  it('a length stop is status incomplete with reason max_output_tokens', async () => {
    env.mocks.anthropic.setScenario({ text: 'cut', finishReason: 'length' });
    const response = await env.client.responses.create({
      model: MODEL_OF.anthropic,
      input: 'Hi',
      max_output_tokens: 1,
    });
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(env.mocks.anthropic.lastRequest()!.body.max_tokens, 1);
  });

  it('previous_response_id and store: true are refused naming the param', async () => {
    for (const [extra, param] of [
      [{ previous_response_id: 'resp_x' }, 'previous_response_id'],
      [{ store: true }, 'store'],
    ] as const) {
      await assert.rejects(
        env.client.responses.create({ model: MODEL_OF.openai, input: 'Hi', ...extra }),
        (error: any) => {
          assert.ok(error instanceof OpenAI.BadRequestError);
          assert.equal(error.code, 'invalid_request');
          assert.equal(error.param, param);
          return true;
        },
      );
    }
  });

  it('unsupported items and tools are 400 in the gateway envelope naming the field', async () => {
    const badItem = await env.h.gateway('POST', '/v1/responses', {
      token: env.key.key,
      body: { model: MODEL_OF.openai, input: [{ type: 'item_reference', id: 'x' }] },
    });
    assertGatewayError(badItem, { status: 400, code: 'invalid_request', param: 'input[0].type' });
    const badTool = await env.h.gateway('POST', '/v1/responses', {
      token: env.key.key,
      body: { model: MODEL_OF.openai, input: 'Hi', tools: [{ type: 'web_search' }] },
    });
    assertGatewayError(badTool, { status: 400, code: 'invalid_request', param: 'tools[0].type' });
    const badCall = await env.h.gateway('POST', '/v1/responses', {
      token: env.key.key,
      body: { model: MODEL_OF.openai, input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
    });
    assertGatewayError(badCall, { status: 400, code: 'invalid_request', param: 'input[0].call_id' });
    const badTemp = await env.h.gateway('POST', '/v1/responses', {
      token: env.key.key,
      body: { model: MODEL_OF.openai, input: 'Hi', temperature: 3 },
    });
    assertGatewayError(badTemp, { status: 400, code: 'invalid_request', param: 'temperature' });
    const unknownModel = await env.h.gateway('POST', '/v1/responses', {
      token: env.key.key,
      body: { model: 'nope-model', input: 'Hi' }, // not shaped like an OpenAI name: not forwarded
    });
    assertGatewayError(unknownModel, { status: 400, code: 'model_not_found', param: 'model' });
  });

  it('gateway features apply: X-Gateway-Tags and enable_debug', async () => {
    env.mocks.openai.setScenario({ text: 'ok', usage: { inputTokens: 9, outputTokens: 1 } });
    const { data, response } = await env.client.responses
      .create({ model: MODEL_OF.openai, input: 'Hi', enable_debug: true, tags: ['codex'] } as never, {
        headers: { 'X-Gateway-Tags': 'ci' },
      })
      .withResponse();
    const debug = (data as any).debug;
    assert.equal(debug.provider, 'mock-openai');
    assert.deepEqual(debug.tags, ['codex', 'ci']);
    const row = await usageRowOf(env.h.running.store, response.headers.get('x-request-id')!);
    assert.deepEqual(JSON.parse(row.tags), ['codex', 'ci']);
    assert.equal(row.endpoint, '/v1/responses');
  });

  it('compression_model compresses the history and reports it, as on chat completions', async () => {
    env.mocks.openai.setScenario({ text: 'ok' });
    const log = Array.from(
      { length: 400 },
      (_, i) => `tests/test_module_${i % 7}.py::test_case_${i} PASSED [${Math.round((i / 400) * 100)}%]`,
    ).join('\n');
    const response: any = await env.client.responses.create({
      model: MODEL_OF.openai,
      tools: [WEATHER_TOOL],
      input: [
        { role: 'user', content: 'Run the tests' },
        { type: 'function_call', call_id: 'call_t', name: 'get_weather', arguments: '{"city":"x"}' },
        { type: 'function_call_output', call_id: 'call_t', output: log },
        { role: 'user', content: 'Summarise' },
      ],
      compression_model: 'codex',
    } as never);
    assert.ok(response.compression, 'compression member present');
    assert.ok(response.compression.saved_tokens > 0);
    const sent = env.mocks.openai.lastRequest()!.body;
    assert.ok(
      sent.messages.find((m: any) => m.role === 'tool').content.length < log.length,
      'the upstream got the shorter history',
    );
    assert.equal(sent.compression_model, undefined, 'gateway fields never reach the provider');
  });

  it('gateway tools run inline and are reported on the Response', async () => {
    const activated = await env.h.console(
      'POST',
      `/v1/organizations/${env.org.id}/gateway_tools/gateway_current_time`,
      { token: env.org.token, body: { active: true } },
    );
    assert.equal(activated.status, 200, activated.text);
    env.mocks.openai.reset();
    env.mocks.openai.setScenario([
      { toolCalls: [{ id: 'call_time', name: 'gateway_current_time', arguments: { timezone: 'UTC' } }] },
      { text: 'It is noon.' },
    ]);
    const response: any = await env.client.responses.create({
      model: MODEL_OF.openai,
      input: 'Time?',
      gateway_tool_ids: ['gateway_current_time'],
    } as never);
    assert.equal(response.output_text, 'It is noon.');
    assert.equal(response.gateway_tools_executed[0].name, 'gateway_current_time');
    assert.equal(env.mocks.openai.requests.length, 2);
  });

  it('a failure mid-stream ends with response.failed', async () => {
    env.mocks.openai.setScenario({ textChunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'], closeMidStream: true });
    const stream = await env.client.responses.create({ model: MODEL_OF.openai, input: 'Hi', stream: true });
    const types: string[] = [];
    let failed: any;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failed = event.response;
    }
    assert.equal(types.at(-1), 'response.failed');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'provider_error');
  });
});
