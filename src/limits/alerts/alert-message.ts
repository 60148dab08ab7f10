import { createHmac } from 'node:crypto';
import type { AlertFiring } from '../../store/alert-firings.js';
import type { AlertRule } from '../../store/alert-rules.js';

/** Headers of a signed alert (docs/alerts.md, "Verifying a signed alert"). */
export const ALERT_TIMESTAMP_HEADER = 'x-gateway-alert-timestamp';
export const ALERT_SIGNATURE_HEADER = 'x-gateway-alert-signature';
export const ALERT_ID_HEADER = 'x-gateway-alert-id';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const dollars = (microUsd: number) => `$${(microUsd / 1_000_000).toFixed(2)}`;

/** `organization` → the organization; `key:<id>` and `limit:<id>` → their kind and id. */
export function subjectOf(subject: string): { kind: 'organization' | 'key' | 'limit'; id: string | null } {
  const colon = subject.indexOf(':');
  if (colon < 0) return { kind: 'organization', id: null };
  return { kind: subject.slice(0, colon) as 'key' | 'limit', id: subject.slice(colon + 1) };
}

/** The alert as JSON: the body of a signed destination, and the console's fired-alert object. */
export function alertObject(firing: AlertFiring, ruleName: string | null) {
  return {
    object: 'alert' as const,
    id: firing.id,
    organization_id: firing.organizationId,
    rule_id: firing.ruleId,
    rule_name: ruleName,
    subject: subjectOf(firing.subject),
    threshold_percent: firing.threshold,
    window: firing.window,
    window_start: iso(firing.window === 'lifetime' ? null : firing.windowStart),
    window_end: iso(firing.windowEnd),
    limit_micro_usd: firing.limitMicroUsd,
    spent_micro_usd: firing.spentMicroUsd,
    fired_at: iso(firing.firedAt)!,
  };
}

/** One line a person reads in a chat channel. */
export function alertText(firing: AlertFiring, rule: AlertRule): string {
  const subject = subjectOf(firing.subject);
  const what =
    subject.kind === 'organization'
      ? 'Organization spend'
      : subject.kind === 'key'
        ? `Key ${subject.id}`
        : `Limit ${subject.id}`;
  const window =
    firing.window === 'lifetime' ? 'lifetime' : `${firing.window} window from ${iso(firing.windowStart)!.slice(0, 10)}`;
  return (
    `Alert "${rule.name}": ${what} reached ${firing.threshold}% of ${dollars(firing.limitMicroUsd)} ` +
    `(${window}): ${dollars(firing.spentMicroUsd)} spent.`
  );
}

/** `v1=` + hex HMAC-SHA256 of `<timestamp>.<body>` under the rule's secret. */
export function alertSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
