import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Settings } from '../config/settings.js';
import { readCollectorLimitsSettings } from '../config/collector-limits-settings.js';
import { LimitClock } from '../limits/limit-clock.js';
import { KeyLimitDirectory } from '../limits/key-limits.js';
import { MinuteRates } from '../limits/minute-rates.js';
import { RedisConnection } from '../limits/redis-connection.js';
import { currentLimitsOf, type TouchedLimit } from '../limits/touched-limits.js';
import { WindowLimits } from '../store/window-limits.js';

/** The windowed spend limits and per-minute rates of keys, members and groups (docs/limits.md), built once. */
export interface SpendLimits {
  clock: LimitClock;
  directory: KeyLimitDirectory;
  /** The limits that apply now to keys whose spend settled, with their windows' spend: what the alerts watch. */
  current(
    keys: ReadonlyArray<{ id: string; organizationId: string; memberId: string | null }>,
  ): Promise<TouchedLimit[]>;
  /** Closes the Redis connection of the per-minute rates, if any. */
  close(): void;
}

export function createSpendLimits(
  store: Store,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): SpendLimits {
  const clock = new LimitClock();
  const redisSettings = readCollectorLimitsSettings(env);
  // Rates are shared through Redis when it is configured; only the gateway takes them.
  const redis =
    redisSettings.redisUrl && settings.surfaces.has('gateway')
      ? new RedisConnection(
          redisSettings.redisUrl,
          redisSettings.redisTimeoutMs,
          logger,
          'per-minute key and member limits',
        )
      : undefined;
  const windows = new WindowLimits(store);
  const directory = new KeyLimitDirectory(
    windows,
    new MinuteRates(redis && { client: redis.client, keyPrefix: redisSettings.redisKeyPrefix }),
    clock,
  );
  return {
    clock,
    directory,
    current: (keys) => currentLimitsOf(directory, windows, keys),
    close: () => redis?.close(),
  };
}
