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
