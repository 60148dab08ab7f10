// What the soak reads from the gateway's own /metrics every few seconds: the figures an operator
// sizes and alerts with (docs/scale-out.md, "Memory"), each family summed over its labels.
import type { Dispatcher } from 'undici';
import { request } from 'undici';

export const SAMPLED_FAMILIES = {
  heapUsedMb: 'nodejs_heap_size_used_bytes',
  heapTotalMb: 'nodejs_heap_size_total_bytes',
  externalMb: 'nodejs_external_memory_bytes',
  loopDelayP99Ms: 'nodejs_eventloop_lag_p99_seconds',
  connectionsOpen: 'gateway_connections_open',
  handshakesQueued: 'gateway_tls_handshakes_queued',
  bufferedUpstreamKb: 'gateway_upstream_buffered_bytes',
} as const;

export type MetricsSample = Record<keyof typeof SAMPLED_FAMILIES, number>;

const SCALE: Record<keyof typeof SAMPLED_FAMILIES, number> = {
  heapUsedMb: 1 / 2 ** 20,
  heapTotalMb: 1 / 2 ** 20,
  externalMb: 1 / 2 ** 20,
  loopDelayP99Ms: 1000,
  connectionsOpen: 1,
  handshakesQueued: 1,
  bufferedUpstreamKb: 1 / 1024,
};

/**
 * The sampled families of a Prometheus text exposition, in the units above. A family declared
 * (`# TYPE`) without samples is 0 (a labelled gauge with no series yet); one missing is an error.
 */
export function parseSample(text: string): MetricsSample {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    const declared = /^# TYPE (\S+)/.exec(line)?.[1];
    if (declared && !sums.has(declared)) sums.set(declared, 0);
    if (line.startsWith('#') || line === '') continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sums.set(name, (sums.get(name) ?? 0) + value);
  }
  const sample = {} as MetricsSample;
  for (const [field, family] of Object.entries(SAMPLED_FAMILIES) as Array<[keyof MetricsSample, string]>) {
    const sum = sums.get(family);
    if (sum === undefined) throw new Error(`/metrics has no ${family}`);
    sample[field] = sum * SCALE[field];
  }
  return sample;
}

export async function scrapeMetrics(gatewayUrl: string, dispatcher: Dispatcher): Promise<MetricsSample> {
  const response = await request(`${gatewayUrl}/metrics`, { dispatcher, headersTimeout: 5_000, bodyTimeout: 5_000 });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`/metrics answered ${response.statusCode}`);
  return parseSample(text);
}
