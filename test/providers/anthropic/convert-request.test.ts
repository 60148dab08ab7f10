import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../../src/canonical/chat-request.js';
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  buildAnthropicBody,
  buildAnthropicRequest,
} from '../../../src/providers/anthropic/convert-request.js';
import type { UpstreamTarget } from '../../../src/providers/types.js';

const target: UpstreamTarget = {
  providerId: 'a',
  kind: 'anthropic',
  baseUrl: 'https://api.anthropic.com/v1',
  apiKey: 'sk-ant-1',
  upstreamModel: 'claude-x',
};
const body = (request: Partial<ChatRequest>) =>
  buildAnthropicBody(
    { model: 'anthropic/claude', messages: [{ role: 'user', content: 'hi' }], ...request },
    target,
    false,
  );
const tool = {
  type: 'function' as const,
  function: {
    name: 'lookup',
    description: 'Look up',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  },
};

describe('anthropic request conversion', () => {
  it('posts to /messages with x-api-key and anthropic-version headers', () => {
    const request = buildAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, target, {
      stream: true,
    });
    assert.equal(request.url, 'https://api.anthropic.com/v1/messages');
    assert.equal(request.headers['x-api-key'], 'sk-ant-1');
    assert.equal(request.headers['anthropic-version'], '2023-06-01');
    assert.equal(request.headers.authorization, undefined);
    assert.equal(JSON.parse(request.body).stream, true);
  });

  it('moves system and developer messages to the top-level system prompt', () => {
    const b = body({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use French.' },
        { role: 'user', content: 'hi' },
      ],
    });
    assert.equal(b.system, 'Be brief.\n\nUse French.');
    assert.deepEqual(b.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('keeps system cache_control by sending system as blocks', () => {
    const b = body({
      messages: [
        { role: 'system', content: 'Long context', cache_control: { type: 'ephemeral' } },
        { role: 'user', content: 'hi' },
      ],
    });
    assert.deepEqual(b.system, [{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }]);
  });

  it('merges consecutive messages of the same role', () => {
    const b = body({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'ok' },
      ],
    });
    assert.equal(b.messages.length, 2);
    assert.deepEqual(b.messages[0]?.content, [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
  });

  it('converts image parts: data URLs to base64 sources, http URLs to url sources', () => {
    const b = body({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    assert.deepEqual(b.messages[0]?.content.slice(1), [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('turns assistant tool calls into tool_use blocks with parsed input', () => {
    const b = body({
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
            { id: 't2', type: 'function', function: { name: 'lookup', arguments: 'not json' } },
          ],
        },
      ],
    });
    assert.deepEqual(b.messages[1]?.content, [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 'x' } },
      { type: 'tool_use', id: 't2', name: 'lookup', input: {} },
    ]);
  });

  it('merges consecutive tool results into one user message', () => {
    const b = body({
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'lookup', arguments: '{}' } },
            { id: 't2', type: 'function', function: { name: 'lookup', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'r1' },
        { role: 'tool', tool_call_id: 't2', content: [{ type: 'text', text: 'r2' }] },
        { role: 'user', content: 'thanks' },
      ],
    });
    assert.equal(b.messages.length, 3);
    assert.deepEqual(b.messages[2], {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'r1' },
        { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'r2' }] },
        { type: 'text', text: 'thanks' },
      ],
    });
  });

  it('converts tools to name, description and input_schema', () => {
    assert.deepEqual(body({ tools: [tool] }).tools, [
      { name: 'lookup', description: 'Look up', input_schema: tool.function.parameters },
    ]);
  });

  it('maps tool_choice auto, none, required and a named function', () => {
    assert.deepEqual(body({ tools: [tool], tool_choice: 'auto' }).tool_choice, { type: 'auto' });
    assert.deepEqual(body({ tools: [tool], tool_choice: 'none' }).tool_choice, { type: 'none' });
    assert.deepEqual(body({ tools: [tool], tool_choice: { type: 'required' } }).tool_choice, { type: 'any' });
    assert.deepEqual(
      body({ tools: [tool], tool_choice: { type: 'function', function: { name: 'lookup' } } }).tool_choice,
      { type: 'tool', name: 'lookup' },
    );
  });

  it('maps parallel_tool_calls false to disable_parallel_tool_use', () => {
    assert.deepEqual(body({ tools: [tool], parallel_tool_calls: false }).tool_choice, {
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    assert.deepEqual(body({ tools: [tool], tool_choice: 'required', parallel_tool_calls: false }).tool_choice, {
      type: 'any',
      disable_parallel_tool_use: true,
    });
  });

  it('omits tool_choice when there are no tools', () => {
    assert.equal(body({ tool_choice: 'auto' }).tool_choice, undefined);
  });

  it('defaults max_tokens and passes max_tokens, stop, temperature and top_p', () => {
    assert.equal(body({}).max_tokens, ANTHROPIC_DEFAULT_MAX_TOKENS);
    const b = body({ max_tokens: 100, stop: 'END', temperature: 0.3, top_p: 0.9 });
    assert.equal(b.max_tokens, 100);
    assert.deepEqual(b.stop_sequences, ['END']);
    assert.equal(b.temperature, 0.3);
    assert.equal(b.top_p, 0.9);
    assert.deepEqual(body({ stop: ['a', 'b'] }).stop_sequences, ['a', 'b']);
  });

  it('clamps temperature to Anthropic’s 0–1 range', () => {
    assert.equal(body({ temperature: 1.7 }).temperature, 1);
  });

  it('carries cache_control from messages and parts to blocks', () => {
    const b = body({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: 'c' },
        { role: 'user', content: 'd', cache_control: { type: 'ephemeral' } },
      ],
    });
    assert.deepEqual(b.messages[0]?.content, [
      { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'b' },
    ]);
    assert.deepEqual(b.messages[2]?.content, [{ type: 'text', text: 'd', cache_control: { type: 'ephemeral' } }]);
  });

  it('never sends gateway-only fields', () => {
    const b = body({
      tags: ['x'],
      enable_debug: true,
      gateway_tool_ids: ['t'],
      compression_model: 'claude',
    }) as unknown as Record<string, unknown>;
    for (const field of ['tags', 'enable_debug', 'gateway_tool_ids', 'compression_model'])
      assert.equal(b[field], undefined);
  });
});
