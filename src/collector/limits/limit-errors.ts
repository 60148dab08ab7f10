import type { RateRefusal } from './rate-limits.js';

export function rateLimitMessage(refusal: RateRefusal): string {
  return refusal.scope === 'address'
    ? `Too many events from this client address; retry after ${refusal.retryAfterSeconds} s.`
    : `Too many events for this project; retry after ${refusal.retryAfterSeconds} s.`;
}

/** 429 with Retry-After: the client address's or the project's event budget is used up. */
export class RateLimitedError extends Error {
  readonly retryAfterSeconds: number;

  constructor(refusal: RateRefusal) {
    super(rateLimitMessage(refusal));
    this.retryAfterSeconds = refusal.retryAfterSeconds;
  }
}

/** 429: storing the request's events would take the project past its stored-event quota. */
export class QuotaExceededError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'The project has reached its stored-event quota; nothing was accepted. Events are accepted again as retention deletes old ones or once the quota is raised.',
    );
  }
}
