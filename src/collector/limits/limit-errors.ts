import type { RateRefusal } from './rate-limits.js';

export function rateLimitMessage(refusal: RateRefusal): string {
  return refusal.scope === 'address'
    ? `Too many events from this client address; retry after ${refusal.retryAfterSeconds} s.`
    : `Too many events for this project; retry after ${refusal.retryAfterSeconds} s.`;
}
