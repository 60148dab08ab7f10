import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertAnthropicResponse } from '../../../src/providers/anthropic/convert-response.js';
import { createAnthropicStreamParser } from '../../../src/providers/anthropic/parse-stream.js';
import { mapAnthropicStopReason } from '../../../src/providers/anthropic/map-stop-reason.js';
import { UpstreamError } from '../../../src/providers/types.js';
import { type ProviderStreamEvent } from '../../../src/canonical/completion.js';

describe('anthropic response conversion', () => {
  it('concatenates text blocks, ignores thinking and turns tool_use into tool calls', () => {
    const result = convertAnthropicResponse({
      id: 'msg_1',
      model: 'claude-x',
      stop_reason: 'tool_use',
      content: [
        { type: 'thinking', thinking: 'secret', signature: 's' },
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'world' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
      ],
      usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    });
    assert.equal(result.message.content, 'Hello world');
    assert.deepEqual(result.message.tool_calls, [
      { id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.equal(result.upstreamId, 'msg_1');
  });

  it('counts cache reads and writes as input tokens', () => {
    const result = convertAnthropicResponse({
      content: [],
      usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    });
    assert.deepEqual(result.usage, {
      inputTokens: 130,
      cachedInputTokens: 100,
      cacheCreationInputTokens: 20,
      outputTokens: 4,
      reasoningTokens: 0,
    });
  });

  it('maps stop reasons', () => {
    assert.equal(mapAnthropicStopReason('end_turn'), 'stop');
    assert.equal(mapAnthropicStopReason('stop_sequence'), 'stop');
    assert.equal(mapAnthropicStopReason('max_tokens'), 'length');
    assert.equal(mapAnthropicStopReason('tool_use'), 'tool_calls');
    assert.equal(mapAnthropicStopReason('refusal'), 'content_filter');
  });

  it('rejects a body without content as malformed', () => {
    assert.throws(
      () => convertAnthropicResponse({ type: 'message' }),
      (err) => err instanceof UpstreamError && err.details.kind === 'malformed',
    );
  });
});

describe('anthropic stream parsing', () => {
  const feed = (events: Array<[string, object]>): ProviderStreamEvent[] => {
    const parser = createAnthropicStreamParser();
    const out = events.flatMap(([event, data]) =>
      parser.push({ event, data: JSON.stringify({ type: event, ...data }) }),
    );
    return [...out, ...parser.end()];
  };

  it('translates text, tool_use and message_delta events', () => {
    const out = feed([
      [
        'message_start',
        {
          message: {
            id: 'msg_1',
            model: 'claude-x',
            usage: { input_tokens: 5, cache_read_input_tokens: 3, output_tokens: 1 },
          },
        },
      ],
      ['content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }],
      ['content_block_start', { index: 1, content_block: { type: 'text', text: '' } }],
      ['ping', {}],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hi' } }],
      ['content_block_stop', { index: 1 }],
      [
        'content_block_start',
        { index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} } },
      ],
      ['content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"q":' } }],
      ['content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"x"}' } }],
      ['message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }],
      ['message_stop', {}],
    ]);
    assert.deepEqual(out, [
      { type: 'meta', upstreamId: 'msg_1', upstreamModel: 'claude-x' },
      { type: 'delta', content: 'Hi' },
      {
        type: 'delta',
        toolCalls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '' } }],
      },
      { type: 'delta', toolCalls: [{ index: 0, function: { arguments: '{"q":' } }] },
      { type: 'delta', toolCalls: [{ index: 0, function: { arguments: '"x"}' } }] },
      { type: 'finish', finishReason: 'tool_calls' },
      {
        type: 'usage',
        usage: {
          inputTokens: 8,
          cachedInputTokens: 3,
          cacheCreationInputTokens: 0,
          outputTokens: 9,
          reasoningTokens: 0,
        },
      },
    ]);
  });

  it('keeps message_start input counts when message_delta reports input_tokens as null', () => {
    const out = feed([
      ['message_start', { message: { usage: { input_tokens: 7, cache_read_input_tokens: 2, output_tokens: 1 } } }],
      [
        'message_delta',
        {
          delta: { stop_reason: 'end_turn' },
          usage: { input_tokens: null, cache_read_input_tokens: null, output_tokens: 4 },
        },
      ],
      ['message_stop', {}],
    ]);
    const usage = out.find((e) => e.type === 'usage');
    assert.deepEqual(usage, {
      type: 'usage',
      usage: { inputTokens: 9, cachedInputTokens: 2, cacheCreationInputTokens: 0, outputTokens: 4, reasoningTokens: 0 },
    });
  });

  it('throws an UpstreamError on an error event', () => {
    const parser = createAnthropicStreamParser();
    assert.throws(
      () =>
        parser.push({
          event: 'error',
          data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        }),
      (err) => err instanceof UpstreamError && err.details.retryable && /Overloaded/.test(err.message),
    );
  });

  it('throws when the stream ends before message_stop', () => {
    const parser = createAnthropicStreamParser();
    parser.push({ event: 'message_start', data: '{"type":"message_start","message":{}}' });
    assert.throws(
      () => parser.end(),
      (err) => err instanceof UpstreamError && err.details.kind === 'malformed',
    );
  });
});
