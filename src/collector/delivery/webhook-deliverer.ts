import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { UndiciAgent, requestThrough, type RequestOptions } from '../../server/undici-parts.js';
import type { CollectedEventStore } from '../../store/collected-events.js';
import type { Deliverer, DeliveryBatch } from './deliverer.js';
import { guardedLookup, isPublicAddress, type TargetPolicy } from '../../server/address-guard.js';

const DEFAULT_BATCH = 100;

export class WebhookError extends Error {}

/**
 * The `webhook` component: POSTs `{object: 'event_batch', project_id, project_component_id,
 * attempt, events: [...]}` as JSON. Any 2xx is success; anything else (or a network error or
 * timeout) is retried by the outbox. Delivery is at least once, and every event carries its
 * `id`, so a receiver that de-duplicates by id sees each event exactly once. Redirects are not
 * followed, and every connection goes through the SSRF guard, pinned to the checked address.
 */
export class WebhookDeliverer implements Deliverer {
  private readonly agent: Agent;

  constructor(
    private readonly events: CollectedEventStore,
    private readonly policy: TargetPolicy,
    private readonly timeoutMs: number,
  ) {
    this.agent = new UndiciAgent({
      connect: { lookup: guardedLookup(policy) as never, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connections: 16,
    });
  }

  batchSize(settings: Record<string, unknown>): number {
    return typeof settings.batch_size === 'number' ? settings.batch_size : DEFAULT_BATCH;
  }

  async deliver(batch: DeliveryBatch): Promise<void> {
    const target = String(batch.settings.url ?? '');
    const url = new URL(target);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.policy.allowPrivate))
      throw new WebhookError('webhook URL must be https');
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal) && !this.policy.allowPrivate && !isPublicAddress(literal))
      throw new WebhookError('webhook address is private or reserved');
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
    const response = await requestThrough(this.agent, url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'llm-gateway-webhook/1.0' },
      body,
      signal: AbortSignal.any([batch.signal, AbortSignal.timeout(this.timeoutMs)]),
      maxRedirections: 0,
    } as RequestOptions);
    await response.body.dump().catch(() => undefined);
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new WebhookError(`webhook answered ${response.statusCode}`);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
