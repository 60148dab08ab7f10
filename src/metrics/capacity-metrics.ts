import { metricsRegistry } from './metrics.js';
import { summedGauge } from './summed-gauge.js';

/**
 * What an instance holds right now, for sizing and alerting (docs/scale-out.md, "Memory"); the
 * heap and the event loop's delay are prom-client's default `nodejs_*` families, the open
 * connections `gateway_connections_open` (connection-metrics.ts).
 */
export const trackBufferedUpstreamBytes = summedGauge(
  'gateway_upstream_buffered_bytes',
  "Bytes of upstream answers held beyond each request's free allowance, drawn from the process's budget (GATEWAY_UPSTREAM_BUFFERED_BYTES).",
  metricsRegistry,
);

export const trackQueuedHandshakes = summedGauge(
  'gateway_tls_handshakes_queued',
  'TLS handshakes of accepted connections waiting their turn (handshake pacing), all listeners together.',
  metricsRegistry,
);
