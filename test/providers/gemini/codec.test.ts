import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../../src/canonical/chat-request.js';
import { geminiCodec } from '../../../src/providers/gemini/codec.js';
import { buildGeminiBody } from '../../../src/providers/gemini/convert-request.js';
import { toGeminiSchema } from '../../../src/providers/gemini/convert-schema.js';
import type { UpstreamTarget } from '../../../src/providers/types.js';

const target: UpstreamTarget = {
  providerId: 'g',
  kind: 'gemini',
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  apiKey: 'AIzaTestKey123456789',
  upstreamModel: 'gemini-2.0-flash',
};
const body = (request: Partial<ChatRequest>) =>
  buildGeminiBody({ model: 'google/gemini', messages: [{ role: 'user', content: 'hi' }], ...request });
const tool = {
  type: 'function' as const,
  function: {
    name: 'lookup',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false, $schema: 'x' },
  },
};

describe('gemini request conversion', () => {
  it('uses generateContent and streamGenerateContent?alt=sse with x-goog-api-key', () => {
    const plain = geminiCodec.buildRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, target, {
      stream: false,
    });
    const stream = geminiCodec.buildRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, target, {
      stream: true,
    });
    assert.equal(plain.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent');
    assert.equal(
      stream.url,
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
    );
    assert.equal(plain.headers['x-goog-api-key'], 'AIzaTestKey123456789');
    assert.ok(!plain.url.includes('key='), 'the key never goes into the URL');
  });

  it('puts system messages in systemInstruction and maps roles to user/model', () => {
    const b = body({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    });
    assert.deepEqual(b.systemInstruction, { parts: [{ text: 'Be brief.' }] });
    assert.deepEqual(b.contents, [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'hello' }] },
    ]);
  });

  it('sends tool calls as functionCall and tool results as functionResponse named after the call', () => {
    const b = body({
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } },
            { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"hits":3}' },
        { role: 'tool', tool_call_id: 'c2', content: 'sunny' },
      ],
    });
    assert.deepEqual(b.contents[1], {
      role: 'model',
      parts: [{ functionCall: { name: 'lookup', args: { q: 'a' } } }, { functionCall: { name: 'weather', args: {} } }],
    });
    assert.deepEqual(b.contents[2], {
      role: 'user',
      parts: [
        { functionResponse: { name: 'lookup', response: { hits: 3 } } },
        { functionResponse: { name: 'weather', response: { result: 'sunny' } } },
      ],
    });
  });

  it('converts images: data URLs inline, http URLs as fileData', () => {
    const b = body({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/webp;base64,AAAA' } },
            { type: 'image_url', image_url: { url: 'https://x.test/a.png' } },
          ],
        },
      ],
    });
    assert.deepEqual(b.contents[0]?.parts, [
      { inlineData: { mimeType: 'image/webp', data: 'AAAA' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://x.test/a.png' } },
    ]);
  });

  it('declares tools with JSON-schema keys Gemini rejects stripped', () => {
    assert.deepEqual(body({ tools: [tool] }).tools, [
      {
        functionDeclarations: [
          { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
        ],
      },
    ]);
  });

  it('keeps property names that look like schema keywords and converts nullable types', () => {
    assert.deepEqual(
      toGeminiSchema({
        type: 'object',
        properties: {
          default: { type: ['string', 'null'], const: 'x' },
          items: { type: 'array', items: { type: 'integer', additionalProperties: 1 } },
        },
      }),
      {
        type: 'object',
        properties: {
          default: { type: 'string', nullable: true, enum: ['x'] },
          items: { type: 'array', items: { type: 'integer' } },
        },
      },
    );
  });

  it('maps tool_choice to functionCallingConfig modes', () => {
    assert.deepEqual(body({ tools: [tool], tool_choice: 'none' }).toolConfig, {
      functionCallingConfig: { mode: 'NONE' },
    });
    assert.deepEqual(body({ tools: [tool], tool_choice: 'auto' }).toolConfig, {
      functionCallingConfig: { mode: 'AUTO' },
    });
    assert.deepEqual(body({ tools: [tool], tool_choice: 'required' }).toolConfig, {
      functionCallingConfig: { mode: 'ANY' },
    });
    assert.deepEqual(
      body({ tools: [tool], tool_choice: { type: 'function', function: { name: 'lookup' } } }).toolConfig,
      {
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] },
      },
    );
  });

  it('puts sampling options in generationConfig', () => {
    assert.deepEqual(body({ max_tokens: 50, temperature: 0.2, top_p: 0.8, stop: ['X'] }).generationConfig, {
      maxOutputTokens: 50,
      temperature: 0.2,
      topP: 0.8,
      stopSequences: ['X'],
    });
  });
});

describe('gemini response parsing', () => {
  it('joins text, skips thoughts, and turns function calls into tool calls with generated ids', () => {
    const result = geminiCodec.parseResponse({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'plan', thought: true },
              { text: 'A' },
              { text: 'B' },
              { functionCall: { name: 'lookup', args: { q: 1 } } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: {
        promptTokenCount: 40,
        candidatesTokenCount: 6,
        thoughtsTokenCount: 4,
        cachedContentTokenCount: 16,
      },
    });
    assert.equal(result.message.content, 'AB');
    assert.match(result.message.tool_calls?.[0]?.id ?? '', /^call_[0-9a-f]{24}$/);
    assert.equal(result.message.tool_calls?.[0]?.function.arguments, '{"q":1}');
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, {
      inputTokens: 40,
      cachedInputTokens: 16,
      cacheCreationInputTokens: 0,
      outputTokens: 10,
      reasoningTokens: 4,
    });
  });

  it('maps finish reasons', () => {
    const finish = (finishReason: string) =>
      geminiCodec.parseResponse({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] }).finishReason;
    assert.equal(finish('STOP'), 'stop');
    assert.equal(finish('MAX_TOKENS'), 'length');
    for (const reason of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT'])
      assert.equal(finish(reason), 'content_filter');
  });

  it('reports a blocked prompt as content_filter', () => {
    assert.equal(
      geminiCodec.parseResponse({ promptFeedback: { blockReason: 'SAFETY' } }).finishReason,
      'content_filter',
    );
  });

  it('reports an invalid API key (400 API_KEY_INVALID) as 401', () => {
    const err = geminiCodec.parseError(
      400,
      '{"error":{"code":400,"message":"API key not valid","details":[{"reason":"API_KEY_INVALID"}]}}',
      {},
    );
    assert.equal(err.details.status, 401);
  });
});

describe('gemini stream parsing', () => {
  it('emits text deltas, whole function calls, finish and the last usage', () => {
    const parser = geminiCodec.createStreamParser();
    const out = [
      ...parser.push({
        data: JSON.stringify({
          candidates: [{ content: { parts: [{ text: 'Hi' }] } }],
          responseId: 'r1',
          modelVersion: 'g',
        }),
      }),
      ...parser.push({
        data: JSON.stringify({
          candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 3 },
        }),
      }),
      ...parser.end(),
    ];
    assert.deepEqual(out[0], { type: 'meta', upstreamId: 'r1', upstreamModel: 'g' });
    assert.deepEqual(out[1], { type: 'delta', content: 'Hi' });
    assert.equal(out[2]?.type === 'delta' && out[2].toolCalls?.[0]?.function?.name, 'f');
    assert.deepEqual(out[3], { type: 'finish', finishReason: 'tool_calls' });
    assert.equal(out[4]?.type === 'usage' && out[4].usage.outputTokens, 3);
  });
});
