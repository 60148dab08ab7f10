import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { parsePrometheusText } from '../support/prometheus-text.js';

/**
 * Collector rate limits with Redis (GATEWAY_REDIS_URL): instances sharing one Redis draw on one
 * budget; when Redis is unreachable, each instance falls back to its own in-memory budget and
 * keeps answering (fail open, docs/decisions.md). Budgets are burst-only (rate 0, one-hour
 * window), so counts are exact. The tests that need a real Redis read GATEWAY_TEST_REDIS_URL
 * and are skipped without it; the one with Redis down needs none.
 */
const REDIS_URL = process.env.GATEWAY_TEST_REDIS_URL;
const needsRedis = REDIS_URL ? {} : { skip: 'GATEWAY_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)' };

const limitsEnv = (redisUrl: string, prefix: string) => ({
  GATEWAY_REDIS_URL: redisUrl,
  GATEWAY_REDIS_KEY_PREFIX: prefix,
  // Generous on a loaded test machine: a timed-out call would count in memory and skew the counts.
  GATEWAY_REDIS_TIMEOUT_MS: '2000',
  GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
  GATEWAY_COLLECTOR_ADDRESS_BURST: '10',
  GATEWAY_COLLECTOR_PROJECT_RATE: '0',
  GATEWAY_COLLECTOR_PROJECT_BURST: '0',
  GATEWAY_COLLECTOR_BURST_WINDOW_S: '3600',
});
const event = { data_collection: { events: [{ type: 'page', data: { title: 'Home' } }] } };

async function project(h: Harness): Promise<string> {
  const { token } = await h.organization();
  const domain = `r-${randomBytes(4).toString('hex')}.example.test`;
  const created = await h.console('POST', '/v1/projects', {
    token,
    body: { slug: `r-${randomBytes(4).toString('hex')}`, name: 'R', domains: [domain] },
  });
  assert.equal(created.status, 201, created.text);
  return domain;
}

async function statuses(h: Harness, domain: string, requests: number): Promise<number[]> {
  const client = collectorClient(h.running.urls.collector, h.ca);
  try {
    const out: number[] = [];
    for (let i = 0; i < requests; i++) out.push((await client.call('POST', domain, { body: event })).status);
    return out;
  } finally {
    await client.close();
  }
}

const count = (list: number[], status: number) => list.filter((s) => s === status).length;

async function sharedGauge(h: Harness): Promise<number | undefined> {
  const families = parsePrometheusText((await h.collector('GET', '/metrics')).text);
  return families.get('gateway_collector_rate_limit_shared')?.samples[0]?.value;
}

/** Until every instance of this process has its Redis connection ready (the gauge covers them all). */
async function redisReady(h: Harness): Promise<void> {
  for (let i = 0; i < 250 && (await sharedGauge(h)) !== 1; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await sharedGauge(h), 1, 'Redis connected');
}

/** A free local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const store of storeKinds()) {
  describe(`collector rate limits with Redis (${store})`, () => {
    it('two instances sharing one Redis share one budget', needsRedis, async () => {
      const prefix = `test:${randomBytes(6).toString('hex')}:`;
      const first = await startHarness({ store, env: limitsEnv(REDIS_URL!, prefix) });
      const second = await startHarness({
        store,
        env: limitsEnv(REDIS_URL!, prefix),
        dataDir: first.dataDir,
        ...(first.schema ? { schema: first.schema } : {}),
      });
      try {
        const domain = await project(first);
        await redisReady(first);
        const a = await statuses(first, domain, 6);
        const b = await statuses(second, domain, 6);
        assert.deepEqual(a, [202, 202, 202, 202, 202, 202]);
        assert.equal(count(b, 202), 4, 'the second instance gets what the first left of the budget');
        assert.equal(count(b, 429), 2);
      } finally {
        await second.stop();
        await first.stop();
        const redis = new Redis(REDIS_URL!);
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    });

    it('Redis unreachable from the start: requests are answered at once and limited per instance (fail open to memory)', async () => {
      const h = await startHarness({ store, env: limitsEnv(`redis://127.0.0.1:${await closedPort()}`, 'down:') });
      try {
        const domain = await project(h);
        const started = performance.now();
        const answers = await statuses(h, domain, 14);
        const elapsedMs = performance.now() - started;
        assert.equal(count(answers, 202), 10);
        assert.equal(count(answers, 429), 4);
        assert.equal(await sharedGauge(h), 0);
        // No request waited for Redis: 14 sequential requests, far under one command timeout each.
        assert.ok(elapsedMs < 14 * 250, `${elapsedMs} ms`);
      } finally {
        await h.stop();
      }
    });

    it('Redis going away mid-flight: budgets move to memory and requests keep being answered', needsRedis, async () => {
      const target = new URL(REDIS_URL!);
      const sockets = new Set<Socket>();
      const proxy: Server = createServer((socket) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        sockets.add(socket).add(upstream);
        socket.pipe(upstream).pipe(socket);
        const close = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', close).on('close', close);
        upstream.on('error', close).on('close', close);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const prefix = `test:${randomBytes(6).toString('hex')}:`;
      const proxyUrl = `redis://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const h = await startHarness({ store, env: limitsEnv(proxyUrl, prefix) });
      const redis = new Redis(REDIS_URL!);
      try {
        const domain = await project(h);
        await redisReady(h);
        assert.deepEqual(await statuses(h, domain, 4), [202, 202, 202, 202]);
        const keys = await redis.keys(`${prefix}*`);
        assert.equal(keys.length, 1, 'the budget is counted in Redis');
        assert.equal(await redis.get(keys[0]!), '4');

        await new Promise<void>((resolve) => {
          proxy.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        });
        // Memory counted nothing while Redis answered: this instance now has a full budget of its own.
        const during = await statuses(h, domain, 12);
        assert.equal(count(during, 202), 10);
        assert.equal(count(during, 429), 2);
        assert.equal(await sharedGauge(h), 0);
        assert.equal(await redis.get(keys[0]!), '4', 'nothing reached Redis meanwhile');
      } finally {
        await h.stop();
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
        proxy.close();
      }
    });
  });
}
