import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TokenUsage } from '../providers/types.js';

/**
 * The process's Prometheus metrics, in one registry scraped at `/metrics` (docs/configuration.md,
 * "Metrics"). Every label value comes from a bounded set: a surface name, a route template (never
 * a raw URL), an HTTP method and status, a provider or model id from the catalogue.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry }); // process_* and nodejs_*, the names dashboards expect

export const httpRequests = new Counter({
  name: 'gateway_http_requests_total',
  help: 'HTTP requests answered, by listener, route template, method and status code.',
  labelNames: ['surface', 'route', 'method', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpDuration = new Histogram({
  name: 'gateway_http_request_duration_seconds',
  help: 'Time from the request line to the end of the response (a whole stream for SSE), by listener and route template.',
  labelNames: ['surface', 'route', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [metricsRegistry],
});

export const httpInFlight = new Gauge({
  name: 'gateway_http_requests_in_flight',
  help: 'Requests received and not yet answered, by listener.',
  labelNames: ['surface'] as const,
  registers: [metricsRegistry],
});

const upstreamLatency = new Histogram({
  name: 'gateway_upstream_latency_seconds',
  help: 'Duration of metered model requests (admission to the last byte, fallbacks and retries included), by provider and outcome.',
  labelNames: ['provider', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
  registers: [metricsRegistry],
});

const tokens = new Counter({
  name: 'gateway_tokens_total',
  help: 'Tokens metered, by catalogue model and kind (input includes cached; output includes reasoning).',
  labelNames: ['model', 'kind'] as const,
  registers: [metricsRegistry],
});

const cost = new Counter({
  name: 'gateway_cost_usd_total',
  help: 'Cost metered at catalogue prices, in USD, by catalogue model.',
  labelNames: ['model'] as const,
  registers: [metricsRegistry],
});

/** Anything with a queue depth: the UsageWriter of each running gateway in this process. */
export interface QueueDepthSource {
  readonly queueDepth: number;
}
const usageQueues = new Set<QueueDepthSource>();
new Gauge({
  name: 'gateway_usage_write_queue_depth',
  help: 'Usage rows waiting to be written to the database.',
  registers: [metricsRegistry],
  collect() {
    let depth = 0;
    for (const queue of usageQueues) depth += queue.queueDepth;
    this.set(depth);
  },
});

/** Counts `queue` in the usage-write queue gauge until the returned function is called. */
export function trackUsageQueue(queue: QueueDepthSource): () => void {
  usageQueues.add(queue);
  return () => usageQueues.delete(queue);
}

export interface MeteredRequest {
  model: string;
  provider: string;
  status: number;
  usage: TokenUsage;
  costMicroUsd: number;
  latencyMs: number;
}

const TOKEN_KINDS = [
  ['input', 'inputTokens'],
  ['output', 'outputTokens'],
  ['cached_input', 'cachedInputTokens'],
  ['cache_creation_input', 'cacheCreationInputTokens'],
  ['reasoning', 'reasoningTokens'],
] as const;

/** Called once per metered request (from `meter()`): upstream latency, tokens and cost. */
export function recordUsageMetrics(request: MeteredRequest): void {
  upstreamLatency.observe({ provider: request.provider || 'none', outcome: request.status < 400 ? 'ok' : 'error' }, request.latencyMs / 1000);
  for (const [kind, field] of TOKEN_KINDS) {
    const count = request.usage[field];
    if (count > 0) tokens.inc({ model: request.model, kind }, count);
  }
  if (request.costMicroUsd > 0) cost.inc({ model: request.model }, request.costMicroUsd / 1_000_000);
}
