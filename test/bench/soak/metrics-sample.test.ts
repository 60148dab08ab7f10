// The soak's /metrics reader: every family it samples is one the process's registry exports
// (a renamed metric fails here, not ten minutes into a soak), summed over labels, in its units.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsRegistry } from '../../../src/metrics/metrics.js';
import '../../../src/metrics/capacity-metrics.js';
import '../../../src/metrics/connection-metrics.js';
import { parseSample, SAMPLED_FAMILIES } from '../../../bench/soak/metrics-sample.js';

describe('bench/soak metrics sample', () => {
  it('reads every sampled family from the registry the gateway serves at /metrics', async () => {
    const sample = parseSample(await metricsRegistry.metrics());
    assert.deepEqual(Object.keys(sample).sort(), Object.keys(SAMPLED_FAMILIES).sort());
    assert.ok(sample.heapUsedMb > 1 && sample.heapUsedMb <= sample.heapTotalMb, JSON.stringify(sample));
    assert.ok(sample.loopDelayP99Ms >= 0);
  });

  it('sums a family over its labels and converts bytes and seconds', () => {
    const text = [
      '# HELP gateway_connections_open x',
      'gateway_connections_open{surface="gateway"} 3',
      'gateway_connections_open{surface="console"} 2',
      'nodejs_heap_size_used_bytes 1048576',
      'nodejs_heap_size_total_bytes 2097152',
      'nodejs_external_memory_bytes 3145728',
      'nodejs_eventloop_lag_p99_seconds 0.012',
      'gateway_tls_handshakes_queued 0',
      'gateway_upstream_buffered_bytes 2048',
    ].join('\n');
    const sample = parseSample(text);
    assert.equal(sample.connectionsOpen, 5);
    assert.equal(sample.heapUsedMb, 1);
    assert.equal(sample.heapTotalMb, 2);
    assert.equal(sample.externalMb, 3);
    assert.equal(Math.round(sample.loopDelayP99Ms), 12);
    assert.equal(sample.bufferedUpstreamKb, 2);
  });

  it('refuses an exposition missing a family, naming it', () => {
    assert.throws(() => parseSample('nodejs_heap_size_used_bytes 1\n'), /nodejs_heap_size_total_bytes/);
  });
});
