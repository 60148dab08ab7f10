/**
 * One suite every HTTP adapter runs against its mock upstream. A provider is done when this
 * passes; a provider that cannot support a case opts out in `optOut` with the reason.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { UpstreamError, type UpstreamTarget } from '../../src/providers/types.js';
import type { MockUpstream } from '../support/mock-upstreams/index.js';
import { API_KEY, PROVIDERS, type CaseName } from './conformance-providers.js';
import { callOptions, chat, collect, waitFor, within } from './helpers.js';

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof UpstreamError, `expected UpstreamError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

for (const provider of PROVIDERS) {
  describe(`${provider.name} adapter conformance`, () => {
    let mock: MockUpstream;
    const target = (overrides: Partial<UpstreamTarget> = {}): UpstreamTarget => ({
      providerId: `mock-${provider.name}`,
      kind: provider.adapter.kind,
      baseUrl: mock.baseUrl,
      apiKey: API_KEY,
      upstreamModel: provider.model,
      ...overrides,
    });
    const test = (name: CaseName, title: string, fn: () => Promise<void>): void => {
      const reason = provider.optOut?.[name];
      it(title, reason ? { skip: reason } : {}, fn);
    };

    before(async () => {
      mock = await provider.start({ apiKey: API_KEY });
    });
    after(() => mock.close());
    beforeEach(() => mock.reset());

    test('plain', 'returns the reply text, finish reason and usage', async () => {
      mock.setScenario({ text: 'Paris is the capital of France.' });
      const result = await provider.adapter.complete(chat('Capital of France?'), target(), callOptions());
      assert.equal(result.message.content, 'Paris is the capital of France.');
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.usage.inputTokens, 12);
      assert.equal(result.usage.outputTokens, 5);
    });

    test('credentials', 'sends the upstream model and the credential', async () => {
      await provider.adapter.complete(chat('hi'), target(), callOptions());
      const request = mock.lastRequest();
      assert.ok(request);
      assert.ok(
        request.path.includes(provider.model) || request.body?.model === provider.model,
        'upstream model is sent',
      );
      assert.ok(!request.rawBody.includes('test/model'), 'the gateway model id is not sent');
    });

    test('stream', 'streams text deltas, then a finish and usage', async () => {
      mock.setScenario({ textChunks: ['The ', 'quick ', 'brown ', 'fox.'] });
      const result = await collect(await provider.adapter.stream(chat('go'), target(), callOptions()));
      assert.equal(result.text, 'The quick brown fox.');
      assert.ok(result.events.filter((e) => e.type === 'delta').length >= 4, 'text arrives in several deltas');
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.usage?.outputTokens, 5);
    });

    test('usage', 'reports cached, cache-creation and reasoning tokens, also when streaming', async () => {
      mock.setScenario({ usage: provider.usage });
      const plain = await provider.adapter.complete(chat('hi'), target(), callOptions());
      assert.deepEqual(plain.usage, provider.usage);
      const streamed = await collect(await provider.adapter.stream(chat('hi'), target(), callOptions()));
      assert.deepEqual(streamed.usage, provider.usage);
    });

    test('tool-calls-out', 'returns tool calls with their name and JSON arguments', async () => {
      mock.setScenario({
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      });
      const result = await provider.adapter.complete(
        chat('weather?', { tools: [WEATHER_TOOL] }),
        target(),
        callOptions(),
      );
      assert.equal(result.finishReason, 'tool_calls');
      assert.equal(result.message.tool_calls?.length, 2);
      const [first, second] = result.message.tool_calls ?? [];
      assert.equal(first?.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(first?.function.arguments ?? ''), { city: 'Paris' });
      assert.deepEqual(JSON.parse(second?.function.arguments ?? ''), { city: 'Oslo' });
      assert.ok(first?.id && second?.id && first.id !== second.id, 'each call has its own id');
    });

    test('tool-calls-out-stream', 'streams tool calls that assemble into complete calls', async () => {
      mock.setScenario({
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      });
      const result = await collect(
        await provider.adapter.stream(chat('weather?', { tools: [WEATHER_TOOL] }), target(), callOptions()),
      );
      assert.equal(result.finishReason, 'tool_calls');
      assert.equal(result.toolCalls.length, 2);
      assert.equal(result.toolCalls[0]?.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(result.toolCalls[1]?.function.arguments ?? ''), { city: 'Oslo' });
      assert.ok(result.toolCalls.every((call) => call.id !== ''));
    });

    test('tool-calls-in', 'sends earlier tool calls and their results upstream', async () => {
      const request = chat('weather in Paris?', { tools: [WEATHER_TOOL] });
      request.messages.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny and 21C' },
      );
      mock.setScenario({ text: 'It is sunny.' });
      const result = await provider.adapter.complete(request, target(), callOptions());
      assert.equal(result.message.content, 'It is sunny.');
      const sent = mock.lastRequest()?.rawBody ?? '';
      for (const needle of ['get_weather', 'Paris', 'sunny and 21C'])
        assert.ok(sent.includes(needle), `upstream body contains ${needle}`);
    });

    test('http-400', 'maps an upstream 400 to a non-retryable error carrying the upstream message', async () => {
      mock.setScenario({ status: 400, errorMessage: 'messages: field required' });
      const err = await rejection(provider.adapter.complete(chat('hi'), target(), callOptions()));
      assert.equal(err.details.status, 400);
      assert.equal(err.details.retryable, false);
      assert.equal(err.details.kind, 'http');
      assert.match(err.message, /messages: field required/);
    });

    test('http-503', 'maps an upstream 503 with retry-after to a retryable error', async () => {
      mock.setScenario({ status: 503, headers: { 'retry-after': '2' } });
      const err = await rejection(provider.adapter.complete(chat('hi'), target(), callOptions()));
      assert.equal(err.details.status, 503);
      assert.equal(err.details.retryable, true);
      assert.equal(err.details.retryAfterMs, 2000);
      assert.equal(err.details.upstreamRequestId, 'req_mock_error');
    });

    test('http-429', 'maps a 429 with retry-after-ms to a retryable error', async () => {
      mock.setScenario({ status: 429, headers: { 'retry-after-ms': '150', 'retry-after': '1' } });
      const err = await rejection(provider.adapter.complete(chat('hi'), target(), callOptions()));
      assert.equal(err.details.status, 429);
      assert.equal(err.details.retryable, true);
      assert.equal(err.details.retryAfterMs, 150);
    });

    test('bad-credentials', 'reports bad credentials as a non-retryable 401', async () => {
      const err = await rejection(
        provider.adapter.complete(chat('hi'), target({ apiKey: 'sk-wrong-key-999999' }), callOptions()),
      );
      assert.equal(err.details.status, 401);
      assert.equal(err.details.retryable, false);
      assert.ok(!err.message.includes('sk-wrong-key-999999'));
    });

    test('stream-http-error', 'rejects stream() on an error status before anything is yielded', async () => {
      mock.setScenario({ status: 500, errorMessage: 'internal boom' });
      const err = await rejection(provider.adapter.stream(chat('hi'), target(), callOptions()));
      assert.equal(err.details.status, 500);
      assert.equal(err.details.retryable, true);
      assert.match(err.message, /internal boom/);
    });

    test('first-byte-timeout', 'times out when no response headers arrive', async () => {
      mock.setScenario({ hangBeforeHeadersMs: Infinity });
      const started = performance.now();
      const err = await rejection(provider.adapter.stream(chat('hi'), target(), callOptions({ firstByteMs: 200 })));
      assert.equal(err.details.kind, 'timeout');
      assert.equal(err.details.retryable, true);
      assert.equal(err.details.status, null);
      assert.ok(performance.now() - started < 1500, 'gave up soon after the first-byte timeout');
    });

    test('between-chunks-timeout', 'times out when the stream stalls between chunks', async () => {
      mock.setScenario({ hangBetweenChunksMs: Infinity, textChunks: ['a ', 'b ', 'c ', 'd'] });
      const stream = await provider.adapter.stream(chat('hi'), target(), callOptions({ betweenChunksMs: 200 }));
      const err = await rejection(collect(stream));
      assert.equal(err.details.kind, 'timeout');
      assert.equal(err.details.retryable, true);
    });

    test(
      'abort-stream',
      'closes the upstream socket on an abort mid-stream, though the upstream never ends it',
      async () => {
        mock.setScenario({ hangBetweenChunksMs: Infinity, textChunks: ['a ', 'b ', 'c ', 'd'] });
        const controller = new AbortController();
        const stream = await provider.adapter.stream(chat('hi'), target(), callOptions({}, controller.signal));
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next();
        const abortedAt = performance.now();
        controller.abort();
        // Events parsed before the abort may still come out; then the iterator must fail.
        const err = await rejection(
          (async () => {
            for (let i = 0; i < 10; i++) if ((await iterator.next()).done) return;
          })(),
        );
        assert.equal(err.details.kind, 'aborted');
        // The mock never ends this stream, so only the abort can close the socket; the bound is
        // loose so that a loaded CI machine does not turn scheduling delay into a failure.
        const closedAt = await within(mock.lastRequest()!.closed, 5000);
        assert.notEqual(closedAt, 'timeout', 'upstream socket closed');
        assert.ok(
          (closedAt as number) - abortedAt < 2000,
          `socket closed ${Math.round((closedAt as number) - abortedAt)} ms after abort`,
        );
      },
    );

    test(
      'abort-before-headers',
      'closes the upstream socket on an abort before headers, though the upstream never answers',
      async () => {
        mock.setScenario({ hangBeforeHeadersMs: Infinity });
        const controller = new AbortController();
        const call = provider.adapter.complete(chat('hi'), target(), callOptions({}, controller.signal));
        await waitFor(() => mock.requests.length === 1);
        const abortedAt = performance.now();
        controller.abort();
        const err = await rejection(call);
        assert.equal(err.details.kind, 'aborted');
        assert.equal(err.details.retryable, false);
        const closedAt = await within(mock.requests[0]!.closed, 5000);
        assert.notEqual(closedAt, 'timeout');
        assert.ok((closedAt as number) - abortedAt < 2000);
      },
    );

    test('early-return', 'closes the upstream socket when the consumer stops reading early', async () => {
      mock.setScenario({ chunkDelayMs: 50, textChunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f ', 'g'] });
      const stream = await provider.adapter.stream(chat('hi'), target(), callOptions());
      const stoppedAt = performance.now();
      for await (const event of stream) if (event.type === 'delta') break;
      const closedAt = await within(mock.lastRequest()!.closed, 1000);
      assert.notEqual(closedAt, 'timeout');
      assert.ok((closedAt as number) - stoppedAt < 200);
    });

    test('malformed-sse', 'fails mid-stream with kind malformed on an event that is not JSON', async () => {
      mock.setScenario({ malformedSse: true });
      const stream = await provider.adapter.stream(chat('hi'), target(), callOptions());
      const err = await rejection(collect(stream));
      assert.equal(err.details.kind, 'malformed');
    });

    test('close-mid-stream', 'fails (not a silent end) when the upstream closes mid-stream', async () => {
      mock.setScenario({ closeMidStream: true, textChunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'] });
      const stream = await provider.adapter.stream(chat('hi'), target(), callOptions());
      const err = await rejection(collect(stream));
      assert.ok(err.details.kind === 'connect' || err.details.kind === 'malformed', `kind ${err.details.kind}`);
    });

    test('crlf', 'parses CRLF line endings and multi-line data fields', async () => {
      mock.setScenario({ crlf: true, multiLineData: true, textChunks: ['line one\n', 'line two'] });
      const result = await collect(await provider.adapter.stream(chat('hi'), target(), callOptions()));
      assert.equal(result.text, 'line one\nline two');
      assert.equal(result.finishReason, 'stop');
    });

    test('utf8-split', 'keeps multi-byte characters split across TCP writes intact', async () => {
      const pieces = ['héllo ', 'wörld ', '日本語 ', '🎉✓'];
      mock.setScenario({ splitUtf8: true, textChunks: pieces });
      const result = await collect(await provider.adapter.stream(chat('hi'), target(), callOptions()));
      assert.equal(result.text, pieces.join(''));
    });

    test('connect-refused', 'reports a refused connection as a retryable connect error', async () => {
      const closed = await provider.start();
      const baseUrl = closed.baseUrl;
      await closed.close();
      const err = await rejection(provider.adapter.complete(chat('hi'), target({ baseUrl }), callOptions()));
      assert.equal(err.details.kind, 'connect');
      assert.equal(err.details.retryable, true);
      assert.equal(err.details.status, null);
    });

    test('sanitised-errors', 'never echoes the API key and keeps error messages short', async () => {
      mock.setScenario({ status: 400, errorMessage: `Incorrect API key provided: ${API_KEY}. ${'x'.repeat(2000)}` });
      const err = await rejection(provider.adapter.complete(chat('hi'), target(), callOptions()));
      assert.ok(!err.message.includes(API_KEY));
      assert.ok(err.message.length <= 500, `message length ${err.message.length}`);
    });
  });
}

after(async () => {
  const { closeHttpAgents } = await import('../../src/providers/http/index.js');
  await closeHttpAgents();
});
