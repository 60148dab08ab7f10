import { collectDefaultMetrics, Registry } from 'prom-client';
import type { TokenUsage } from '../canonical/completion.js';
import {
  LabelledCounter,
  LabelledGauge,
  LabelledHistogram,
  type CounterChild,
  type HistogramChild,
} from './labelled-metrics.js';
import { summedGauge } from './summed-gauge.js';

/**
 * The process's Prometheus metrics, in one registry scraped at `/metrics` (docs/configuration.md,
 * "Metrics"). Every label value comes from a bounded set: a surface name, a route template (never
 * a raw URL), an HTTP method and status, a provider or model id from the catalogue.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry }); // process_* and nodejs_*, the names dashboards expect

// The families updated on every request are labelled-metrics.ts's (a child per label set, an
// update is an addition); the rest are prom-client's.
export const httpRequests = new LabelledCounter(
  'gateway_http_requests_total',
  'HTTP requests answered, by listener, route template, method and status code.',
  ['surface', 'route', 'method', 'status'],
  metricsRegistry,
);

export const httpDuration = new LabelledHistogram(
  'gateway_http_request_duration_seconds',
  'Time from the request line to the end of the response (a whole stream for SSE), by listener and route template.',
  ['surface', 'route', 'method'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  metricsRegistry,
);

export const httpInFlight = new LabelledGauge(
  'gateway_http_requests_in_flight',
  'Requests received and not yet answered, by listener.',
  ['surface'],
  metricsRegistry,
);

const upstreamLatency = new LabelledHistogram(
  'gateway_upstream_latency_seconds',
  'Duration of metered model requests (admission to the last byte, fallbacks and retries included), by provider and outcome.',
  ['provider', 'outcome'],
  [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
  metricsRegistry,
);

const tokens = new LabelledCounter(
  'gateway_tokens_total',
  'Tokens metered, by catalogue model and kind (input includes cached; output includes reasoning).',
  ['model', 'kind'],
  metricsRegistry,
);

const cost = new LabelledCounter(
  'gateway_cost_usd_total',
  'Cost metered at catalogue prices, in USD, by catalogue model.',
  ['model'],
  metricsRegistry,
);

/** Anything with a queue depth: the UsageWriter of each running gateway in this process. */
export interface QueueDepthSource {
  readonly queueDepth: number;
}
const trackUsageQueueDepth = summedGauge(
  'gateway_usage_write_queue_depth',
  'Usage rows waiting to be written to the database.',
  metricsRegistry,
);

/** Counts `queue` in the usage-write queue gauge until the returned function is called. */
export function trackUsageQueue(queue: QueueDepthSource): () => void {
  return trackUsageQueueDepth(() => queue.queueDepth);
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

/**
 * The children of one catalogue model and of one provider, looked up once per request. A series
 * is created at its first update, as prom-client does (no zero series for kinds never seen).
 */
interface ModelMetrics {
  tokens: Array<CounterChild | undefined>;
  cost: CounterChild | undefined;
}
const modelMetrics = new Map<string, ModelMetrics>();
const latencyByProvider = new Map<string, { ok: HistogramChild | undefined; error: HistogramChild | undefined }>();

/** Called once per metered request (from `meter()`): upstream latency, tokens and cost. */
export function recordUsageMetrics(request: MeteredRequest): void {
  const provider = request.provider || 'none';
  let latency = latencyByProvider.get(provider);
  if (!latency) latencyByProvider.set(provider, (latency = { ok: undefined, error: undefined }));
  const seconds = request.latencyMs / 1000;
  if (request.status < 400) (latency.ok ??= upstreamLatency.labels(provider, 'ok')).observe(seconds);
  else (latency.error ??= upstreamLatency.labels(provider, 'error')).observe(seconds);

  let model = modelMetrics.get(request.model);
  if (!model) modelMetrics.set(request.model, (model = { tokens: [], cost: undefined }));
  for (let i = 0; i < TOKEN_KINDS.length; i++) {
    const [kind, field] = TOKEN_KINDS[i]!;
    const count = request.usage[field];
    if (count > 0) (model.tokens[i] ??= tokens.labels(request.model, kind)).inc(count);
  }
  if (request.costMicroUsd > 0) (model.cost ??= cost.labels(request.model)).inc(request.costMicroUsd / 1_000_000);
}
