import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { collectorClient } from '../support/collector-client.js';
import { closedPort, sseData, streamedText } from '../support/chat-kit.js';
import { startMockOpenAI, DEFAULT_TEXT, type MockUpstream } from '../support/mock-upstreams/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { httpsClient } from '../cli/cli-process.js';
import { startShipped, type ShippedService } from './shipped-service.js';

/**
 * The built artifact started with every optional integration on, each loaded the way only the
 * bundle loads it: OTLP traces (to the in-process receiver), the collector's budgets in Redis
 * (GATEWAY_TEST_REDIS_URL), PostgreSQL (GATEWAY_TEST_DATABASE_URL), a YAML config file, the
 * tokenizers preloaded, /metrics on its own listener with a token. Redis and PostgreSQL are left
 * out, and their checks skipped, when their variable is unset.
 */
const REDIS_URL = process.env.GATEWAY_TEST_REDIS_URL;
const DATABASE_URL = process.env.GATEWAY_TEST_DATABASE_URL;
const MODEL = 'openai/gpt-4o-traced';
const SHOP = 'traced.localhost';
const METRICS_TOKEN = 'shipped-metrics-token';

describe('the built artifact with every optional integration on', () => {
  let receiver: OtlpReceiver;
  let mock: MockUpstream;
  let service: ShippedService;
  let key: string;
  let metricsPort = 0;
  const redisPrefix = `shipped-${randomBytes(4).toString('hex')}:`;

  before(async () => {
    receiver = await startOtlpReceiver();
    mock = await startMockOpenAI();
    metricsPort = await closedPort();
    service = await startShipped({
      store: DATABASE_URL ? 'postgres' : 'sqlite',
      config: {
        yaml: [
          'providers:',
          `  - {id: mock-openai, kind: openai, base_url: "${mock.baseUrl}", api_key_env: MOCK_PROVIDER_KEY}`,
          'models:',
          `  - id: ${MODEL}`,
          '    providers: [{provider: mock-openai, model: gpt-4o}]',
          '    pricing: {input_per_mtok: 2.5, output_per_mtok: 10}',
        ].join('\n'),
      },
      env: {
        MOCK_PROVIDER_KEY: 'sk-mock',
        GATEWAY_ENV: 'development',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_SERVICE_NAME: 'gateway-shipped',
        GATEWAY_PRELOAD_TOKENIZERS: 'true',
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN,
        ...(REDIS_URL ? { GATEWAY_REDIS_URL: REDIS_URL, GATEWAY_REDIS_KEY_PREFIX: redisPrefix } : {}),
      },
    });
    key = (await service.createKey()).key;
  });
  after(async () => {
    const stopped = await service?.stop();
    await mock?.close();
    await receiver?.close();
    if (REDIS_URL) {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    assert.deepEqual(stopped, { code: 0, signal: null }, 'SIGTERM ends the process cleanly');
  });

  it('exports a trace per request to the OTLP endpoint: the request span and its upstream attempt', async () => {
    const json = await service.call('gateway', 'POST', '/v1/chat/completions', {
      token: key,
      body: { model: MODEL, messages: [{ role: 'user', content: 'Hello' }] },
    });
    assert.equal(json.status, 200, json.text);
    const stream = await service.call('gateway', 'POST', '/v1/chat/completions', {
      token: key,
      body: { model: MODEL, messages: [{ role: 'user', content: 'Hello' }], stream: true },
    });
    assert.equal(streamedText(sseData(stream.text)), DEFAULT_TEXT);

    const spans = await receiver.waitForSpans(4, 15_000);
    const roots = spans.filter((s) => s.parentSpanId === undefined);
    assert.equal(roots.length, 2, JSON.stringify(spans.map((s) => s.name)));
    for (const root of roots) {
      assert.equal(root.name, `chat ${MODEL}`);
      assert.equal(root.resource['service.name'], 'gateway-shipped');
      assert.equal(root.attributes['gen_ai.request.model'], MODEL);
      const attempts = spans.filter((s) => s.parentSpanId === root.spanId);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]!.traceId, root.traceId);
    }
  });

  it('serves /metrics on METRICS_PORT to a scrape with METRICS_TOKEN, and refuses one without', async () => {
    const metrics = httpsClient(service.ca);
    try {
      const url = `https://127.0.0.1:${metricsPort}/metrics`;
      assert.equal((await metrics.call(url, 'GET')).status, 401);
      const scraped = await metrics.call(url, 'GET', { token: METRICS_TOKEN });
      assert.equal(scraped.status, 200);
      assert.match(scraped.text, /^gateway_http_requests_total\{/m);
      assert.equal((await service.call('gateway', 'GET', '/metrics')).status, 404, 'off the public listeners');
    } finally {
      await metrics.close();
    }
  });

  it(
    'keeps the collector budgets in Redis',
    { skip: REDIS_URL ? false : 'GATEWAY_TEST_REDIS_URL is unset' },
    async () => {
      const project = await service.call('console', 'POST', '/v1/projects', {
        token: service.org.token,
        body: { slug: 'traced', name: 'Traced', domains: [SHOP] },
      });
      assert.equal(project.status, 201, project.text);
      const collector = collectorClient(service.serve.urls.collector, service.ca);
      try {
        const sent = await collector.call('POST', SHOP, {
          body: { data_collection: { events: [{ type: 'track', data: { name: 'signup' } }] } },
        });
        assert.equal(sent.status, 202, sent.text);
      } finally {
        await collector.close();
      }
      const redis = new Redis(REDIS_URL!);
      try {
        const keys = await redis.keys(`${redisPrefix}*`);
        assert.ok(keys.length > 0, `no key under ${redisPrefix} in Redis`);
      } finally {
        redis.disconnect();
      }
    },
  );

  it(
    'stores in the PostgreSQL schema it was given',
    { skip: DATABASE_URL ? false : 'GATEWAY_TEST_DATABASE_URL is unset' },
    async () => {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        const schema = service.env.DATABASE_SCHEMA!;
        const organizations = await client.query(`select slug from "${schema}".organizations`);
        assert.deepEqual(
          organizations.rows.map((row: { slug: string }) => row.slug),
          ['shipped'],
        );
        const keys = await client.query(`select count(*)::int as n from "${schema}".api_keys`);
        assert.equal(keys.rows[0].n, 1);
      } finally {
        await client.end();
      }
    },
  );

  it('logged no server error', () => {
    assert.deepEqual(service.errorLines(), []);
  });
});
