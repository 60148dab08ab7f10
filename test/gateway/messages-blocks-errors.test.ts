import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { MODEL_OF } from '../support/three-upstreams.js';
import { anthropicClient, threeUpstreamsWithAnthropic } from '../support/sdk-clients.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { MESSAGES_WEATHER_TOOL as WEATHER_TOOL } from '../support/weather-tool.js';

describe('POST /v1/messages with the official @anthropic-ai/sdk: content blocks, tool_choice and errors', () => {
  const env = suiteFixture(threeUpstreamsWithAnthropic);

  it('content blocks: kept as sent to Anthropic (native path), translated for OpenAI, as documented', async () => {
    env.mocks.anthropic.setScenario({ text: 'ok' });
    await env.client.messages.create({
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
    await env.client.messages.create({
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
    await env.client.messages.create({ ...base, tool_choice: { type: 'any' } });
    assert.deepEqual(env.mocks.anthropic.lastRequest()!.body.tool_choice, { type: 'any' });
    await env.client.messages.create({
      ...base,
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    });
    assert.deepEqual(env.mocks.anthropic.lastRequest()!.body.tool_choice, {
      type: 'tool',
      name: 'get_weather',
      disable_parallel_tool_use: true,
    });
    env.mocks.openai.setScenario({ text: 'ok' });
    await env.client.messages.create({ ...base, model: MODEL_OF.openai, tool_choice: { type: 'none' } });
    assert.equal(env.mocks.openai.lastRequest()!.body.tool_choice, 'none');
  });

  describe('errors in Anthropic shape, with the gateway code and param', () => {
    it('a bad key is an AuthenticationError', async () => {
      const bad = anthropicClient(env.h, 'gw-wrong', env.dispatcher);
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
        env.client.messages.create({ model: 'nope-9', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }),
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
        env.client.messages.create({
          model: MODEL_OF.openai,
          max_tokens: 5,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
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
      const stream = env.client.messages.stream({
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
});
