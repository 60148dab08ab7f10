import type { AlertRuleRepository } from '../../store/alert-rules.js';
import { parseAlertDeliveryEventId, type AlertFiringRepository } from '../../store/alert-firings.js';
import type { Deliverer, DeliveryBatch, DeliveryDestination, DeliveryRoute } from './deliverer.js';
import type { WebhookPoster } from './webhook-post.js';
import {
  ALERT_ID_HEADER,
  ALERT_SIGNATURE_HEADER,
  ALERT_TIMESTAMP_HEADER,
  alertObject,
  alertSignature,
  alertText,
} from '../../limits/alerts/alert-message.js';

/**
 * Alert delivery through the collector's outbox (docs/alerts.md, "Delivery"): the rows a fired
 * alert wrote (one per destination, `project_component_id` = the rule) are claimed, retried with
 * backoff and parked after the last attempt by the DeliveryWorker, like a webhook component's.
 * As a route it tells the worker which ids are alert rules; as a deliverer it posts one alert per
 * call, so a failing destination retries alone.
 */
export class AlertDeliverer implements Deliverer, DeliveryRoute {
  constructor(
    private readonly rules: AlertRuleRepository,
    private readonly firings: AlertFiringRepository,
    private readonly poster: WebhookPoster,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(ids: readonly string[]): Promise<Map<string, DeliveryDestination>> {
    const candidates = ids.filter((id) => id.startsWith('alr_'));
    const rules = await this.rules.byIds(candidates);
    return new Map(rules.map((rule) => [rule.id, { projectId: rule.organizationId, settings: {}, deliverer: this }]));
  }

  batchSize(): number {
    return 1;
  }

  async deliver(batch: DeliveryBatch): Promise<void> {
    const [rule] = await this.rules.byIds([batch.projectComponentId]);
    if (!rule) return;
    for (const eventId of batch.eventIds) {
      const parsed = parseAlertDeliveryEventId(eventId);
      const destination = parsed && rule.destinations[parsed.destination];
      const firing = parsed && (await this.firings.get(parsed.firingId));
      // A destination removed since, or a firing pruned: nothing left to say.
      if (!destination || !firing) continue;
      if (destination.kind === 'slack') {
        await this.poster.post(destination.url, JSON.stringify({ text: alertText(firing, rule) }), {}, batch.signal);
        continue;
      }
      const body = JSON.stringify({ ...alertObject(firing, rule.name), attempt: batch.attempt });
      const timestamp = Math.floor(this.now() / 1000);
      const secret = await this.rules.signingSecret(rule.id);
      const headers: Record<string, string> = {
        [ALERT_ID_HEADER]: firing.id,
        [ALERT_TIMESTAMP_HEADER]: String(timestamp),
      };
      if (secret) headers[ALERT_SIGNATURE_HEADER] = alertSignature(secret, timestamp, body);
      await this.poster.post(destination.url, body, headers, batch.signal);
    }
  }
}
