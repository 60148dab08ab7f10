import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localAdapter } from '../../../src/providers/local/index.js';
import { splitIntoChunks } from '../../../src/providers/local/build-reply.js';
import { countTextTokens } from '../../../src/tokenize/index.js';
import { UpstreamError, type UpstreamTarget } from '../../../src/providers/types.js';
import { callOptions, chat, collect } from '../helpers.js';

const target: UpstreamTarget = {
  providerId: 'local',
  kind: 'local',
  baseUrl: '',
  apiKey: undefined,
  upstreamModel: 'echo',
};
const tool = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } };

describe('local echo adapter', () => {
  it('echoes the last user message with real token counts', async () => {
    const result = await localAdapter.complete(chat('hello there'), target, callOptions());
    assert.equal(result.message.content, 'Echo: hello there');
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.usage.outputTokens, countTextTokens('Echo: hello there', 'o200k_base'));
    assert.ok(result.usage.inputTokens > 0);
  });

  it('is deterministic', async () => {
    const a = await localAdapter.complete(chat('same'), target, callOptions());
    const b = await localAdapter.complete(chat('same'), target, callOptions());
    assert.deepEqual(a, b);
  });

  it('streams the reply in 3 to 8 word chunks, then finish and usage', async () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve';
    const result = await collect(await localAdapter.stream(chat(text), target, callOptions()));
    const deltas = result.events.filter((e) => e.type === 'delta');
    assert.ok(deltas.length >= 3 && deltas.length <= 8, `${deltas.length} chunks`);
    assert.equal(result.text, `Echo: ${text}`);
    assert.equal(result.finishReason, 'stop');
    assert.ok(result.usage && result.usage.outputTokens > 0);
    assert.equal(result.events.at(-1)?.type, 'usage');
  });

  it('truncates to max_tokens with finish length', async () => {
    const result = await localAdapter.complete(
      chat('alpha beta gamma delta epsilon zeta eta theta', { max_tokens: 4 }),
      target,
      callOptions(),
    );
    assert.equal(result.finishReason, 'length');
    assert.ok(countTextTokens(result.message.content ?? '', 'o200k_base') <= 4);
    assert.ok((result.message.content ?? '').startsWith('Echo:'));
  });

  it('calls a tool for "/tool <name> <json-args>" when the tool is offered', async () => {
    const result = await localAdapter.complete(
      chat('/tool lookup {"q":"x"}', { tools: [tool] }),
      target,
      callOptions(),
    );
    assert.equal(result.finishReason, 'tool_calls');
    assert.equal(result.message.content, null);
    assert.equal(result.message.tool_calls?.[0]?.function.name, 'lookup');
    assert.equal(result.message.tool_calls?.[0]?.function.arguments, '{"q":"x"}');
    const streamed = await collect(
      await localAdapter.stream(chat('/tool lookup', { tools: [tool] }), target, callOptions()),
    );
    assert.equal(streamed.toolCalls[0]?.function.arguments, '{}');
    assert.equal(streamed.finishReason, 'tool_calls');
  });

  it('echoes a /tool command when the tool is not offered', async () => {
    const result = await localAdapter.complete(chat('/tool missing {}'), target, callOptions());
    assert.equal(result.message.content, 'Echo: /tool missing {}');
  });

  it('answers tool results with "Tool result: …"', async () => {
    const request = chat('/tool lookup {}', { tools: [tool] });
    request.messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: '42' },
    );
    const result = await localAdapter.complete(request, target, callOptions());
    assert.equal(result.message.content, 'Tool result: 42');
  });

  it('stops streaming when aborted', async () => {
    const controller = new AbortController();
    const stream = await localAdapter.stream(chat('a b c d e f g h i j'), target, callOptions({}, controller.signal));
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await assert.rejects(
      collect({ [Symbol.asyncIterator]: () => iterator }),
      (err) => err instanceof UpstreamError && err.details.kind === 'aborted',
    );
  });

  it('splits short replies into one chunk per word', () => {
    assert.deepEqual(splitIntoChunks('Echo: hi'), ['Echo: ', 'hi']);
  });
});
