import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTracing, NO_TRACING, type Tracing } from '../../src/telemetry/tracing.js';
import { readTelemetrySettings } from '../../src/config/telemetry-settings.js';
import type { RequestTraceData } from '../../src/telemetry/request-trace.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const silent = { warn: () => {} };

function sample(overrides: Partial<RequestTraceData> = {}): RequestTraceData {
  const startedAt = Date.now() - 500;
  return {
    operation: 'chat',
    endpoint: '/v1/chat/completions',
    requestId: 'req_1',
    requestModel: 'openai/gpt-5',
    providerId: 'anthropic-backup',
    providerKind: 'anthropic',
    responseModel: 'claude-sonnet-4-5',
    responseId: 'msg_1',
    finishReasons: ['stop'],
    stream: true,
    maxTokens: 256,
    startedAt,
    endedAt: startedAt + 400,
    status: 200,
    errorCode: null,
    usage: {
      inputTokens: 1200,
      cachedInputTokens: 1000,
      cacheCreationInputTokens: 100,
      outputTokens: 50,
      reasoningTokens: 0,
    },
    costMicroUsd: 1234,
    compression: { savedTokens: 300, costSavingsMicroUsd: 90 },
    attempts: [
      {
        providerId: 'openai',
        providerKind: 'openai',
        upstreamModel: 'gpt-5',
        status: 503,
        error: 'overloaded',
        startedAt: startedAt + 5,
        durationMs: 20,
      },
      {
        providerId: 'openai',
        providerKind: 'openai',
        upstreamModel: 'gpt-5',
        status: 503,
        error: 'overloaded',
        startedAt: startedAt + 60,
        durationMs: 20,
      },
      {
        providerId: 'anthropic-backup',
        providerKind: 'anthropic',
        upstreamModel: 'claude-sonnet-4-5',
        status: 200,
        startedAt: startedAt + 120,
        durationMs: 270,
      },
    ],
    organizationId: 'org_1',
    apiKeyId: 'key_1',
    tags: ['team-a'],
    ...overrides,
  };
}

describe('telemetry settings', () => {
  it('is off without an OTLP endpoint and when the SDK is disabled', () => {
    assert.equal(readTelemetrySettings({}).tracesEndpoint, undefined);
    assert.equal(
      readTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracesEndpoint,
      undefined,
    );
  });

  it('appends /v1/traces to the generic endpoint and takes the traces endpoint as is', () => {
    assert.equal(
      readTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracesEndpoint,
      'http://c:4318/v1/traces',
    );
    assert.equal(
      readTelemetrySettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x',
      }).tracesEndpoint,
      'http://t/x',
    );
    assert.deepEqual(readTelemetrySettings({ OTEL_EXPORTER_OTLP_HEADERS: 'a=1, b=x%3Dy' }).headers, {
      a: '1',
      b: 'x=y',
    });
  });

  it('without an endpoint, tracing is the shared no-op', async () => {
    assert.equal(await createTracing(readTelemetrySettings({}), silent), NO_TRACING);
  });
});

describe('request traces over OTLP', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;

  before(async () => {
    receiver = await startOtlpReceiver();
    tracing = await createTracing(
      readTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gw-test' }),
      silent,
    );
  });
  after(async () => {
    await tracing.shutdown();
    await receiver.close();
  });

  it('exports one trace: the request span with GenAI attributes and a child span per attempt', async () => {
    const data = sample();
    tracing.record(data);
    await tracing.flush();
    const spans = await receiver.waitForSpans(4);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    assert.equal(root.name, 'chat openai/gpt-5');
    assert.equal(root.resource['service.name'], 'gw-test');
    assert.equal(root.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(root.attributes['gen_ai.provider.name'], 'anthropic');
    assert.equal(root.attributes['gen_ai.request.model'], 'openai/gpt-5');
    assert.equal(root.attributes['gen_ai.response.model'], 'claude-sonnet-4-5');
    assert.equal(root.attributes['gen_ai.usage.input_tokens'], 1200);
    assert.equal(root.attributes['gen_ai.usage.output_tokens'], 50);
    assert.equal(root.attributes['gen_ai.usage.cache_read.input_tokens'], 1000);
    assert.equal(root.attributes['gen_ai.usage.cache_creation.input_tokens'], 100);
    assert.deepEqual(root.attributes['gen_ai.response.finish_reasons'], ['stop']);
    assert.equal(root.attributes['gateway.cost_usd'], 0.001234);
    assert.equal(root.attributes['gateway.compression.saved_tokens'], 300);
    assert.equal(root.attributes['gateway.fallback_used'], true);
    assert.equal(BigInt(root.endTimeUnixNano) - BigInt(root.startTimeUnixNano), 400_000_000n);

    const children = spans.filter((s) => s.parentSpanId === root.spanId);
    assert.equal(children.length, 3);
    assert.ok(children.every((c) => c.traceId === root.traceId));
    const [first, retry, fallback] = children.sort((a, b) =>
      Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)),
    );
    assert.equal(first!.attributes['gateway.retry'], false);
    assert.equal(retry!.attributes['gateway.retry'], true);
    assert.equal(retry!.attributes['http.response.status_code'], 503);
    assert.equal(retry!.status?.code, 2); // ERROR
    assert.equal(fallback!.attributes['gateway.fallback'], true);
    assert.equal(fallback!.attributes['gen_ai.provider.name'], 'anthropic');
    assert.equal(fallback!.name, 'chat claude-sonnet-4-5');
  });

  it("joins the client's trace when it sent a traceparent", async () => {
    receiver.spans.length = 0;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    tracing.record(sample({ traceparent: `00-${traceId}-00f067aa0ba902b7-01`, attempts: [] }));
    await tracing.flush();
    const [span] = await receiver.waitForSpans(1);
    assert.equal(span!.traceId, traceId);
    assert.equal(span!.parentSpanId, '00f067aa0ba902b7');
  });

  it('marks a failed request as an error', async () => {
    receiver.spans.length = 0;
    tracing.record(sample({ status: 502, errorCode: 'provider_error', attempts: [] }));
    await tracing.flush();
    const [span] = await receiver.waitForSpans(1);
    assert.equal(span!.status?.code, 2);
    assert.equal(span!.attributes['error.type'], 'provider_error');
  });
});
