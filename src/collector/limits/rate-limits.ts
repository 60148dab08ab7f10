import type * as Flexible from 'rate-limiter-flexible';
import type { EventBudget } from '../../config/collector-limits-settings.js';
import { burstyLimiter, isRefusal, windowLimiter, type SharedCounters } from '../../limits/flexible-limiters.js';
import { addressKey } from './client-address.js';

export type RateScope = 'address' | 'project';

export interface RateRefusal {
  scope: RateScope;
  /** Whole seconds, at least 1: the Retry-After header. */
  retryAfterSeconds: number;
}

export interface RateLimitOptions {
  address: EventBudget;
  project: EventBudget;
  burstWindowSeconds: number;
  /** Shared budgets; without it each instance counts in memory. */
  redis?: SharedCounters | undefined;
}

interface Limiter {
  consume(key: string, points: number): Promise<Flexible.RateLimiterRes>;
}

/** Entries kept in the local block list before the oldest are dropped (each is a few dozen bytes). */
const MAX_BLOCKED_KEYS = 100_000;

/**
 * The collector's rate limits, counted in events (a request of n events consumes n points, at
 * least 1): one budget per client address across all projects, one per project across all
 * addresses. A budget is rate-limiter-flexible's BurstyRateLimiter: `rate` points per 1-second
 * window, and once they are used, up to `burst` more per burst window. With Redis the counters
 * live there (an atomic Lua increment per call), so every instance draws on the same budget;
 * each Redis limiter has an in-memory twin as its insurance limiter (limits/flexible-limiters.ts).
 *
 * A refusal is also remembered here until the budget's window ends: later requests of that
 * address or project are refused from this list when they arrive (`blocked`), before their
 * body is read or parsed, so a flood costs neither parsing nor a Redis call per request.
 */
export class CollectorRateLimits {
  private readonly address: Limiter | undefined;
  private readonly project: Limiter | undefined;
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.address = budgetLimiter(options.address, options.burstWindowSeconds, 'collector:address', options.redis);
    this.project = budgetLimiter(options.project, options.burstWindowSeconds, 'collector:project', options.redis);
  }

  /** A refusal remembered for this project or address, without counting anything. */
  blocked(projectId: string, ip: string): RateRefusal | undefined {
    if (this.blockedUntil.size === 0) return undefined;
    return this.remembered(`a ${addressKey(ip)}`, 'address') ?? this.remembered(`p ${projectId}`, 'project');
  }

  /** Counts `events` against the address's budget, then the project's; undefined when both allow them. */
  async consume(projectId: string, ip: string, events: number): Promise<RateRefusal | undefined> {
    const points = Math.max(1, events);
    return (
      (await this.take(this.address, `a ${addressKey(ip)}`, points, 'address')) ??
      (await this.take(this.project, `p ${projectId}`, points, 'project'))
    );
  }

  private async take(
    limiter: Limiter | undefined,
    key: string,
    points: number,
    scope: RateScope,
  ): Promise<RateRefusal | undefined> {
    if (!limiter) return undefined;
    try {
      await limiter.consume(key, points);
      return undefined;
    } catch (rejection) {
      // Anything but a refusal is a failure of the limiter itself: the request is let through.
      if (!isRefusal(rejection)) return undefined;
      const waitMs = Math.max(1, rejection.msBeforeNext);
      this.remember(key, this.now() + waitMs);
      return { scope, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
  }

  private remembered(key: string, scope: RateScope): RateRefusal | undefined {
    const until = this.blockedUntil.get(key);
    if (until === undefined) return undefined;
    const waitMs = until - this.now();
    if (waitMs <= 0) {
      this.blockedUntil.delete(key);
      return undefined;
    }
    return { scope, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  private remember(key: string, until: number): void {
    this.blockedUntil.delete(key);
    this.blockedUntil.set(key, until);
    if (this.blockedUntil.size <= MAX_BLOCKED_KEYS) return;
    // Oldest refusals first (insertion order): drop the expired ones, and the oldest if still too many.
    const now = this.now();
    for (const [oldKey, oldUntil] of this.blockedUntil) {
      if (this.blockedUntil.size <= MAX_BLOCKED_KEYS / 2) break;
      if (oldUntil <= now || this.blockedUntil.size > MAX_BLOCKED_KEYS) this.blockedUntil.delete(oldKey);
    }
  }
}

/** undefined: no limit (rate and burst both 0). */
function budgetLimiter(
  budget: EventBudget,
  burstWindowSeconds: number,
  name: string,
  redis: RateLimitOptions['redis'],
): Limiter | undefined {
  const make = (points: number, duration: number, kind: string) =>
    windowLimiter(points, duration, `${name}:${kind}`, redis);
  if (budget.rate === 0 && budget.burst === 0) return undefined;
  if (budget.rate === 0) return make(budget.burst, burstWindowSeconds, 'burst');
  const rate = make(budget.rate, 1, 'rate');
  if (budget.burst === 0) return rate;
  return burstyLimiter(rate, make(budget.burst, burstWindowSeconds, 'burst'));
}
