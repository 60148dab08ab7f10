import type { CollectedEventStore } from '../../store/collected-events.js';
import type { Deliverer, DeliveryBatch } from './deliverer.js';

/** The `warehouse` component: events go into the gateway's own warehouse_events table, once per id. */
export class WarehouseDeliverer implements Deliverer {
  constructor(private readonly events: CollectedEventStore) {}

  batchSize(): number {
    return 500;
  }

  async deliver(batch: DeliveryBatch): Promise<void> {
    const storedAt = Date.now();
    await this.events.storeInWarehouse(
      batch.events.map(({ event, receivedAt }) => ({
        project_component_id: batch.projectComponentId,
        event_id: event.id,
        project_id: batch.projectId,
        type: event.type,
        received_at: receivedAt,
        stored_at: storedAt,
        payload: JSON.stringify(event),
      })),
    );
  }
}
