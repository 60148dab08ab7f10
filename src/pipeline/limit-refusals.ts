import type { SpendWindow } from '../limits/reservation.js';
import type { RateRefusal } from '../limits/minute-rates.js';
import { secondsUntil, windowAt } from '../limits/windows.js';
import { GatewayError } from './errors.js';

/**
 * The 429 of a request whose spend bounds cannot pay for its prompt and a minimal answer
 * (docs/limits.md): `usage_limit_exceeded`, naming each bound that refused it, with
 * `Retry-After` at the end of the latest window among them (the key's monthly ceiling: the
 * UTC month's end); none when a lifetime limit refused it, since no wait will help.
 */
export function spendRefusal(
  blockedBy: ReadonlyArray<'ceiling' | SpendWindow>,
  minimumMicroUsd: number,
  ceilingUsd: number | null,
  now: number,
): GatewayError {
  const names = blockedBy.map((bound) =>
    bound === 'ceiling'
      ? `the key's monthly limit of $${ceilingUsd}`
      : `the ${bound.subject.kind}'s ${bound.period} limit of $${bound.limitMicroUsd / 1e6} (${bound.limitId})`,
  );
  const ends = blockedBy.map((bound) => (bound === 'ceiling' ? windowAt('monthly', now).end : bound.windowEnd));
  const retryAfter = secondsUntil(Math.max(...ends), now);
  return new GatewayError('usage_limit_exceeded', {
    message: `This request's prompt and a minimal answer could cost up to $${(minimumMicroUsd / 1e6).toFixed(6)}, more than is left under ${names.join(' and ')}.`,
    ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
  });
}

/** The 429 of a request over a per-minute rate of its key or member, `Retry-After` at that minute's end. */
export function rateRefusal(refusal: RateRefusal, points: number): GatewayError {
  const { rule } = refusal;
  const what = rule.metric === 'requests' ? 'requests' : `tokens (this request counts ${points})`;
  return new GatewayError('rate_limit_exceeded', {
    message: `The ${rule.subject.kind}'s limit of ${rule.perMinute} ${rule.metric} per minute (${rule.limitId}) leaves no room for more ${what}; retry in ${refusal.retryAfterSeconds} s.`,
    headers: { 'retry-after': String(refusal.retryAfterSeconds) },
  });
}
