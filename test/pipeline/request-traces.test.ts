import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAgentUpstream, type MockUpstream } from '../support/mock-upstreams/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { PRICING, header, usageRowOf } from '../support/chat-kit.js';

const MODEL = 'openai/gpt-4o-mini';

describe('request traces from the call core', () => {
  let h: Harness;
  let mock: MockUpstream;
  let receiver: OtlpReceiver;
  let key: { id: string; key: string };

  before(async () => {
    receiver = await startOtlpReceiver();
    mock = await startMockAgentUpstream();
    // The OpenAI provider is down; the model falls back to its Anthropic provider.
    mock.setScenario((request) =>
      request.path.endsWith('/chat/completions') ? { status: 503, errorMessage: 'overloaded' } : { text: 'Hi.' },
    );
    h = await startHarness({
      config: {
        providers: [
          { id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'mock-anthropic', kind: 'anthropic', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' },
        ],
        models: [
          {
            id: MODEL,
            providers: [
              { provider: 'mock-openai', model: 'gpt-4o-mini' },
              { provider: 'mock-anthropic', model: 'claude-haiku-4-5' },
            ],
            pricing: PRICING,
          },
        ],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { MOCK_KEY: 'sk-mock', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gw-core-test' },
    });
    key = await h.createKey(await h.organization());
  });
  after(async () => {
    await h.stop();
    await mock.close();
    await receiver.close();
  });

  it('one trace per request: the request span, and a child span per upstream attempt', async () => {
    const result = await h.gateway('POST', '/v1/chat/completions', {
      token: key.key,
      body: { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(result.status, 200, result.text);
    assert.equal(header(result, 'x-gateway-provider'), 'mock-anthropic');
    assert.equal(header(result, 'x-gateway-fallback-used'), '1');
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);

    const spans = await receiver.waitForSpans(3, 10_000);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    assert.equal(root.resource['service.name'], 'gw-core-test');
    assert.equal(root.name, `chat ${MODEL}`);
    assert.equal(root.attributes['gen_ai.request.model'], MODEL);
    assert.equal(root.attributes['gen_ai.provider.name'], 'anthropic');
    assert.equal(root.attributes['gen_ai.usage.input_tokens'], Number(row.input_tokens));
    assert.equal(root.attributes['gen_ai.usage.output_tokens'], Number(row.output_tokens));
    assert.equal(root.attributes['url.path'], '/v1/chat/completions');
    assert.equal(root.attributes['gateway.fallback_used'], true);

    const children = spans
      .filter((s) => s.parentSpanId === root.spanId)
      .sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    assert.equal(children.length, 2);
    assert.ok(children.every((c) => c.traceId === root.traceId));
    assert.equal(children[0]!.attributes['http.response.status_code'], 503);
    assert.equal(children[0]!.status?.code, 2); // ERROR
    assert.equal(children[1]!.attributes['gateway.fallback'], true);
    assert.equal(children[1]!.attributes['gen_ai.provider.name'], 'anthropic');
    assert.ok(
      BigInt(children[0]!.startTimeUnixNano) >= BigInt(root.startTimeUnixNano),
      'attempts start inside the request',
    );
  });
});
