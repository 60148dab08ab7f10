// The soak's per-minute statistics: what each minute counts, its summary and printed line, and the
// least-squares slope of the RSS samples.
import type { Kind } from './requests.js';
import type { MetricsSample } from './metrics-sample.js';

export interface Minute {
  requests: number;
  ok: number;
  errors: Record<string, number>;
  skipped: number;
  latencies: number[];
  byKind: Record<Kind, number[]>;
  rss: number[];
  /** The gateway's /metrics, read every few seconds. */
  metrics: MetricsSample[];
}

export function emptyMinute(): Minute {
  return {
    requests: 0,
    ok: 0,
    errors: {},
    skipped: 0,
    latencies: [],
    byKind: { chat: [], stream: [], count_tokens: [], compress: [] },
    rss: [],
    metrics: [],
  };
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Least-squares slope of y over x. */
export function slope(points: Array<[number, number]>): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx === 0 ? null : sxy / sxx;
}

export const round = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined ? null : Number(x.toFixed(digits));

function maxOf(samples: MetricsSample[], field: keyof MetricsSample): number | null {
  return samples.length ? Math.max(...samples.map((sample) => sample[field])) : null;
}

export function summarizeMinute(m: Minute | undefined, index: number) {
  if (!m) return undefined;
  const sorted = [...m.latencies].sort((a, b) => a - b);
  const p = (kind: Kind, q: number) =>
    round(
      percentile(
        [...m.byKind[kind]].sort((a, b) => a - b),
        q,
      ),
    );
  return {
    minute: index + 1,
    requests: m.requests,
    ok: m.ok,
    errors: m.errors,
    error_count: Object.values(m.errors).reduce((s, x) => s + x, 0),
    skipped: m.skipped,
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
    p99_ms_by_kind: {
      chat: p('chat', 99),
      stream: p('stream', 99),
      count_tokens: p('count_tokens', 99),
      compress: p('compress', 99),
    },
    rss_mb: round(m.rss.at(-1)),
    rss_mb_mean: round(m.rss.length ? m.rss.reduce((s, x) => s + x, 0) / m.rss.length : null),
    heap_used_mb: round(m.metrics.at(-1)?.heapUsedMb),
    heap_used_mb_max: round(maxOf(m.metrics, 'heapUsedMb')),
    heap_total_mb: round(m.metrics.at(-1)?.heapTotalMb),
    external_mb: round(m.metrics.at(-1)?.externalMb),
    event_loop_delay_p99_ms_max: round(maxOf(m.metrics, 'loopDelayP99Ms')),
    connections_open_max: maxOf(m.metrics, 'connectionsOpen'),
    handshakes_queued_max: maxOf(m.metrics, 'handshakesQueued'),
    buffered_upstream_kb_max: round(maxOf(m.metrics, 'bufferedUpstreamKb')),
  };
}

export function printMinute(m: Minute | undefined, index: number): void {
  const s = summarizeMinute(m, index);
  if (!s) return;
  console.log(
    `minute ${String(s.minute).padStart(2)}: ${s.requests} requests, ${s.ok} ok, ${s.error_count} errors${s.requests - s.ok - s.error_count > 0 ? ` (${s.requests - s.ok - s.error_count} still in flight)` : ''}${s.error_count ? ` ${JSON.stringify(s.errors)}` : ''}, ${s.skipped} skipped, ` +
      `p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms (chat ${s.p99_ms_by_kind.chat}, stream ${s.p99_ms_by_kind.stream}, count_tokens ${s.p99_ms_by_kind.count_tokens}, compress ${s.p99_ms_by_kind.compress}), RSS ${s.rss_mb} MB, ` +
      `heap ${s.heap_used_mb}/${s.heap_total_mb} MB (max used ${s.heap_used_mb_max}), external ${s.external_mb} MB, loop delay p99 ≤ ${s.event_loop_delay_p99_ms_max} ms, ` +
      `≤ ${s.connections_open_max} connections, ≤ ${s.handshakes_queued_max} handshakes queued, ≤ ${s.buffered_upstream_kb_max} KiB buffered upstream`,
  );
}
