import { LabelledCounter, LabelledGauge } from './labelled-metrics.js';
import { metricsRegistry } from './metrics.js';

/** Connection-level counts of every listener (src/server/connection-gate.ts, https-only-listener.ts). */
export const connectionsOpen = new LabelledGauge(
  'gateway_connections_open',
  'TCP connections accepted and not yet closed, by listener.',
  ['surface'],
  metricsRegistry,
);

export type RefusalReason = 'instance_cap' | 'address_cap' | 'address_penalty';

export const connectionsRefused = new LabelledCounter(
  'gateway_connections_refused_total',
  'Connections closed at once on accept because the instance or the client address already held its cap (instance_cap, address_cap), or the address is in the penalty box for connections that kept missing deadlines (address_penalty), by listener and reason.',
  ['surface', 'reason'],
  metricsRegistry,
);

/** Which deadline a connection missed. */
export type TimeoutPhase = 'handshake' | 'headers' | 'body';

export const connectionsTimedOut = new LabelledCounter(
  'gateway_connections_timed_out_total',
  'Connections closed because the client missed a deadline: handshake (first byte and TLS), headers, or request body (minimum rate), by listener and phase.',
  ['surface', 'phase'],
  metricsRegistry,
);
