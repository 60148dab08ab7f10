import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';
import { parsePrometheusText, sampleSum, sampleValue, type Family } from '../support/prometheus-text.js';
import { readSettings, SettingsError } from '../../src/config/settings.js';

const MODEL = 'openai/metrics-model';
const PRICING = { input_per_mtok: 2.5, output_per_mtok: 10 };

function config(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
    models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-upstream' }], pricing: PRICING }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

async function scrape(
  h: Harness,
  surface: 'gateway' | 'console' | 'collector' = 'console',
): Promise<Map<string, Family>> {
  const result = await h[surface]('GET', '/metrics');
  assert.equal(result.status, 200, result.text.slice(0, 200));
  assert.match(String(result.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(result.text);
}

describe('Prometheus /metrics', () => {
  let h: Harness;
  let mock: MockUpstream;
  let org: { id: string; token: string };
  let key: { id: string; key: string };

  before(async () => {
    mock = await startMockOpenAI();
    h = await startHarness({ config: config(mock), env: { MOCK_OPENAI_KEY: 'sk-mock' } });
    org = await h.organization();
    key = await h.createKey(org);
  });
  after(async () => {
    await h.stop();
    await mock.close();
  });

  it('every listener serves the exposition format with the documented families', async () => {
    for (const surface of ['gateway', 'console', 'collector'] as const) {
      const families = await scrape(h, surface);
      const expected: Array<[string, Family['type']]> = [
        ['gateway_http_requests_total', 'counter'],
        ['gateway_http_request_duration_seconds', 'histogram'],
        ['gateway_http_requests_in_flight', 'gauge'],
        ['gateway_upstream_latency_seconds', 'histogram'],
        ['gateway_tokens_total', 'counter'],
        ['gateway_cost_usd_total', 'counter'],
        ['gateway_usage_write_queue_depth', 'gauge'],
        ['process_cpu_user_seconds_total', 'counter'],
      ];
      for (const [name, type] of expected) {
        assert.equal(families.get(name)?.type, type, `${surface}: ${name}`);
        assert.ok(families.get(name)!.help.length > 0, `${name} has help`);
      }
    }
  });

  it('request, token, cost and upstream latency metrics move with gateway requests', async () => {
    const before = await scrape(h);
    mock.setScenario({ usage: { inputTokens: 1000, outputTokens: 400 } });
    for (let i = 0; i < 2; i++) {
      const ok = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] },
      });
      assert.equal(ok.status, 200, ok.text);
    }
    const refused = await h.gateway('POST', '/v1/chat/completions', {
      token: 'gw-wrong',
      body: { model: MODEL, messages: [] },
    });
    assert.equal(refused.status, 401);
    mock.setScenario({ status: 500 });
    const failed = await h.gateway('POST', '/v1/chat/completions', {
      token: key.key,
      body: { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(failed.status, 502);
    const after = await scrape(h);

    const delta = (name: string, labels: Record<string, string>) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    const route = { surface: 'gateway', route: '/v1/chat/completions', method: 'POST' };
    assert.equal(delta('gateway_http_requests_total', { ...route, status: '200' }), 2);
    assert.equal(delta('gateway_http_requests_total', { ...route, status: '401' }), 1);
    assert.equal(delta('gateway_http_requests_total', { ...route, status: '502' }), 1);
    assert.equal(delta('gateway_http_request_duration_seconds_count', route), 4);
    assert.equal(delta('gateway_tokens_total', { model: MODEL, kind: 'input' }), 2000);
    assert.equal(delta('gateway_tokens_total', { model: MODEL, kind: 'output' }), 800);
    // 1000 × $2.50/MTok + 400 × $10/MTok = $0.0065 per request.
    assert.ok(Math.abs(delta('gateway_cost_usd_total', { model: MODEL }) - 0.013) < 1e-9);
    assert.equal(delta('gateway_upstream_latency_seconds_count', { provider: 'mock-openai', outcome: 'ok' }), 2);
    assert.equal(delta('gateway_upstream_latency_seconds_count', { provider: 'mock-openai', outcome: 'error' }), 1);
    assert.ok(delta('gateway_upstream_latency_seconds_sum', { provider: 'mock-openai', outcome: 'ok' }) > 0);
  });

  it('routes are labelled by template, never by the URL that was asked for', async () => {
    await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: org.token });
    await h.gateway('GET', `/no/such/path/${org.id}`);
    const text = (await h.console('GET', '/metrics')).text;
    const families = parsePrometheusText(text);
    assert.ok(
      sampleValue(families, 'gateway_http_requests_total', {
        surface: 'console',
        route: '/v1/organizations/:orgId/api_keys',
        method: 'GET',
        status: '200',
      }) >= 1,
    );
    assert.ok(
      sampleValue(families, 'gateway_http_requests_total', {
        surface: 'gateway',
        route: '(unmatched)',
        status: '404',
      }) >= 1,
    );
    assert.ok(!text.includes(org.id), 'no organization id in any label');
    assert.ok(!text.includes(key.key), 'no key in any label');
  });

  it('the in-flight gauge counts a request while it runs, and the usage queue drains to zero', async () => {
    mock.setScenario({ hangBeforeHeadersMs: 400 });
    const pending = h.gateway('POST', '/v1/chat/completions', {
      token: key.key,
      body: { model: MODEL, messages: [{ role: 'user', content: 'slow' }] },
    });
    await waitFor(() => mock.requests.some((r) => r.body?.messages?.[0]?.content === 'slow'), {
      what: 'the slow upstream request',
    });
    const during = await scrape(h);
    assert.ok(sampleValue(during, 'gateway_http_requests_in_flight', { surface: 'gateway' }) >= 1);
    assert.equal((await pending).status, 200);
    await waitFor(
      async () => {
        const now = await scrape(h);
        return (
          sampleValue(now, 'gateway_http_requests_in_flight', { surface: 'gateway' }) === 0 &&
          sampleSum(now, 'gateway_usage_write_queue_depth') === 0
        );
      },
      { what: 'no request in flight and an empty usage queue' },
    );
  });
});

describe('metrics settings', () => {
  it('METRICS_PORT moves /metrics to its own HTTPS listener, and METRICS_TOKEN protects it', async () => {
    const h = await startHarness({ env: { METRICS_PORT: '0', METRICS_TOKEN: 'scrape-secret' } });
    const dispatcher = new Agent({ connect: { ca: h.ca } });
    try {
      const url = h.running.urls.metrics;
      assert.ok(url?.startsWith('https://'), `metrics listener url ${url}`);
      for (const surface of ['gateway', 'console', 'collector'] as const) {
        assert.equal((await h[surface]('GET', '/metrics')).status, 404, `${surface} no longer serves /metrics`);
      }
      const anonymous = await request(`${url}/metrics`, { dispatcher });
      assert.equal(anonymous.statusCode, 401);
      await anonymous.body.text();
      const scraped = await request(`${url}/metrics`, {
        dispatcher,
        headers: { authorization: 'Bearer scrape-secret' },
      });
      assert.equal(scraped.statusCode, 200);
      const families = parsePrometheusText(await scraped.body.text());
      assert.ok(families.has('gateway_http_requests_total'));
      const other = await request(`${url}/v1/models`, { dispatcher });
      assert.equal(other.statusCode, 404, 'the metrics listener serves nothing else');
      await other.body.text();
    } finally {
      await dispatcher.close();
      await h.stop();
    }
  });

  it('METRICS_PUBLIC=false turns /metrics off on the public listeners', async () => {
    const h = await startHarness({ env: { METRICS_PUBLIC: 'false' } });
    try {
      assert.equal((await h.gateway('GET', '/metrics')).status, 404);
      assert.equal(h.running.urls.metrics, undefined);
    } finally {
      await h.stop();
    }
  });

  it('settings are validated', () => {
    assert.throws(() => readSettings({ METRICS_PUBLIC: 'maybe' }), SettingsError);
    assert.throws(() => readSettings({ METRICS_PORT: 'abc' }), SettingsError);
    assert.deepEqual(readSettings({}).metrics, { public: true, port: undefined, host: '127.0.0.1', token: undefined });
    assert.equal(readSettings({ METRICS_PORT: '9464' }).metrics.public, false);
    assert.equal(readSettings({ METRICS_PORT: '9464', METRICS_PUBLIC: 'true' }).metrics.public, true);
  });
});
