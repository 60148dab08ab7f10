import { boundedInt } from './bounded-int.js';

/** Which requests the access log writes (GATEWAY_ACCESS_LOG). */
export type AccessLogMode = 'off' | 'errors' | 'all';

/** The access log of every listener and the stored refusals of the gateway; docs/configuration.md, "Access log". */
export interface AccessLogSettings {
  mode: AccessLogMode;
  /** Share of answered requests (status below 400) logged in `all` mode; refusals and failures always are. */
  sample: number;
  /** The pino level of the lines (scrapes of /metrics and the API documents go at debug). */
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Refused gateway requests of one key stored for the console's Logs page, per minute and process. */
  storedRefusalsPerKeyPerMinute: number;
  /** Rows of refused or failed requests that cost nothing are deleted after this many days. */
  refusalRetentionDays: number;
}

const MODES: readonly AccessLogMode[] = ['off', 'errors', 'all'];
const LEVELS: ReadonlyArray<AccessLogSettings['level']> = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export const ACCESS_LOG_DEFAULTS: AccessLogSettings = {
  mode: 'all',
  sample: 1,
  level: 'info',
  storedRefusalsPerKeyPerMinute: 60,
  refusalRetentionDays: 30,
};

export function readAccessLogSettings(env: NodeJS.ProcessEnv = process.env): AccessLogSettings {
  return {
    mode: oneOf(env, 'GATEWAY_ACCESS_LOG', MODES, ACCESS_LOG_DEFAULTS.mode),
    sample: fraction(env, 'GATEWAY_ACCESS_LOG_SAMPLE', ACCESS_LOG_DEFAULTS.sample),
    level: oneOf(env, 'GATEWAY_ACCESS_LOG_LEVEL', LEVELS, ACCESS_LOG_DEFAULTS.level),
    storedRefusalsPerKeyPerMinute: boundedInt(
      env,
      'GATEWAY_STORED_REFUSALS_PER_KEY_PER_MINUTE',
      ACCESS_LOG_DEFAULTS.storedRefusalsPerKeyPerMinute,
      0,
      100_000,
    ),
    refusalRetentionDays: boundedInt(
      env,
      'GATEWAY_REFUSAL_RETENTION_DAYS',
      ACCESS_LOG_DEFAULTS.refusalRetentionDays,
      1,
      3_660,
    ),
  };
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function fraction(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw new Error(`${name} must be a number from 0 to 1, got "${raw}"`);
  return value;
}
