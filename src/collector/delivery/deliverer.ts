export interface DeliveryBatch {
  projectId: string;
  projectComponentId: string;
  settings: Record<string, unknown>;
  /** Ids of stored events, in outbox order. An id whose event is gone (project deleted) is skipped. */
  eventIds: string[];
  /** 1 on the first attempt. */
  attempt: number;
  signal: AbortSignal;
}

/** One built-in data-collection component's way of delivering a batch; throws to retry it. */
export interface Deliverer {
  /** Events per call (the worker splits larger groups). */
  batchSize(settings: Record<string, unknown>): number;
  deliver(batch: DeliveryBatch): Promise<void>;
}

/** Where the outbox rows of one destination go: the deliverer, and what it is handed. */
export interface DeliveryDestination {
  projectId: string;
  settings: Record<string, unknown>;
  deliverer: Deliverer;
}

/**
 * Outbox rows whose `project_component_id` is not a project component's: another feature's
 * destinations sharing the outbox and its retries (alert rules, docs/alerts.md). `resolve`
 * returns the ids it knows; rows no route knows are discarded, as a deleted component's are.
 */
export interface DeliveryRoute {
  resolve(ids: readonly string[]): Promise<Map<string, DeliveryDestination>>;
}
