import type { CollectedEventStore } from '../../store/collected-events.js';
import type { Deliverer, DeliveryBatch } from './deliverer.js';

/** The `warehouse` component: events go into the gateway's own warehouse_events table, once per id. */
export class WarehouseDeliverer implements Deliverer {
  constructor(private readonly events: CollectedEventStore) {}

  /** One claim's worth: the copy runs inside the database, so a larger batch costs only fewer statements. */
  batchSize(): number {
    return 1_000;
  }

  async deliver(batch: DeliveryBatch): Promise<void> {
    await this.events.copyToWarehouse(batch.projectId, batch.projectComponentId, batch.eventIds, Date.now());
  }
}
