import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closeHttpAgents } from '../../src/providers/http/index.js';
import { backoffMs, decide } from '../../src/providers/retry-policy.js';
import { callWithFallback, RoutingError, streamWithFallback, type RouteOptions } from '../../src/providers/router.js';
import {
  UpstreamError,
  type ProviderAdapter,
  type ProviderKind,
  type UpstreamTarget,
} from '../../src/providers/types.js';
import { type ProviderCompletion } from '../../src/canonical/completion.js';
import { startMockAnthropic, startMockOpenAI } from '../support/mock-upstreams/index.js';
import { chat, collect, TIMEOUTS } from './helpers.js';

const ok: ProviderCompletion = {
  message: { role: 'assistant', content: 'ok' },
  finishReason: 'stop',
  usage: { inputTokens: 1, cachedInputTokens: 0, cacheCreationInputTokens: 0, outputTokens: 1, reasoningTokens: 0 },
};
const httpError = (status: number, retryAfterMs?: number) =>
  new UpstreamError(`upstream ${status}`, {
    status,
    retryable: status === 429 || status >= 500,
    kind: 'http',
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });

/** An adapter that plays a script per provider id: each call takes the next outcome. */
function scripted(outcomes: Record<string, Array<UpstreamError | 'ok'>>): {
  adapter: ProviderAdapter;
  calls: string[];
} {
  const calls: string[] = [];
  const next = (target: UpstreamTarget): void => {
    calls.push(target.providerId);
    const outcome = outcomes[target.providerId]?.shift() ?? 'ok';
    if (outcome !== 'ok') throw outcome;
  };
  const adapter: ProviderAdapter = {
    kind: 'local',
    complete: async (_req, target) => (next(target), ok),
    stream: async (_req, target) => {
      next(target);
      return (async function* () {
        yield { type: 'delta' as const, content: 'ok' };
        throw httpError(500);
      })();
    },
  };
  return { adapter, calls };
}

const target = (providerId: string, kind: ProviderKind = 'local', baseUrl = 'http://unused'): UpstreamTarget => ({
  providerId,
  kind,
  baseUrl,
  apiKey: 'k',
  upstreamModel: `${providerId}-model`,
});
const options = (
  adapter: ProviderAdapter | undefined,
  retry: RouteOptions['retry'] = { baseDelayMs: 1, maxDelayMs: 50 },
): RouteOptions => ({
  signal: new AbortController().signal,
  timeouts: TIMEOUTS,
  retry,
  ...(adapter ? { resolveAdapter: () => adapter } : {}),
});

describe('router', () => {
  it('retries a retryable error on the same target, then falls back to the next', async () => {
    const { adapter, calls } = scripted({ a: [httpError(503), httpError(503)], b: ['ok'] });
    const routed = await callWithFallback(chat('hi'), [target('a'), target('b')], options(adapter));
    assert.deepEqual(calls, ['a', 'a', 'b']);
    assert.equal(routed.target.providerId, 'b');
    assert.deepEqual(
      routed.attempts.map((a) => [a.providerId, a.status]),
      [
        ['a', 503],
        ['a', 503],
        ['b', 200],
      ],
    );
    assert.equal(routed.attempts[0]?.error, 'upstream 503');
    assert.equal(routed.attempts[0]?.upstreamModel, 'a-model');
  });

  it('succeeds on a retry without falling back', async () => {
    const { adapter, calls } = scripted({ a: [httpError(429), 'ok'] });
    const routed = await callWithFallback(chat('hi'), [target('a'), target('b')], options(adapter));
    assert.deepEqual(calls, ['a', 'a']);
    assert.equal(routed.target.providerId, 'a');
  });

  it('waits for retry-after before retrying', async () => {
    const { adapter } = scripted({ a: [httpError(429, 120), 'ok'] });
    const started = performance.now();
    await callWithFallback(chat('hi'), [target('a')], options(adapter, { baseDelayMs: 1, maxDelayMs: 1000 }));
    assert.ok(performance.now() - started >= 115, 'honoured retry-after');
  });

  it('moves to the next target at once when retry-after exceeds maxDelayMs', async () => {
    const { adapter, calls } = scripted({ a: [httpError(429, 60_000)], b: ['ok'] });
    const started = performance.now();
    const routed = await callWithFallback(
      chat('hi'),
      [target('a'), target('b')],
      options(adapter, { maxDelayMs: 100 }),
    );
    assert.deepEqual(calls, ['a', 'b']);
    assert.equal(routed.target.providerId, 'b');
    assert.ok(performance.now() - started < 100);
  });

  it('fails at once on a 400 without retry or fallback', async () => {
    const { adapter, calls } = scripted({ a: [httpError(400)] });
    await assert.rejects(callWithFallback(chat('hi'), [target('a'), target('b')], options(adapter)), (err) => {
      assert.ok(err instanceof RoutingError);
      assert.equal(err.details.status, 400);
      assert.equal(err.attempts.length, 1);
      return true;
    });
    assert.deepEqual(calls, ['a']);
  });

  it('falls back without retrying on 401, 403 and 404', async () => {
    for (const status of [401, 403, 404]) {
      const { adapter, calls } = scripted({ a: [httpError(status)] });
      await callWithFallback(chat('hi'), [target('a'), target('b')], options(adapter));
      assert.deepEqual(calls, ['a', 'b'], `status ${status}`);
    }
  });

  it('throws a RoutingError with every attempt when all targets fail', async () => {
    const { adapter } = scripted({ a: [httpError(500), httpError(502)], b: [httpError(503), httpError(504)] });
    await assert.rejects(callWithFallback(chat('hi'), [target('a'), target('b')], options(adapter)), (err) => {
      assert.ok(err instanceof RoutingError && err instanceof UpstreamError);
      assert.deepEqual(
        err.attempts.map((a) => a.status),
        [500, 502, 503, 504],
      );
      assert.equal(err.details.status, 504);
      return true;
    });
  });

  it('stops retrying when the caller aborts during backoff', async () => {
    const { adapter, calls } = scripted({ a: [httpError(503, 500), 'ok'] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await assert.rejects(
      callWithFallback(chat('hi'), [target('a'), target('b')], {
        ...options(adapter, { maxDelayMs: 1000 }),
        signal: controller.signal,
      }),
      (err) => err instanceof UpstreamError && err.details.kind === 'aborted',
    );
    assert.deepEqual(calls, ['a']);
  });

  it('does not fall back once a stream has started', async () => {
    const { adapter, calls } = scripted({ a: ['ok'] });
    const routed = await streamWithFallback(chat('hi'), [target('a'), target('b')], options(adapter));
    await assert.rejects(collect(routed.result), (err) => err instanceof UpstreamError && err.details.status === 500);
    assert.deepEqual(calls, ['a']);
  });

  it('falls back for streams while the upstream has not answered yet', async () => {
    const { adapter, calls } = scripted({ a: [httpError(500), httpError(500)] });
    const routed = await streamWithFallback(chat('hi'), [target('a'), target('b')], options(adapter));
    assert.equal(routed.target.providerId, 'b');
    assert.deepEqual(calls, ['a', 'a', 'b']);
  });

  it('uses jittered exponential backoff capped by maxDelayMs', () => {
    assert.equal(
      backoffMs(1, 100, 1000, () => 0),
      50,
    );
    assert.equal(
      backoffMs(3, 100, 1000, () => 1),
      400,
    );
    assert.equal(
      backoffMs(10, 100, 1000, () => 1),
      1000,
    );
    assert.equal(decide(httpError(422), 1, 2), 'fail');
    assert.equal(decide(new UpstreamError('x', { status: null, retryable: false, kind: 'malformed' }), 1, 2), 'next');
  });
});

describe('router over real HTTP', () => {
  after(() => closeHttpAgents());

  it('retries a 503 from OpenAI, then falls back to Anthropic', async () => {
    const openai = await startMockOpenAI();
    const anthropic = await startMockAnthropic();
    try {
      openai.setScenario({ status: 503, headers: { 'retry-after-ms': '10' } });
      anthropic.setScenario({ text: 'from anthropic' });
      const routed = await callWithFallback(
        chat('hi'),
        [{ ...target('oa', 'openai', openai.baseUrl) }, { ...target('an', 'anthropic', anthropic.baseUrl) }],
        options(undefined),
      );
      assert.equal(routed.result.message.content, 'from anthropic');
      assert.equal(openai.requests.length, 2);
      assert.deepEqual(
        routed.attempts.map((a) => [a.providerId, a.status]),
        [
          ['oa', 503],
          ['oa', 503],
          ['an', 200],
        ],
      );
    } finally {
      await openai.close();
      await anthropic.close();
    }
  });
});
