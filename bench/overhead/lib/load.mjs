// Load runs: autocannon's programmatic API, closed loop (each connection sends its next
// request when the previous response has fully arrived, so for SSE the latency is the time to
// the last byte of the stream). Latencies are recorded here from autocannon's `response`
// events in microseconds: autocannon's own histogram has whole-millisecond resolution, too
// coarse for added latencies well under a millisecond. The target's memory is sampled from
// /proc/<pid>/status while the run goes on.
import { createRequire } from 'node:module';
import { memoryOf, machineTicks, processTicks } from './processes.mjs';

const require = createRequire(import.meta.url);
let autocannon;
function loadAutocannon() {
  autocannon ??= require('autocannon');
  return autocannon;
}

const RSS_SAMPLE_MS = 200;

/**
 * One measurement.
 * @param {{url: string, headers: Record<string,string>, body: string, connections: number,
 *          durationS: number, pid?: number, timeoutS?: number}} spec
 */
export async function measure(spec) {
  const ac = loadAutocannon();
  const latencies = [];
  let peakRssKiB = 0;
  const sample = () => {
    if (!spec.pid) return;
    const { rssKiB } = memoryOf(spec.pid);
    if (rssKiB > peakRssKiB) peakRssKiB = rssKiB;
  };
  sample();
  const sampler = setInterval(sample, RSS_SAMPLE_MS);
  // CPU used during the measurement by processes other than the bench, the target and the
  // mock upstream: a measure of how much the numbers were disturbed by other work on the machine.
  const ours = [...new Set([process.pid, spec.pid, ...(spec.otherPids ?? [])].filter(Boolean))];
  const ticksOurs = () => ours.reduce((s, pid) => s + processTicks(pid), 0);
  const machine0 = machineTicks();
  const ours0 = ticksOurs();

  const instance = ac({
    url: spec.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...spec.headers },
    body: spec.body,
    connections: spec.connections,
    pipelining: 1,
    duration: spec.durationS,
    timeout: spec.timeoutS ?? 10,
    // autocannon never verifies TLS certificates (its client sets rejectUnauthorized: false).
  });
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
  });
  let result;
  try {
    result = await instance;
  } finally {
    clearInterval(sampler);
  }
  sample();
  const machine1 = machineTicks();
  const foreignCpu = Math.max(
    0,
    (machine1.busy - machine0.busy - (ticksOurs() - ours0)) / (machine1.total - machine0.total),
  );
  const statusCodes = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count;
  return {
    connections: spec.connections,
    durationS: result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    resets: result.resets ?? 0,
    rps: result['2xx'] / result.duration,
    bytes: result.throughput.total,
    latencies,
    peakRssKiB: spec.pid ? peakRssKiB : NaN,
    foreignCpu,
  };
}

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? (v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : NaN;
};

/**
 * Several rounds of the same measurement (interleaved with the other targets' by the caller):
 * latency percentiles over the pooled samples of every round, req/s the median of the rounds,
 * RSS the highest peak, counts summed.
 */
export function summarize(rounds) {
  const pooled = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const pct = (p) =>
    pooled.length ? pooled[Math.min(pooled.length - 1, Math.ceil((p / 100) * pooled.length) - 1)] : NaN;
  const sum = (key) => rounds.reduce((s, r) => s + r[key], 0);
  const statusCodes = {};
  for (const r of rounds)
    for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const ok = sum('ok');
  return {
    connections: rounds[0].connections,
    rounds: rounds.map((r) => ({
      durationS: r.durationS,
      rps: r.rps,
      ok: r.ok,
      non2xx: r.non2xx,
      errors: r.errors,
      peakRssKiB: r.peakRssKiB,
      foreignCpu: r.foreignCpu,
    })),
    foreignCpu: Math.max(...rounds.map((r) => r.foreignCpu)),
    durationS: sum('durationS'),
    ok,
    non2xx: sum('non2xx'),
    statusCodes,
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    resets: sum('resets'),
    rps: median(rounds.map((r) => r.rps)),
    latencyMs: {
      p50: pct(50),
      p90: pct(90),
      p99: pct(99),
      max: pooled.length ? pooled[pooled.length - 1] : NaN,
      mean: pooled.length ? pooled.reduce((s, v) => s + v, 0) / pooled.length : NaN,
      samples: pooled.length,
    },
    bytesPerResponse: ok > 0 ? sum('bytes') / ok : NaN,
    peakRssKiB: Math.max(...rounds.map((r) => r.peakRssKiB)),
  };
}
