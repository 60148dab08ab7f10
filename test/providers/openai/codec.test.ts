import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiCodec } from '../../../src/providers/openai/codec.js';
import { UpstreamError, type UpstreamTarget } from '../../../src/providers/types.js';

const target: UpstreamTarget = {
  providerId: 'o',
  kind: 'openai',
  baseUrl: 'https://api.example.com/v1',
  apiKey: 'sk-abc',
  upstreamModel: 'gpt-4o-mini',
  headers: { 'x-extra': '1' },
};

describe('openai request building', () => {
  const build = (extra: object, stream: boolean) =>
    openaiCodec.buildRequest(
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra },
      target,
      { stream },
    );

  it('posts to /chat/completions with a bearer token and the target headers', () => {
    const request = build({}, false);
    assert.equal(request.url, 'https://api.example.com/v1/chat/completions');
    assert.equal(request.headers.authorization, 'Bearer sk-abc');
    assert.equal(request.headers['x-extra'], '1');
  });

  it('replaces the model and removes gateway-only fields', () => {
    const body = JSON.parse(
      build(
        {
          tags: ['a'],
          enable_debug: true,
          gateway_tool_ids: ['x'],
          gateway_pending_id: 'p',
          compression_model: 'codex',
          temperature: 0.5,
        },
        false,
      ).body,
    );
    assert.equal(body.model, 'gpt-4o-mini');
    assert.equal(body.temperature, 0.5);
    for (const field of ['tags', 'enable_debug', 'gateway_tool_ids', 'gateway_pending_id', 'compression_model'])
      assert.equal(body[field], undefined, field);
  });

  it('always asks for usage when streaming', () => {
    const body = JSON.parse(build({ stream_options: { include_usage: false } }, true).body);
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
  });

  it('drops stream fields for a non-streaming call', () => {
    const body = JSON.parse(build({ stream: true, stream_options: { include_usage: true } }, false).body);
    assert.equal(body.stream, undefined);
    assert.equal(body.stream_options, undefined);
  });

  it('strips cache_control hints from messages and parts', () => {
    const body = JSON.parse(
      build(
        {
          messages: [
            {
              role: 'user',
              cache_control: { type: 'ephemeral' },
              content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }],
            },
          ],
        },
        false,
      ).body,
    );
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ type: 'text', text: 'x' }] }]);
  });

  it("sends max_tokens as max_completion_tokens to OpenAI's own API, which refuses the old name on reasoning models", () => {
    const openai = { ...target, baseUrl: 'https://api.openai.com/v1' };
    const request = (extra: object) =>
      JSON.parse(
        openaiCodec.buildRequest(
          { model: 'openai/gpt-5', messages: [{ role: 'user', content: 'hi' }], ...extra },
          openai,
          {
            stream: false,
          },
        ).body,
      );
    assert.deepEqual(
      Object.keys(request({ temperature: 1, max_tokens: 50, top_p: 1 })),
      ['model', 'messages', 'temperature', 'max_completion_tokens', 'top_p'],
      'in the place the client put it',
    );
    assert.equal(request({ max_tokens: 50 }).max_completion_tokens, 50);
    assert.deepEqual(request({ max_tokens: 50, max_completion_tokens: null }).max_completion_tokens, 50);
    const both = request({ max_tokens: 50, max_completion_tokens: 40 });
    assert.equal(both.max_tokens, 50, 'both named by the client: both kept');
    assert.equal(both.max_completion_tokens, 40);
    // Another vendor's OpenAI-compatible server keeps the name every such server knows.
    assert.equal(JSON.parse(build({ max_tokens: 50 }, false).body).max_tokens, 50);
  });
});

describe('openai response parsing', () => {
  it('reads content, tool calls, finish reason and detailed usage', () => {
    const result = openaiCodec.parseResponse({
      id: 'chatcmpl-1',
      model: 'gpt-4o-mini-2024',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 50,
        completion_tokens: 10,
        prompt_tokens_details: { cached_tokens: 32 },
        completion_tokens_details: { reasoning_tokens: 4 },
      },
    });
    assert.equal(result.message.content, null);
    assert.equal(result.message.tool_calls?.[0]?.function.name, 'f');
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, {
      inputTokens: 50,
      cachedInputTokens: 32,
      cacheCreationInputTokens: 0,
      outputTokens: 10,
      reasoningTokens: 4,
    });
    assert.equal(result.upstreamModel, 'gpt-4o-mini-2024');
  });

  it('rejects a body without choices as malformed', () => {
    assert.throws(
      () => openaiCodec.parseResponse({ object: 'list' }),
      (err) => err instanceof UpstreamError && err.details.kind === 'malformed',
    );
  });
});

describe('openai stream parsing', () => {
  it('emits meta once, deltas, finish and usage, and ignores [DONE]', () => {
    const parser = openaiCodec.createStreamParser();
    const chunk = (extra: object) => ({ data: JSON.stringify({ id: 'c1', model: 'm', ...extra }) });
    const out = [
      ...parser.push(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })),
      ...parser.push(chunk({ choices: [{ index: 0, delta: { content: 'Hi' } }] })),
      ...parser.push(
        chunk({
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'f', arguments: '' } }] },
            },
          ],
        }),
      ),
      ...parser.push(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })),
      ...parser.push(chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })),
      ...parser.push({ data: '[DONE]' }),
      ...parser.end(),
    ];
    assert.deepEqual(out, [
      { type: 'meta', upstreamId: 'c1', upstreamModel: 'm' },
      { type: 'delta', content: 'Hi' },
      { type: 'delta', toolCalls: [{ index: 0, id: 't', type: 'function', function: { name: 'f', arguments: '' } }] },
      { type: 'finish', finishReason: 'tool_calls' },
      {
        type: 'usage',
        usage: {
          inputTokens: 3,
          cachedInputTokens: 0,
          cacheCreationInputTokens: 0,
          outputTokens: 2,
          reasoningTokens: 0,
        },
      },
    ]);
  });

  it('accepts a stream without [DONE] once a finish_reason arrived', () => {
    const parser = openaiCodec.createStreamParser();
    parser.push({ data: JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) });
    assert.deepEqual(parser.end(), []);
  });

  it('throws on an error object inside the stream', () => {
    const parser = openaiCodec.createStreamParser();
    assert.throws(
      () => parser.push({ data: '{"error":{"message":"boom"}}' }),
      (err) => err instanceof UpstreamError && /boom/.test(err.message),
    );
  });
});

describe('openai error parsing', () => {
  it('uses the upstream error message, the retry-after header and the request id', () => {
    const err = openaiCodec.parseError(429, '{"error":{"message":"Rate limit reached"}}', {
      'retry-after': '3',
      'x-request-id': 'req_1',
    });
    assert.equal(err.details.status, 429);
    assert.equal(err.details.retryable, true);
    assert.equal(err.details.retryAfterMs, 3000);
    assert.equal(err.details.upstreamRequestId, 'req_1');
    assert.match(err.message, /Rate limit reached/);
  });

  it('treats 408 and 409 as retryable and 422 as final', () => {
    assert.equal(openaiCodec.parseError(408, '', {}).details.retryable, true);
    assert.equal(openaiCodec.parseError(409, '', {}).details.retryable, true);
    assert.equal(openaiCodec.parseError(422, '', {}).details.retryable, false);
  });
});
