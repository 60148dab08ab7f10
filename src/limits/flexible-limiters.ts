import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { IRateLimiterOptions } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

// The classes used, each from its own file: the package's entry loads the limiters of every
// store it supports (Mongo, MySQL, Postgres, DynamoDB, Prisma, etc., ~150 KB of modules).
const require = createRequire(import.meta.url);
export const BurstyRateLimiter =
  require('rate-limiter-flexible/lib/BurstyRateLimiter') as typeof Flexible.BurstyRateLimiter;
const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory') as typeof Flexible.RateLimiterMemory;
export const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes') as typeof Flexible.RateLimiterRes;
const loadRateLimiterRedis = () =>
  require('rate-limiter-flexible/lib/RateLimiterRedis') as typeof Flexible.RateLimiterRedis;

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
  const memory = new RateLimiterMemory(options);
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
