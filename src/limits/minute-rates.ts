import { isRefusal, windowLimiter, type SharedCounters, type WindowLimiter } from './flexible-limiters.js';
import type { LimitSubjectKind } from './reservation.js';

/** A per-minute limit of a key or member (docs/limits.md, "Rates"). */
export interface RateRule {
  limitId: string;
  subject: { kind: LimitSubjectKind; id: string };
  metric: 'requests' | 'tokens';
  perMinute: number;
}

export interface RateRefusal {
  rule: RateRule;
  /** Whole seconds, at least 1: until the rule's minute ends. */
  retryAfterSeconds: number;
}

/** Limiters kept (one per metric and amount); past this the oldest is dropped and a new one made when needed. */
const MAX_LIMITERS = 1_000;

/**
 * Request and token rates per minute: a fixed 60-second window per limit, counted in Redis when
 * configured (every instance draws on one count) and in this process otherwise, or while Redis
 * does not answer (limits/flexible-limiters.ts). A request takes its points from every rule that
 * applies, or from none: when one refuses, what the others (and the refusing one) counted is
 * given back, so a refused request never uses up room.
 */
export class MinuteRates {
  private readonly limiters = new Map<string, WindowLimiter>();

  constructor(private readonly redis?: SharedCounters) {}

  /** Takes `points` from every rule; the first refusal, or undefined when all allow them. */
  async take(rules: readonly RateRule[], points: number): Promise<RateRefusal | undefined> {
    const taken: Array<[WindowLimiter, string]> = [];
    const amount = Math.max(1, Math.ceil(points));
    for (const rule of rules) {
      const limiter = this.limiter(rule);
      try {
        await limiter.consume(rule.limitId, amount);
        taken.push([limiter, rule.limitId]);
      } catch (rejection) {
        // Anything but a refusal is a failure of the limiter itself: the request is let through.
        if (!isRefusal(rejection)) continue;
        taken.push([limiter, rule.limitId]);
        await Promise.all(taken.map(([l, key]) => l.reward(key, amount).catch(() => undefined)));
        return { rule, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
    }
    return undefined;
  }

  /**
   * One limiter per metric and amount. Counters are keyed by limit id under one prefix per
   * metric, so in Redis a limit whose amount changes keeps its count.
   */
  private limiter(rule: RateRule): WindowLimiter {
    const id = `${rule.metric}:${rule.perMinute}`;
    let limiter = this.limiters.get(id);
    if (limiter) return limiter;
    limiter = windowLimiter(rule.perMinute, 60, `limits:${rule.metric}:`, this.redis);
    this.limiters.set(id, limiter);
    if (this.limiters.size > MAX_LIMITERS) this.limiters.delete(this.limiters.keys().next().value!);
    return limiter;
  }
}
