import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, request } from 'undici';
import { startShipped, type ShippedService } from '../shipped/shipped-service.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';

const MODEL = 'openai/drain-model';
/** The upstream's pause mid-stream: the stream is open all that time, while the probes must see 503. */
const STALL_MS = 4_000;

/**
 * Issue #31, item 1: from the SIGTERM on, `/readyz` answers 503 (a load balancer stops sending)
 * while a stream already under way finishes, on the built artifact run as an operator runs it.
 */
describe('SIGTERM: /readyz answers 503 while in-flight streams finish', () => {
  let mock: MockUpstream;
  let service: ShippedService;
  let key: string;

  before(async () => {
    mock = await startMockOpenAI();
    service = await startShipped({
      config: {
        providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
        models: [
          {
            id: MODEL,
            providers: [{ provider: 'mock-openai', model: 'gpt-upstream' }],
            pricing: { input_per_mtok: 1, output_per_mtok: 1 },
          },
        ],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { MOCK_OPENAI_KEY: 'sk-mock' },
    });
    key = (await service.createKey()).key;
  });
  after(async () => {
    await service.stop();
    await mock.close();
  });

  it('probes on new connections get 503 before the open stream ends, the stream arrives whole, the process exits 0', async (t) => {
    // Closed after the answer: no idle pooled connection for the server to close under a later probe.
    const ready = await service.call('gateway', 'GET', '/readyz', { headers: { connection: 'close' } });
    assert.equal(ready.status, 200, ready.text);

    mock.setScenario({ textChunks: ['first ', 'second ', 'third'], hangAfterEvent: 1, hangBetweenChunksMs: STALL_MS });
    const streamClient = new Agent({ connect: { ca: service.ca } });
    const response = await request(`${service.serve.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: streamClient,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    assert.equal(response.statusCode, 200);
    let received = '';
    let streamEnded = false;
    const whole = (async () => {
      for await (const chunk of response.body) received += String(chunk);
      streamEnded = true;
    })();
    await waitFor(() => received.includes('first'), { what: 'the first streamed piece' });

    // One SIGTERM, as an orchestrator sends: a second one would end the process at once.
    const exited = once(service.serve.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const signalled = performance.now();
    service.serve.child.kill('SIGTERM');
    const notReady = await waitFor(
      async () => {
        // Each probe on a new connection, as a load balancer's health checker opens them.
        const probe = await service.call('gateway', 'GET', '/readyz', { headers: { connection: 'close' } });
        return probe.status === 503 ? probe : undefined;
      },
      { intervalMs: 5, what: '/readyz to answer 503 after SIGTERM' },
    );
    const delayMs = performance.now() - signalled;
    assert.equal(streamEnded, false, 'the 503 came while the stream was still open');
    assert.deepEqual(notReady.json, { ready: false, draining: true, checks: {} });
    t.diagnostic(`/readyz answered 503 ${delayMs.toFixed(0)} ms after SIGTERM (issue #31 asks for 100 ms)`);
    for (const listener of ['console', 'collector'] as const)
      assert.equal((await service.call(listener, 'GET', '/readyz')).status, 503, listener);
    assert.equal((await service.call('gateway', 'GET', '/healthz')).status, 200, 'still alive while draining');

    await whole;
    assert.match(received, /first[\s\S]*second[\s\S]*third/);
    assert.ok(received.trimEnd().endsWith('data: [DONE]'), received.slice(-200));
    await streamClient.close();

    const [code, signal] = await exited;
    assert.equal(code, 0, `signal ${signal}; stderr: ${service.serve.stderr()}`);
    assert.deepEqual(service.errorLines(), []);
  });
});
