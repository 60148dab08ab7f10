import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createServer } from 'node:net';
import pino from 'pino';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';
import { Readiness } from '../../src/server/readiness.js';

const LISTENERS = ['gateway', 'console', 'collector'] as const;
const MODEL = 'openai/health-model';
const DEBUG = 20;
const PRICING = { input_per_mtok: 1, output_per_mtok: 1 };

interface LogLine {
  level: number;
  log?: string;
  route?: string;
  status?: number;
}

function capturingLogger(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

/** A port nothing listens on: Redis there refuses every connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const store of storeKinds()) {
  describe(`health probes on every listener (${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    const captured = capturingLogger();

    before(async () => {
      mock = await startMockOpenAI();
      h = await startHarness({
        store,
        logger: captured.logger,
        config: {
          providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
          models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-upstream' }], pricing: PRICING }],
          retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
        },
        env: {
          MOCK_OPENAI_KEY: 'sk-mock',
          GATEWAY_MAX_CONCURRENCY: '1',
          GATEWAY_ACCESS_LOG: 'all',
          GATEWAY_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
        },
      });
    });
    after(async () => {
      await h.stop();
      await mock.close();
    });

    it('/healthz answers 200 without credentials on every listener', async () => {
      for (const listener of LISTENERS) {
        const live = await h[listener]('GET', '/healthz');
        assert.equal(live.status, 200, `${listener}: ${live.text}`);
        assert.deepEqual(live.json, { status: 'ok' });
      }
    });

    it('/readyz is ready with the store checked where the listener needs only the store', async () => {
      for (const listener of ['gateway', 'console'] as const) {
        const ready = await h[listener]('GET', '/readyz');
        assert.equal(ready.status, 200, `${listener}: ${ready.text}`);
        assert.deepEqual(ready.json, { ready: true, draining: false, checks: { store: 'ok' } });
      }
    });

    it('an unreachable Redis takes only the collector, the one listener using it, out of rotation', async () => {
      const collector = await h.collector('GET', '/readyz');
      assert.equal(collector.status, 503, collector.text);
      assert.deepEqual(collector.json, { ready: false, draining: false, checks: { store: 'ok', redis: 'failed' } });
      assert.equal((await h.gateway('GET', '/readyz')).status, 200);
    });

    it('probes are access-logged at debug, never at info', async () => {
      await h.gateway('GET', '/healthz');
      await h.collector('GET', '/readyz');
      const probes = await waitFor(
        () => {
          const lines = captured.lines.filter(
            (l) => l.log === 'access' && (l.route === '/healthz' || l.route === '/readyz'),
          );
          return lines.some((l) => l.status === 503) ? lines : undefined;
        },
        { what: 'the access lines of the probes' },
      );
      for (const line of probes) assert.equal(line.level, DEBUG, JSON.stringify(line));
    });

    it('each listener documents both probes in its OpenAPI document', async () => {
      for (const listener of LISTENERS) {
        const doc = await h[listener]('GET', '/openapi.json');
        assert.equal(doc.status, 200);
        assert.ok(doc.json.paths['/healthz']?.get, `${listener}: /healthz`);
        assert.deepEqual(Object.keys(doc.json.paths['/readyz']?.get?.responses ?? {}).sort(), ['200', '503']);
      }
    });
    it('a gateway at its concurrency limit still answers its probes', async () => {
      mock.setScenario({ hangBeforeHeadersMs: Infinity });
      const key = await h.createKey(await h.organization());
      const held = h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: MODEL, messages: [{ role: 'user', content: 'hold' }] },
      });
      await waitFor(() => mock.requests.length > 0 || undefined, { what: 'the held upstream request' });
      const refused = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: MODEL, messages: [{ role: 'user', content: 'one too many' }] },
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.json.error.code, 'overloaded');
      assert.equal((await h.gateway('GET', '/healthz')).status, 200);
      assert.equal((await h.gateway('GET', '/readyz')).status, 200);
      await mock.close(); // the held request fails upstream and frees its slot
      await held;
    });
  });
}

describe('Readiness', () => {
  it('a check that never answers is reported as timed out at the deadline and is not started again meanwhile', async () => {
    let runs = 0;
    const readiness = new Readiness(
      {
        store: () => {
          runs++;
          return new Promise(() => undefined);
        },
      },
      { cacheMs: 0, deadlineMs: 20 },
    );
    const probe = readiness.probe(['store']);
    assert.deepEqual(await probe(), { ready: false, draining: false, checks: { store: 'timeout' } });
    assert.deepEqual((await probe()).checks, { store: 'timeout' });
    assert.equal(runs, 1);
  });

  it('an outcome is reused within the cache period, then checked again', async () => {
    let now = 0;
    let runs = 0;
    let failing = false;
    const readiness = new Readiness(
      {
        store: async () => {
          runs++;
          if (failing) throw new Error('down');
        },
      },
      { cacheMs: 1_000, now: () => now },
    );
    const probe = readiness.probe(['store']);
    assert.equal((await probe()).ready, true);
    failing = true;
    now = 999;
    assert.equal((await probe()).ready, true);
    assert.equal(runs, 1);
    now = 1_000;
    assert.deepEqual(await probe(), { ready: false, draining: false, checks: { store: 'failed' } });
    assert.equal(runs, 2);
  });

  it('draining answers not ready at once, without running the checks', async () => {
    let runs = 0;
    const readiness = new Readiness({ store: async () => runs++ });
    readiness.startDraining();
    assert.deepEqual(await readiness.probe(['store'])(), { ready: false, draining: true, checks: {} });
    assert.equal(runs, 0);
  });

  it('a listener cannot ask for a check nobody registered', () => {
    assert.throws(() => new Readiness({}).probe(['redis']), /no readiness check named redis/);
  });
});
