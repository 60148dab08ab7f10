import { Gauge } from 'prom-client';
import { metricsRegistry } from './metrics.js';
import { LabelledCounter, type CounterChild } from './labelled-metrics.js';

/**
 * The collector's limits at work (docs/console-api.md, "Limits"): what was accepted, what was
 * refused and why, and what retention deleted. Label values come from the fixed lists below.
 */
export const COLLECTOR_REJECT_REASONS = [
  'rate_limit_address',
  'rate_limit_project',
  'body_too_large',
  'too_many_events',
  'event_too_large',
  'quota',
  'address_penalty',
] as const;
export type CollectorRejectReason = (typeof COLLECTOR_REJECT_REASONS)[number];

const acceptedEvents = new LabelledCounter(
  'gateway_collector_events_accepted_total',
  'Collected events committed and answered 202 (an id already stored, a client retry, is counted again).',
  [],
  metricsRegistry,
).labels();

const rejectedRequests = new LabelledCounter(
  'gateway_collector_requests_rejected_total',
  'Collector requests refused by a limit, by reason (rate limits 429, sizes 413 or 400, quota 429).',
  ['reason'],
  metricsRegistry,
);

const rejectedEvents = new LabelledCounter(
  'gateway_collector_events_rejected_total',
  'Events in collector requests refused by a limit, by reason; requests refused before their body was read add none.',
  ['reason'],
  metricsRegistry,
);

const deleted = new LabelledCounter(
  'gateway_collector_deleted_total',
  'Rows the collector deleted, by table (events, deliveries: outbox rows never delivered, warehouse) and reason.',
  ['table', 'reason'],
  metricsRegistry,
);

const rejectedRequestsBy = new Map<CollectorRejectReason, CounterChild>();
const rejectedEventsBy = new Map<CollectorRejectReason, CounterChild>();
for (const reason of COLLECTOR_REJECT_REASONS) {
  // Created up front so every reason is exported, at zero until it happens.
  rejectedRequestsBy.set(reason, rejectedRequests.labels(reason));
  rejectedEventsBy.set(reason, rejectedEvents.labels(reason));
}
const deletedEvents = deleted.labels('events', 'retention');
const deletedDeliveries = deleted.labels('deliveries', 'retention');
const deletedWarehouse = deleted.labels('warehouse', 'retention');

export const collectorMetrics = {
  accepted(events: number): void {
    acceptedEvents.inc(events);
  },
  rejected(reason: CollectorRejectReason, events = 0): void {
    rejectedRequestsBy.get(reason)!.inc();
    if (events > 0) rejectedEventsBy.get(reason)!.inc(events);
  },
  retention(counts: { events: number; deliveries: number; warehouse: number }): void {
    deletedEvents.inc(counts.events);
    deletedDeliveries.inc(counts.deliveries);
    deletedWarehouse.inc(counts.warehouse);
  },
};

/** Anything that knows whether the rate budgets are shared right now (Redis reachable). */
export interface SharedBudgetSource {
  readonly shared: boolean;
}
const sharedSources = new Set<SharedBudgetSource>();
new Gauge({
  name: 'gateway_collector_rate_limit_shared',
  help: '1: the collector rate budgets are shared through Redis right now; 0: counted in this process (no Redis configured, or Redis unreachable).',
  registers: [metricsRegistry],
  collect() {
    let shared = sharedSources.size > 0 ? 1 : 0;
    for (const source of sharedSources) if (!source.shared) shared = 0;
    this.set(shared);
  },
});

/** Reports `source` in the shared-budget gauge until the returned function is called. */
export function trackSharedBudget(source: SharedBudgetSource): () => void {
  sharedSources.add(source);
  return () => sharedSources.delete(source);
}
