/** Collector and outbox settings, read from the environment at start-up (docs/console-api.md, "Collector"). */
export interface CollectorSettings {
  /** Allow webhook targets in private, loopback and reserved ranges, and plain http:// (development, tests). */
  webhookAllowPrivate: boolean;
  webhookTimeoutMs: number;
  bodyLimitBytes: number;
  /** Run the outbox worker in this process (on by default; several instances may all run it). */
  workerEnabled: boolean;
  leaseMs: number;
  pollMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxAttempts: number;
  /** How long the project lookup by Host is cached (changes made on this instance apply at once). */
  directoryTtlMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be 1 or 0, got "${env[name]}"`);
}

export function readCollectorSettings(env: NodeJS.ProcessEnv = process.env): CollectorSettings {
  const leaseMs = int(env, 'GATEWAY_OUTBOX_LEASE_MS', 60_000, 100);
  return {
    webhookAllowPrivate: flag(env, 'GATEWAY_WEBHOOK_ALLOW_PRIVATE', false),
    // A delivery must end well inside its lease, or another worker could claim it meanwhile.
    webhookTimeoutMs: Math.min(int(env, 'GATEWAY_WEBHOOK_TIMEOUT_MS', 10_000), Math.floor(leaseMs / 2)),
    bodyLimitBytes: int(env, 'GATEWAY_COLLECTOR_BODY_LIMIT_BYTES', 256 * 1024),
    workerEnabled: flag(env, 'GATEWAY_OUTBOX_WORKER', true),
    leaseMs,
    pollMs: int(env, 'GATEWAY_OUTBOX_POLL_MS', 500, 10),
    retryBaseMs: int(env, 'GATEWAY_OUTBOX_RETRY_BASE_MS', 1_000, 1),
    retryMaxMs: int(env, 'GATEWAY_OUTBOX_RETRY_MAX_MS', 600_000, 1),
    maxAttempts: int(env, 'GATEWAY_OUTBOX_MAX_ATTEMPTS', 20),
    directoryTtlMs: int(env, 'GATEWAY_COLLECTOR_CACHE_TTL_MS', 1_000),
  };
}
