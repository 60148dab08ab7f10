import { SettingsError } from './settings.js';

/** A budget of events: `rate` per second sustained, plus `burst` more per `burstWindowSeconds`. */
export interface EventBudget {
  /** Events per second (1-second windows); 0: no sustained rate, the burst alone is the budget. */
  rate: number;
  /** Extra events per burst window once the rate is used up; 0 with rate 0: no limit at all. */
  burst: number;
}

/**
 * The collector's defences against floods (docs/console-api.md, "Limits"): rate limits, sizes, the
 * stored-event quota and retention. Read at start-up like every setting; a bad value stops the
 * process with a message that names it.
 */
export interface CollectorLimitsSettings {
  /** `redis://…`: rate budgets shared by every instance using it. Unset: each instance counts in memory. */
  redisUrl: string | undefined;
  /** Prefix of the rate-limit keys in Redis, so deployments (or test runs) can share one server. */
  redisKeyPrefix: string;
  /** A Redis call slower than this counts as a failure and the in-memory budget decides instead. */
  redisTimeoutMs: number;
  /** Per client address (IPv4 address, IPv6 /64), across all projects. */
  address: EventBudget;
  /** Per project, across all addresses. */
  project: EventBudget;
  burstWindowSeconds: number;
  maxEventsPerRequest: number;
  /** UTF-8 bytes of one stored event (its JSON, merged context and kept members included). */
  maxEventBytes: number;
  /** Stored events per project; 0: no quota. */
  quotaEvents: number;
  /** Stored bytes (events' JSON) per project; 0: no quota. */
  quotaBytes: number;
  /** Events older than this many days are deleted; 0: kept forever. */
  retentionDays: number;
  retentionSweepMs: number;
  /** Rows per retention transaction. */
  retentionBatch: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new SettingsError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

export function readCollectorLimitsSettings(env: NodeJS.ProcessEnv = process.env): CollectorLimitsSettings {
  const redisUrl = env.GATEWAY_REDIS_URL?.trim() || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl))
    throw new SettingsError('GATEWAY_REDIS_URL must be a redis:// or rediss:// URL');
  return {
    redisUrl,
    redisKeyPrefix: env.GATEWAY_REDIS_KEY_PREFIX ?? 'gateway:',
    redisTimeoutMs: int(env, 'GATEWAY_REDIS_TIMEOUT_MS', 250, 1),
    address: {
      rate: int(env, 'GATEWAY_COLLECTOR_ADDRESS_RATE', 50, 0),
      burst: int(env, 'GATEWAY_COLLECTOR_ADDRESS_BURST', 500, 0),
    },
    project: {
      rate: int(env, 'GATEWAY_COLLECTOR_PROJECT_RATE', 500, 0),
      burst: int(env, 'GATEWAY_COLLECTOR_PROJECT_BURST', 5_000, 0),
    },
    burstWindowSeconds: int(env, 'GATEWAY_COLLECTOR_BURST_WINDOW_S', 60, 1, 86_400),
    maxEventsPerRequest: int(env, 'GATEWAY_COLLECTOR_MAX_EVENTS', 100, 1, 5_000),
    maxEventBytes: int(env, 'GATEWAY_COLLECTOR_MAX_EVENT_BYTES', 32 * 1024, 256),
    quotaEvents: int(env, 'GATEWAY_COLLECTOR_QUOTA_EVENTS', 1_000_000, 0),
    quotaBytes: int(env, 'GATEWAY_COLLECTOR_QUOTA_BYTES', 1024 ** 3, 0),
    retentionDays: int(env, 'GATEWAY_COLLECTOR_RETENTION_DAYS', 30, 0, 36_500),
    retentionSweepMs: int(env, 'GATEWAY_COLLECTOR_RETENTION_SWEEP_MS', 60_000, 10),
    retentionBatch: int(env, 'GATEWAY_COLLECTOR_RETENTION_BATCH', 200, 1, 5_000),
  };
}
