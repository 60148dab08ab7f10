import type { CollectedEventStore } from '../../store/collected-events.js';
import type { TargetPolicy } from '../../server/address-guard.js';
import type { Deliverer, DeliveryBatch } from './deliverer.js';
import { WebhookPoster } from './webhook-post.js';

export { WebhookError } from './webhook-post.js';

const DEFAULT_BATCH = 100;

/**
 * The `webhook` component: POSTs `{object: 'event_batch', project_id, project_component_id,
 * attempt, events: [...]}` as JSON. Any 2xx is success; anything else (or a network error or
 * timeout) is retried by the outbox. Delivery is at least once, and every event carries its
 * `id`, so a receiver that de-duplicates by id sees each event exactly once. Redirects are not
 * followed, and every connection goes through the SSRF guard, pinned to the checked address.
 */
export class WebhookDeliverer implements Deliverer {
  private readonly poster: WebhookPoster;

  constructor(
    private readonly events: CollectedEventStore,
    policy: TargetPolicy,
    timeoutMs: number,
  ) {
    this.poster = new WebhookPoster(policy, timeoutMs);
  }

  batchSize(settings: Record<string, unknown>): number {
    return typeof settings.batch_size === 'number' ? settings.batch_size : DEFAULT_BATCH;
  }

  async deliver(batch: DeliveryBatch): Promise<void> {
    const target = String(batch.settings.url ?? '');
    const payloads = await this.events.loadPayloads(batch.projectId, batch.eventIds);
    const events: string[] = [];
    for (const id of batch.eventIds) {
      const payload = payloads.get(id);
      if (payload !== undefined) events.push(payload);
    }
    if (events.length === 0) return;
    // The stored payloads are already the events' JSON: spliced in as they are, not parsed and re-serialised.
    const envelope = JSON.stringify({
      object: 'event_batch',
      project_id: batch.projectId,
      project_component_id: batch.projectComponentId,
      attempt: batch.attempt,
    });
    const body = `${envelope.slice(0, -1)},"events":[${events.join(',')}]}`;
    await this.poster.post(target, body, {}, batch.signal);
  }

  close(): Promise<void> {
    return this.poster.close();
  }
}
