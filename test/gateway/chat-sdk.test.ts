import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { threeUpstreamsWithOpenAI } from '../support/sdk-clients.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { PRICING } from '../support/chat-kit.js';

describe('official openai SDK through the gateway', () => {
  const env = suiteFixture(() =>
    threeUpstreamsWithOpenAI((mocks) => ({
      // A provider whose key variable is not set: its model is known but not routable.
      providers: [{ id: 'keyless', kind: 'openai', base_url: mocks.openai.baseUrl, api_key_env: 'UNSET_KEYLESS_KEY' }],
      models: [{ id: 'acme/unroutable', providers: [{ provider: 'keyless', model: 'unroutable' }], pricing: PRICING }],
    })),
  );

  for (const [author, model] of [
    ['openai', 'openai/gpt-4o-mini'],
    ['anthropic', 'anthropic/claude-haiku-4-5'],
    ['gemini', 'google/gemini-2.5-flash'],
  ] as const) {
    it(`${author}: chat.completions.create returns the caller's model id and usage`, async () => {
      env.mocks[author].setScenario({
        text: 'Hello there',
        usage: { inputTokens: 12, outputTokens: 3, cachedInputTokens: 4 },
      });
      const completion = await env.client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, model);
      assert.equal(completion.choices[0]!.message.content, 'Hello there');
      assert.equal(completion.choices[0]!.finish_reason, 'stop');
      assert.equal(completion.usage!.prompt_tokens, 12);
      assert.equal(completion.usage!.completion_tokens, 3);
      assert.equal((completion.usage as any).input_tokens_details.cached_tokens, 4);
    });

    it(`${author}: streaming delivers the text and a final usage chunk when asked`, async () => {
      env.mocks[author].setScenario({
        textChunks: ['Hel', 'lo ', 'world'],
        usage: { inputTokens: 7, outputTokens: 3 },
      });
      const stream = await env.client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: any;
      let finish: string | null = null;
      for await (const chunk of stream) {
        assert.equal(chunk.model, model);
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, 'Hello world');
      assert.equal(finish, 'stop');
      assert.equal(usage.prompt_tokens, 7);
      assert.equal(usage.completion_tokens, 3);
    });

    it(`${author}: tool calls come back in OpenAI shape, JSON and streamed`, async () => {
      env.mocks[author].setScenario({
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
        finishReason: 'tool_calls',
      });
      const tools = [
        {
          type: 'function' as const,
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ];
      const completion = await env.client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Weather?' }],
        tools,
      });
      const call = completion.choices[0]!.message.tool_calls![0]! as any;
      assert.equal(call.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
      assert.equal(completion.choices[0]!.finish_reason, 'tool_calls');

      const stream = env.client.chat.completions.stream({
        model,
        messages: [{ role: 'user', content: 'Weather?' }],
        tools,
      });
      const final = await stream.finalChatCompletion();
      const streamedCall = final.choices[0]!.message.tool_calls![0]! as any;
      assert.equal(streamedCall.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(streamedCall.function.arguments), { city: 'Paris' });

      // The tool result goes back upstream in the provider's own format.
      env.mocks[author].setScenario({ text: 'Sunny' });
      const followUp = await env.client.chat.completions.create({
        model,
        tools,
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: call.id, content: '{"temp":21}' },
        ],
      });
      assert.equal(followUp.choices[0]!.message.content, 'Sunny');
      assert.match(env.mocks[author].lastRequest()!.rawBody, /temp/);
    });
  }

  it('local/echo answers with no provider configured', async () => {
    const completion = await env.client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'ping' }],
    });
    assert.match(completion.choices[0]!.message.content!, /ping/);
    assert.ok(completion.usage!.prompt_tokens > 0);
    const stream = await env.client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'one two three four five' }],
      stream: true,
    });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      chunks++;
    }
    assert.match(text, /one two three four five/);
    assert.ok(chunks >= 4);
  });

  it('models.list pages through the routable models only; models.retrieve answers each in the same shape', async () => {
    const listed = [];
    for await (const model of env.client.models.list()) listed.push(model);
    const ids = listed.map((m) => m.id);
    for (const id of ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'google/gemini-2.5-flash', 'local/echo'])
      assert.ok(ids.includes(id), id);
    assert.ok(!ids.includes('acme/unroutable'), 'a model whose provider has no key is not listed');
    for (const model of listed) {
      assert.equal(model.object, 'model');
      // The SDK puts the id in the path encoded (openai%2Fgpt-4o-mini).
      assert.deepEqual(await env.client.models.retrieve(model.id), model);
    }
  });

  it('models.retrieve of an unknown model is a NotFoundError with code model_not_found', async () => {
    await assert.rejects(env.client.models.retrieve('acme/no-such-model'), (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError, String(error));
      assert.equal(error.status, 404);
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.param, 'model');
      assert.equal(error.type, 'invalid_request_error');
      return true;
    });
  });

  it('a known model whose provider is not configured is a BadRequestError provider_not_supported, not a 502', async () => {
    const check = (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.code, 'provider_not_supported');
      assert.equal(error.param, 'model');
      return true;
    };
    const before = env.mocks.openai.requests.length;
    await assert.rejects(
      env.client.chat.completions.create({ model: 'acme/unroutable', messages: [{ role: 'user', content: 'Hi' }] }),
      check,
    );
    await assert.rejects(env.client.models.retrieve('acme/unroutable'), check);
    assert.equal(env.mocks.openai.requests.length, before, 'no provider was called');
  });
});
