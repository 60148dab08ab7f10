import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { IRateLimiterOptions } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

// The classes used, each from its own file: the package's entry loads the limiters of every
// store it supports (Mongo, MySQL, Postgres, DynamoDB, Prisma, etc., ~150 KB of modules). Loaded
// on first use: a gateway whose keys have no per-minute limit never loads them.
const require = createRequire(import.meta.url);
const load = <T>(file: string) => {
  let loaded: T | undefined;
  return () => (loaded ??= require(`rate-limiter-flexible/lib/${file}`) as T);
};
const loadBursty = load<typeof Flexible.BurstyRateLimiter>('BurstyRateLimiter');
const loadMemory = load<typeof Flexible.RateLimiterMemory>('RateLimiterMemory');
const loadRes = load<typeof Flexible.RateLimiterRes>('RateLimiterRes');
const loadRateLimiterRedis = load<typeof Flexible.RateLimiterRedis>('RateLimiterRedis');

/** Whether a limiter's rejection is a refusal (the budget is used up), not a failure of the limiter. */
export function isRefusal(rejection: unknown): rejection is Flexible.RateLimiterRes {
  return rejection instanceof loadRes();
}

/** A limiter that takes from `rate` first, then from `burst`. */
export function burstyLimiter(rate: WindowLimiter, burst: WindowLimiter): Flexible.BurstyRateLimiter {
  return new (loadBursty())(rate, burst);
}

/** Where shared counters live; without it each instance counts in memory. */
export interface SharedCounters {
  client: Redis;
  keyPrefix: string;
}

export type WindowLimiter = Flexible.RateLimiterAbstract;

/**
 * A fixed-window limiter of `points` per `durationSeconds` (the window starts at a key's first
 * point). With Redis the counters live there (an atomic Lua increment per call), so every
 * instance draws on the same budget; the Redis limiter has an in-memory twin as its insurance
 * limiter, which answers whenever a Redis call fails or times out (fail open to a per-instance
 * budget, see docs/decisions.md).
 */
export function windowLimiter(
  points: number,
  durationSeconds: number,
  name: string,
  redis: SharedCounters | undefined,
): WindowLimiter {
  const options: IRateLimiterOptions = { points, duration: durationSeconds, keyPrefix: name };
  const memory = new (loadMemory())(options);
  if (!redis) return memory;
  return new (loadRateLimiterRedis())({
    ...options,
    keyPrefix: `${redis.keyPrefix}${name}`,
    storeClient: redis.client,
    // Not connected: straight to the insurance limiter instead of waiting.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}
