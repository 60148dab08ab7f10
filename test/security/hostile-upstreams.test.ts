import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, parseSse, sseData, streamedText } from '../support/chat-kit.js';
import {
  HOSTILE_KINDS,
  hostileRoutes,
  startHostileUpstream,
  type HostileKind,
  type HostileUpstream,
} from '../support/hostile-upstream.js';
import { bufferedUpstreamBytes } from '../../src/providers/index.js';

/**
 * Issue 27, row 3: an upstream that answers 200 and then sends what no provider would (a line
 * without end, one huge line, deltas without end, a gzip bomb, nothing at all, a JSON answer
 * without end) fails its own request with the surface's error, and is closed. The limits are
 * set far below their defaults so that each case reads a few hundred KiB, not gigabytes: what is
 * checked is that the gateway stops reading near the limit (the hostile upstream honours
 * backpressure, so what it wrote is what the gateway let in, plus socket buffers), not how fast.
 * Before the bounds the gateway read every byte the upstream sent, and held them.
 */
const KIB = 1024;
const LIMITS = {
  GATEWAY_UPSTREAM_SSE_LINE_BYTES: String(256 * KIB),
  GATEWAY_UPSTREAM_SSE_EVENT_BYTES: String(512 * KIB),
  GATEWAY_UPSTREAM_JSON_BYTES: String(1024 * KIB),
  GATEWAY_UPSTREAM_KEPT_TEXT_BYTES: String(256 * KIB),
};
/** What a hostile upstream would send if nobody stopped it. */
const HOSTILE_BYTES = 64 * 1024 * KIB;
/** Far above every limit plus loopback socket buffers, far below what the upstream would send. */
const READ_AT_MOST = 16 * 1024 * KIB;
const TIMEOUTS = { connect_ms: 2_000, first_byte_ms: 10_000, between_chunks_ms: 500 };

type Surface = 'chat' | 'messages' | 'responses';

function modelOf(surface: Surface, kind: HostileKind): string {
  return surface === 'messages' ? `anthropic/${kind}` : `openai/${kind}`;
}

function requestOf(surface: Surface, model: string, stream: boolean): { path: string; body: Record<string, unknown> } {
  if (surface === 'messages')
    return {
      path: '/v1/messages',
      body: { model, max_tokens: 100, stream, messages: [{ role: 'user', content: 'hello' }] },
    };
  if (surface === 'responses') return { path: '/v1/responses', body: { model, stream, input: 'hello' } };
  return { path: '/v1/chat/completions', body: { model, stream, messages: [{ role: 'user', content: 'hello' }] } };
}

/** The error a stream ended with, in the surface's own framing; undefined when it ended without one. */
function streamedError(surface: Surface, result: HttpResult): { code?: string; message: string } | undefined {
  const events = parseSse(result.text);
  if (surface === 'messages') {
    const error = events.find((e) => e.event === 'error');
    return error ? JSON.parse(error.data).error : undefined;
  }
  if (surface === 'responses') {
    const failed = events.find((e) => e.event === 'response.failed');
    return failed ? JSON.parse(failed.data).response.error : undefined;
  }
  return sseData(result.text).find((e) => e !== '[DONE]' && e.error)?.error;
}

/** Surfaces and what the client gets: an error event in a 200 stream, or an error answer before any stream began. */
const CASES: Array<{ kind: HostileKind; stream: boolean; expect: RegExp; before?: boolean }> = [
  { kind: 'no-newline', stream: true, expect: /SSE line exceeded/ },
  { kind: 'huge-line', stream: true, expect: /SSE line exceeded/ },
  { kind: 'endless-deltas', stream: true, expect: /text kept for metering exceeded/ },
  { kind: 'gzip-bomb', stream: true, expect: /content-encoding/, before: true },
  { kind: 'stall', stream: true, expect: /no data for 500 ms/ },
  { kind: 'huge-json', stream: false, expect: /answer exceeded/, before: true },
];

describe('hostile upstreams fail their own request and are closed near the limit', () => {
  let h: Harness;
  let key: string;
  let healthy: MockUpstream;
  const upstreams = new Map<HostileKind, HostileUpstream>();

  before(async () => {
    healthy = await startMockOpenAI();
    for (const kind of HOSTILE_KINDS)
      upstreams.set(kind, await startHostileUpstream(kind, { maxBytes: HOSTILE_BYTES, bombBytes: HOSTILE_BYTES }));
    const { providers, models } = hostileRoutes(healthy.baseUrl, upstreams, PRICING);
    h = await startHarness({
      env: { MOCK_KEY: 'sk-mock', ...LIMITS },
      config: { providers, models, timeouts: TIMEOUTS, retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 } },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    await h.stop();
    await Promise.all([healthy.close(), ...[...upstreams.values()].map((u) => u.close())]);
  });

  for (const surface of ['chat', 'messages', 'responses'] as const) {
    for (const { kind, stream, expect, before: refusedBeforeStream } of CASES) {
      it(`${surface}: ${kind} → the surface's error, the upstream closed before ${READ_AT_MOST / 1024 / KIB} MiB`, async () => {
        const upstream = upstreams.get(kind)!;
        const closed = upstream.nextClose();
        const { path, body } = requestOf(surface, modelOf(surface, kind), stream);
        const result = await h.gateway('POST', path, { token: key, body });
        const exchange = await closed;

        let error: { code?: string; type?: string; message: string } | undefined;
        if (refusedBeforeStream) {
          assert.equal(result.status, 502, result.text.slice(0, 300));
          // Anthropic's envelope on /v1/messages, OpenAI's elsewhere: `error.message` in both.
          error = result.json?.error;
          if (surface === 'messages') assert.equal(result.json?.type, 'error');
        } else {
          assert.equal(result.status, 200, result.text.slice(0, 300));
          error = streamedError(surface, result);
        }
        assert.ok(error, `an error in the surface's framing, got: ${result.text.slice(0, 300)}`);
        assert.match(error.message, expect);
        if (kind !== 'gzip-bomb') {
          // The bomb is a few KiB written whole; everything else would have gone on for 64 MiB.
          assert.ok(exchange.closedEarly, 'the gateway closed the upstream');
          assert.ok(
            exchange.bytesWritten < READ_AT_MOST,
            `the gateway let ${exchange.bytesWritten} bytes in before closing the upstream`,
          );
        }
        assert.equal(bufferedUpstreamBytes(), 0, 'whatever the request held is released');
      });
    }
  }

  it('a healthy stream next to them is whole', async () => {
    healthy.setScenario({ textChunks: ['still ', 'here'] });
    const result = await h.gateway('POST', '/v1/chat/completions', {
      token: key,
      body: { model: 'openai/healthy', stream: true, messages: [{ role: 'user', content: 'hello' }] },
    });
    assert.equal(result.status, 200);
    assert.equal(streamedText(sseData(result.text)), 'still here');
  });
});

describe('the buffered-bytes budget is shared by the process: beyond it a stream is refused, not the process', () => {
  let h: Harness;
  let key: string;
  let noNewline: HostileUpstream;
  let hugeJson: HostileUpstream;
  let healthy: MockUpstream;

  before(async () => {
    healthy = await startMockOpenAI();
    noNewline = await startHostileUpstream('no-newline', { maxBytes: HOSTILE_BYTES });
    hugeJson = await startHostileUpstream('huge-json', { maxBytes: HOSTILE_BYTES });
    h = await startHarness({
      env: {
        MOCK_KEY: 'sk-mock',
        // Each stream alone may hold 2 MiB; together they may hold 1 MiB beyond their free 64 KiB.
        GATEWAY_UPSTREAM_SSE_LINE_BYTES: String(2048 * KIB),
        GATEWAY_UPSTREAM_SSE_EVENT_BYTES: String(2048 * KIB),
        GATEWAY_UPSTREAM_JSON_BYTES: String(2048 * KIB),
        GATEWAY_UPSTREAM_BUFFERED_BYTES: String(1024 * KIB),
      },
      config: {
        providers: [
          { id: 'hostile', kind: 'openai', base_url: noNewline.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'hostile-json', kind: 'openai', base_url: hugeJson.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'healthy', kind: 'openai', base_url: healthy.baseUrl, api_key_env: 'MOCK_KEY' },
        ],
        models: [
          { id: 'openai/hostile', providers: [{ provider: 'hostile', model: 'gpt-hostile' }], pricing: PRICING },
          {
            id: 'openai/hostile-json',
            providers: [{ provider: 'hostile-json', model: 'gpt-hostile' }],
            pricing: PRICING,
          },
          { id: 'openai/healthy', providers: [{ provider: 'healthy', model: 'gpt-4o-mini' }], pricing: PRICING },
        ],
        timeouts: TIMEOUTS,
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    await h.stop();
    await Promise.all([healthy.close(), noNewline.close(), hugeJson.close()]);
  });

  it('four streams that never end a line: each fails on its own bound or on the budget, all are closed, nothing stays held', async () => {
    const body = { model: 'openai/hostile', stream: true, messages: [{ role: 'user', content: 'hello' }] };
    const results = await Promise.all(
      Array.from({ length: 4 }, () => h.gateway('POST', '/v1/chat/completions', { token: key, body })),
    );
    const messages = results.map((r) => streamedError('chat', r)?.message ?? `no error: ${r.text.slice(0, 200)}`);
    assert.ok(
      messages.some((m) => /holds its limit of 1048576 bytes of upstream answers/.test(m)),
      `one at least hit the shared budget: ${messages.join(' | ')}`,
    );
    for (const message of messages) assert.match(message, /exceeded|holds its limit/);
    for (const exchange of await noNewline.closedExchanges(4)) {
      assert.ok(exchange.closedEarly, 'each upstream closed');
      assert.ok(exchange.bytesWritten < READ_AT_MOST, `${exchange.bytesWritten} bytes let in`);
    }
    assert.equal(bufferedUpstreamBytes(), 0);

    healthy.setScenario({ textChunks: ['after ', 'the storm'] });
    const after = await h.gateway('POST', '/v1/chat/completions', {
      token: key,
      body: { model: 'openai/healthy', stream: true, messages: [{ role: 'user', content: 'hello' }] },
    });
    assert.equal(streamedText(sseData(after.text)), 'after the storm');
  });

  // The timeout only turns a hang into a failure: before the fix, an answer refused by the budget
  // left its upstream paused and open for good, and this waited for a close that never came.
  it('JSON answers refused by the budget close their upstream too', { timeout: 60_000 }, async () => {
    const body = { model: 'openai/hostile-json', messages: [{ role: 'user', content: 'hello' }] };
    const results = await Promise.all(
      Array.from({ length: 4 }, () => h.gateway('POST', '/v1/chat/completions', { token: key, body })),
    );
    for (const result of results) {
      assert.equal(result.status, 502);
      assert.match(result.json.error.message, /holds its limit of 1048576 bytes/);
      assert.equal(result.headers['retry-after'], '1');
    }
    for (const exchange of await hugeJson.closedExchanges(4)) {
      assert.ok(exchange.closedEarly, 'each upstream closed');
      assert.ok(exchange.bytesWritten < READ_AT_MOST, `${exchange.bytesWritten} bytes let in`);
    }
    assert.equal(bufferedUpstreamBytes(), 0);
  });
});
