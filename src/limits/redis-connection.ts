import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Loaded only when a Redis URL is configured: an instance that counts in memory never needs the client (~240 KB of modules). */
const loadRedis = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

/**
 * The Redis client of rate limits (the collector's budgets, the gateway's per-minute limits: one
 * connection each). Commands never wait for a connection: with
 * the offline queue off, a call while Redis is down fails at once, and a call that gets no
 * answer within `timeoutMs` fails too; the limiter then counts in memory (flexible-limiters.ts). The
 * client reconnects in the background, and one line is logged when Redis goes away and one
 * when it is back, not one per failed call.
 */
export class RedisConnection {
  readonly client: Redis;
  private up = false;
  private announcedDown = false;
  private closing = false;

  constructor(
    url: string,
    timeoutMs: number,
    logger: Logger,
    /** What is shared, for the log lines: 'collector rate limits'. */
    purpose = 'collector rate limits',
  ) {
    this.client = new (loadRedis())(url, {
      enableOfflineQueue: false,
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(1_000, timeoutMs * 4),
      maxRetriesPerRequest: 0,
      // Reconnect forever, at most every 5 s: the gateway keeps serving meanwhile.
      retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
    });
    this.client.on('ready', () => {
      this.up = true;
      if (this.announcedDown) logger.info(`Redis is back: ${purpose} are shared again`);
      this.announcedDown = false;
    });
    const down = (error?: Error) => {
      this.up = false;
      if (this.announcedDown || this.closing) return;
      this.announcedDown = true;
      logger.warn({ error: error?.message }, `Redis unreachable: ${purpose} count in this process until it is back`);
    };
    this.client.on('error', down);
    this.client.on('close', () => down());
  }

  /** Whether budgets are shared right now. */
  get shared(): boolean {
    return this.up;
  }

  close(): void {
    this.closing = true;
    this.client.disconnect();
  }
}
