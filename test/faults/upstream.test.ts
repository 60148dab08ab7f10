import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import {
  assertGatewayError,
  closedPort,
  header,
  rawClient,
  sseData,
  usageRowOf,
  type RawClient,
} from '../support/chat-kit.js';
import { assertNoLeakedReservation, assertSpendMatchesRows, timed } from '../support/fault-kit.js';

/**
 * Upstream faults with a key that has a monthly ceiling (issue 9, item 3). test/gateway/
 * chat-errors.test.ts and chat-streaming.test.ts already check the envelopes of several of
 * these faults on an uncapped key; here every case also checks that the reservation taken at
 * admission is settled (key_spend.reserved back to 0, no budget_reservations row), that the
 * answer comes within the configured timeouts, on all three wire formats where they differ, and
 * that the gateway still answers afterwards.
 */
const TIMEOUTS = { connect_ms: 500, first_byte_ms: 1000, between_chunks_ms: 300 };
const ATTEMPTS = 2;
const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };
const user = (content = 'fault') => [{ role: 'user', content }];

/** Answers 200 with a body that is not what the provider promised (JSON that does not parse, SSE of garbage). */
async function startBrokenUpstream(): Promise<{
  server: Server;
  baseUrl: string;
  mode: { value: 'bad-json' | 'bad-sse' | 'html-502' | 'empty-200' };
}> {
  const mode = { value: 'bad-json' as 'bad-json' | 'bad-sse' | 'html-502' | 'empty-200' };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (mode.value === 'bad-json')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"id": "chatcmpl-x", "choices": [ {"message": ');
      else if (mode.value === 'empty-200') res.writeHead(200, { 'content-type': 'application/json' }).end('');
      else if (mode.value === 'html-502')
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
      else res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {not json at all\n\ndata: [1, 2\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, mode };
}

for (const store of storeKinds()) {
  describe(`upstream faults with a capped key (${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    let broken: Awaited<ReturnType<typeof startBrokenUpstream>>;
    let raw: RawClient;
    let capped: { id: string; key: string };

    before(async () => {
      mock = await startMockOpenAI();
      broken = await startBrokenUpstream();
      const dead = await closedPort();
      h = await startHarness({
        store,
        config: {
          providers: [
            { id: 'mock', kind: 'openai', base_url: mock.baseUrl },
            { id: 'dead', kind: 'openai', base_url: `http://127.0.0.1:${dead}/v1` },
            { id: 'broken', kind: 'openai', base_url: broken.baseUrl },
          ],
          models: [
            { id: 'test/mock', providers: [{ provider: 'mock', model: 'm' }], pricing: PRICING },
            { id: 'test/dead', providers: [{ provider: 'dead', model: 'd' }], pricing: PRICING },
            { id: 'test/broken', providers: [{ provider: 'broken', model: 'b' }], pricing: PRICING },
          ],
          retry: { max_attempts: ATTEMPTS, base_delay_ms: 10, max_delay_ms: 50 },
          timeouts: TIMEOUTS,
        },
      });
      capped = await h.createKey(await h.organization(), { name: 'capped', max_usage: 100 });
      raw = rawClient(h.running.urls.gateway, h.ca);
    });
    after(async () => {
      await raw.close();
      await h.stop();
      await mock.close();
      await new Promise<void>((resolve) => broken.server.close(() => resolve()));
    });
    beforeEach(() => mock.reset());

    const chat = (model: string, extra: Record<string, unknown> = {}) =>
      timed(() =>
        h.gateway('POST', '/v1/chat/completions', {
          token: capped.key,
          body: { model, messages: user(), max_tokens: 16, ...extra },
        }),
      );

    async function settledAndAlive(): Promise<void> {
      await assertNoLeakedReservation(h.running.store, capped.id);
      await assertSpendMatchesRows(h.running.store, capped.id);
      const alive = await h.gateway('GET', '/v1/models', { token: capped.key });
      assert.equal(alive.status, 200);
    }

    it('connection refused (JSON and stream): 502 provider_error, upstream_status null, after the retries, at once', async () => {
      for (const stream of [false, true]) {
        const { value, ms } = await chat('test/dead', { stream });
        const error = assertGatewayError(value, {
          status: 502,
          code: 'provider_error',
          type: 'provider_error',
          param: null,
        });
        assert.equal(error.upstream_status, null);
        assert.equal(error.provider, 'dead');
        assert.match(error.message, /unreachable/i);
        assert.ok(ms < 1_000, `answered in ${ms.toFixed(0)} ms`);
        const row = await usageRowOf(h.running.store, header(value, 'x-request-id')!);
        assert.equal(Number(row.status_code), 502);
        assert.equal(Number(row.cost_micro_usd), 0, 'a failed upstream call is not charged');
      }
      await settledAndAlive();
    });

    it('reset mid-stream: chat ends with an error event, /v1/messages with event: error, /v1/responses with response.failed', async () => {
      mock.setScenario({ closeMidStream: true, textChunks: ['one ', 'two ', 'three ', 'four ', 'five ', 'six'] });
      const chatStream = await h.gateway('POST', '/v1/chat/completions', {
        token: capped.key,
        body: { model: 'test/mock', messages: user(), stream: true },
      });
      assert.equal(chatStream.status, 200);
      const last = sseData(chatStream.text).at(-1);
      assert.deepEqual(Object.keys(last), ['error']);
      assert.equal(last.error.code, 'provider_error');
      assert.equal(last.error.type, 'provider_error');
      assert.equal(last.error.param, null);

      const messages = await h.gateway('POST', '/v1/messages', {
        headers: { 'x-api-key': capped.key },
        body: { model: 'test/mock', max_tokens: 16, messages: user(), stream: true },
      });
      assert.equal(messages.status, 200);
      const tail = messages.text.trim().split('\n\n').at(-1)!;
      assert.match(tail, /^event: error\ndata: /);
      const anthropicError = JSON.parse(tail.split('\n')[1]!.slice(6));
      assert.equal(anthropicError.type, 'error');
      assert.equal(anthropicError.error.type, 'api_error');
      assert.equal(anthropicError.error.code, 'provider_error');

      const responses = await h.gateway('POST', '/v1/responses', {
        token: capped.key,
        body: { model: 'test/mock', input: 'fault', stream: true },
      });
      assert.equal(responses.status, 200);
      const failed = responses.text.trim().split('\n\n').at(-1)!;
      assert.match(failed, /^event: response\.failed\n/);
      assert.equal(JSON.parse(failed.split('\n')[1]!.slice(6)).response.error.code, 'provider_error');
      for (const r of [chatStream, messages, responses])
        assert.equal(Number((await usageRowOf(h.running.store, header(r, 'x-request-id')!)).status_code), 502);
      await settledAndAlive();
    });

    it('hang before headers (stream): 504 provider_timeout as JSON within first_byte_ms × attempts', async () => {
      mock.setScenario({ hangBeforeHeadersMs: Infinity });
      const { value, ms } = await chat('test/mock', { stream: true });
      assertGatewayError(value, { status: 504, code: 'provider_timeout', type: 'provider_error', param: null });
      const bound = TIMEOUTS.first_byte_ms * ATTEMPTS + 500;
      assert.ok(ms < bound, `answered in ${ms.toFixed(0)} ms (bound ${bound})`);
      await Promise.all(mock.requests.map((r) => r.closed));
      await settledAndAlive();
    });

    it('hang between chunks: the stream ends with a provider_timeout event about between_chunks_ms after the last chunk; the tokens seen are metered', async () => {
      mock.setScenario({
        textChunks: ['alpha ', 'beta ', 'gamma ', 'delta'],
        hangAfterEvent: 2,
        hangBetweenChunksMs: Infinity,
      });
      const { value, ms } = await chat('test/mock', { stream: true });
      assert.equal(value.status, 200);
      const events = sseData(value.text);
      const last = events.at(-1);
      assert.equal(last.error.code, 'provider_timeout');
      assert.equal(last.error.type, 'provider_error');
      assert.ok(
        events.some((e) => e.choices?.[0]?.delta?.content === 'alpha '),
        'chunks before the hang were delivered',
      );
      assert.ok(ms < TIMEOUTS.between_chunks_ms + 700, `ended after ${ms.toFixed(0)} ms`);
      await mock.requests[0]!.closed;
      const row = await usageRowOf(h.running.store, header(value, 'x-request-id')!);
      assert.equal(Number(row.status_code), 504);
      assert.ok(Number(row.output_tokens) > 0, 'the streamed tokens are metered');
      await settledAndAlive();
    });

    it('malformed answers: JSON that does not parse, an empty 200, an HTML 502, SSE of garbage → 502 provider_error', async () => {
      for (const mode of ['bad-json', 'empty-200', 'html-502'] as const) {
        broken.mode.value = mode;
        const { value } = await chat('test/broken');
        const error = assertGatewayError(value, {
          status: 502,
          code: 'provider_error',
          type: 'provider_error',
          param: null,
        });
        // A non-JSON error body is quoted, sanitised and bounded (providers/shared/sanitize.ts), never parsed.
        assert.ok(String(error.message).length <= 600, `${mode}: message bounded`);
        assert.equal(error.provider, 'broken', mode);
      }
      broken.mode.value = 'bad-sse';
      const { value } = await chat('test/broken', { stream: true });
      // The first event already fails: either a JSON 502 (before any byte was sent) or an error event.
      if (value.status === 200) assert.equal(sseData(value.text).at(-1).error.code, 'provider_error');
      else assertGatewayError(value, { status: 502, code: 'provider_error' });
      await settledAndAlive();
    });

    it('429 with retry-after on a stream is passed on with its retry-after once retries are spent', async () => {
      mock.setScenario({ status: 429, headers: { 'retry-after': '0' } });
      const { value, ms } = await chat('test/mock', { stream: true });
      const error = assertGatewayError(value, { status: 429, code: 'provider_error', type: 'provider_error' });
      assert.equal(error.upstream_status, 429);
      assert.ok(header(value, 'retry-after'), 'retry-after passed on');
      assert.equal(mock.requests.length, ATTEMPTS);
      assert.ok(ms < 1_500, `answered in ${ms.toFixed(0)} ms`);
      await settledAndAlive();
    });

    it('a 5xx storm: 30 concurrent requests (JSON and stream) all get 502 after bounded retries, nothing leaks, the next request succeeds', async () => {
      mock.setScenario({ status: 503, errorMessage: 'storm' });
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => chat('test/mock', { stream: i % 2 === 0 })),
      );
      for (const { value } of results) {
        const error = assertGatewayError(value, { status: 502, code: 'provider_error', type: 'provider_error' });
        assert.equal(error.upstream_status, 503);
      }
      assert.equal(mock.requests.length, 30 * ATTEMPTS, 'every request retried exactly max_attempts times');
      assert.ok(Math.max(...results.map((r) => r.ms)) < 3_000);
      mock.setScenario({});
      assert.equal((await chat('test/mock')).value.status, 200);
      await settledAndAlive();
    });

    it('a client that leaves mid-stream on a capped key: metered as 499, reservation settled', async () => {
      mock.setScenario({ textChunks: Array.from({ length: 100 }, (_, i) => `w${i} `), chunkDelayMs: 10 });
      const controller = new AbortController();
      const response = await raw.post(
        '/v1/chat/completions',
        { model: 'test/mock', messages: user(), stream: true },
        { token: capped.key, signal: controller.signal, headers: { 'x-request-id': `leave-${Date.now()}` } },
      );
      const requestId = String(response.headers['x-request-id']);
      try {
        let seen = 0;
        for await (const chunk of response.body) {
          seen += chunk.length;
          if (seen > 400) controller.abort();
        }
      } catch {
        // aborted
      }
      const row = await usageRowOf(h.running.store, requestId);
      assert.equal(Number(row.status_code), 499);
      await settledAndAlive();
    });
  });
}
