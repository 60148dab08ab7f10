import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';

/**
 * Slowloris and connection floods against the real service over loopback (issue 16, row 2).
 * Timeouts are scaled down through the environment so each attack takes a second or two; every
 * "is closed" check allows several times the timeout (CLOSED_WITHIN), which the old code missed
 * by far (it had no header, body or handshake deadline after the first byte: connections stayed
 * open for minutes). Client sockets bind to other loopback addresses (127.0.0.0/8) to act as
 * other clients, so the per-address cap is exercised without touching the harness's own client.
 */
export const T = {
  handshakeMs: 1_500,
  headersMs: 1_500,
  bodyMs: 600,
  bodyMinBytesPerSecond: 2_000,
  idleMs: 600,
  perAddress: 8,
};

export interface Disciplined {
  h: Harness;
  /** Its model test/slow streams as the scenario says. */
  slow: MockUpstream;
  /** Its model test/hanging never answers. */
  hanging: MockUpstream;
  key: string;
  /** A sample of the gateway's /metrics. */
  metric(name: string, labels: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

/** The service with every connection deadline scaled down to T, and the metrics listener on too. */
export async function startDisciplined(): Promise<Disciplined> {
  const slow = await startMockOpenAI();
  const hanging = await startMockOpenAI();
  hanging.setScenario({ hangBeforeHeadersMs: Infinity });
  const h = await startHarness({
    env: {
      GATEWAY_HANDSHAKE_TIMEOUT_MS: String(T.handshakeMs),
      GATEWAY_HEADERS_TIMEOUT_MS: String(T.headersMs),
      GATEWAY_BODY_TIMEOUT_MS: String(T.bodyMs),
      GATEWAY_BODY_MIN_BYTES_PER_SECOND: String(T.bodyMinBytesPerSecond),
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: String(T.idleMs),
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: String(T.perAddress),
      // These tests miss deadlines on purpose, many from 127.0.0.3: the penalty box would refuse
      // that address before the last of them. It has its own tests (address-penalty.test.ts).
      GATEWAY_ADDRESS_PENALTY_CUTS: '0',
      // The separate metrics listener gets the same discipline; /metrics stays on the others too.
      METRICS_PORT: '0',
      METRICS_PUBLIC: 'true',
      MOCK_KEY: 'sk-mock',
    },
    config: {
      providers: [
        { id: 'slow', kind: 'openai', base_url: slow.baseUrl, api_key_env: 'MOCK_KEY' },
        { id: 'hanging', kind: 'openai', base_url: hanging.baseUrl, api_key_env: 'MOCK_KEY' },
      ],
      models: [
        { id: 'test/slow', providers: [{ provider: 'slow', model: 'gpt-4o-mini' }], pricing: PRICING },
        { id: 'test/hanging', providers: [{ provider: 'hanging', model: 'gpt-4o-mini' }], pricing: PRICING },
      ],
      retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
    },
  });
  const key = (await h.createKey(await h.organization())).key;
  return {
    h,
    slow,
    hanging,
    key,
    async metric(name, labels) {
      const result = await h.gateway('GET', '/metrics');
      assert.equal(result.status, 200);
      return sampleValue(parsePrometheusText(result.text), name, labels);
    },
    async stop() {
      await h.stop();
      await Promise.all([slow.close(), hanging.close()]);
    },
  };
}
