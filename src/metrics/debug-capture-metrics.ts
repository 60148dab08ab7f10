import { Counter } from 'prom-client';
import { metricsRegistry } from './metrics.js';

/** What became of each debug capture (docs/debug-capture.md): stored, dropped on a full queue, or failed to write. */
export const debugCaptures = new Counter({
  name: 'gateway_debug_captures_total',
  help: 'Requests captured for debugging, by outcome: stored, dropped (the write queue was full) or failed (the write failed).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});
