import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { waitFor } from '../support/chat-kit.js';
import { parsePrometheusText, sampleValue, type Family } from '../support/prometheus-text.js';
import { summedGauge } from '../../src/metrics/summed-gauge.js';

const MODEL = 'openai/capacity-model';
/** Well past the free allowance of a request (64 KiB), so the unended event draws on the process's budget. */
const PENDING_BYTES = 300 * 1024;

/** An upstream that opens a stream, sends most of one event without its end, and holds it until told. */
async function startHalfEventUpstream(): Promise<{ baseUrl: string; open: ServerResponse[]; server: Server }> {
  const open: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`);
    res.write('x'.repeat(PENDING_BYTES));
    open.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, open, server };
}

describe('capacity metrics in /metrics', () => {
  let h: Harness;
  let upstream: Awaited<ReturnType<typeof startHalfEventUpstream>>;

  before(async () => {
    upstream = await startHalfEventUpstream();
    h = await startHarness({
      config: {
        providers: [{ id: 'half', kind: 'openai', base_url: upstream.baseUrl, api_key_env: 'HALF_KEY' }],
        models: [
          {
            id: MODEL,
            providers: [{ provider: 'half', model: 'm' }],
            pricing: { input_per_mtok: 1, output_per_mtok: 1 },
          },
        ],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { HALF_KEY: 'sk-half' },
    });
  });
  after(async () => {
    await h.stop();
    for (const res of upstream.open) res.destroy();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
  });

  const scrape = async (): Promise<Map<string, Family>> => {
    const result = await h.gateway('GET', '/metrics');
    assert.equal(result.status, 200);
    return parsePrometheusText(result.text);
  };

  it('exports heap, event-loop delay, open connections, queued handshakes and buffered upstream bytes as gauges', async () => {
    const families = await scrape();
    for (const name of [
      'nodejs_heap_size_used_bytes',
      'nodejs_heap_size_total_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
      'gateway_connections_open',
      'gateway_tls_handshakes_queued',
      'gateway_upstream_buffered_bytes',
    ])
      assert.equal(families.get(name)?.type, 'gauge', name);
    assert.ok(sampleValue(families, 'nodejs_heap_size_used_bytes', {}) > 0);
    assert.ok(sampleValue(families, 'gateway_connections_open', { surface: 'gateway' }) >= 1, 'the scrape’s own');
    assert.equal(sampleValue(families, 'gateway_tls_handshakes_queued', {}), 0);
  });

  it('an unended upstream event shows in the buffered bytes while held, and leaves when its request ends', async () => {
    const key = await h.createKey(await h.organization());
    const answer = h.gateway('POST', '/v1/chat/completions', {
      token: key.key,
      body: { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    });
    const held = await waitFor(
      async () => {
        const bytes = sampleValue(await scrape(), 'gateway_upstream_buffered_bytes', {});
        return bytes > 0 ? bytes : undefined;
      },
      { what: 'the held event in gateway_upstream_buffered_bytes' },
    );
    // What arrived so far, less the free allowance; the part in flight may not all have arrived yet.
    assert.ok(held <= PENDING_BYTES, `${held} bytes`);
    await waitFor(() => upstream.open.length > 0 || undefined, { what: 'the upstream request' });
    upstream.open[0]!.destroy();
    await answer;
    await waitFor(async () => sampleValue(await scrape(), 'gateway_upstream_buffered_bytes', {}) === 0, {
      what: 'the budget released',
    });
  });
});

describe('summedGauge', () => {
  it('sums its readers, counts a reader tracked twice once, and drops a reader when untracked', async () => {
    const registry = new Registry();
    const track = summedGauge('test_summed', 'help', registry);
    const value = async () => (await registry.getSingleMetric('test_summed')!.get()).values[0]!.value;
    const shared = () => 5;
    const first = track(shared);
    const second = track(shared);
    const own = track(() => 2);
    assert.equal(await value(), 7);
    first();
    first(); // a second call does not take the other tracking of `shared` away
    assert.equal(await value(), 7);
    second();
    own();
    assert.equal(await value(), 0);
  });
});
