import { resolve } from 'node:path';
import { readDomainSettings, type DomainSettings } from './domain-settings.js';
import { readTlsSettings, type TlsSettings } from './tls-settings.js';
import {
  readAddressPenaltySettings,
  readConnectionSettings,
  type AddressPenaltySettings,
  type ConnectionSettings,
} from './connection-settings.js';
import { readHardeningSettings, type HardeningSettings } from './hardening-settings.js';
import { readOffloadSettings, readRouteBodyLimits, type RouteBodyLimits } from './route-limits.js';
import type { OffloadSettings } from './offload-settings.js';
import { readSurfaces, type SurfaceName } from './surface-settings.js';
import { readTrustedProxies, type TrustedProxyRange } from './trusted-proxy-settings.js';
import { readAccessLogSettings, type AccessLogSettings } from './access-log-settings.js';
import { readUpstreamLimits, type UpstreamLimits } from './upstream-limits-settings.js';
import { readDebugCaptureSettings, type DebugCaptureSettings } from './debug-capture-settings.js';

/** Process settings, read once from the environment at start-up. */
export interface Settings {
  host: string;
  gatewayPort: number;
  consolePort: number;
  collectorPort: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL schema (created if missing), so several deployments or test runs share one database. */
  databaseSchema: string | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** Names of the generated certificate, the operator's CA (docs/configuration.md, "TLS"). */
  tls: TlsSettings;
  secretKey: string | undefined;
  /** GATEWAY_SECRET_KEY_PREVIOUS: older master keys still accepted (a rotation in progress). */
  secretKeyPrevious: string | undefined;
  /** GATEWAY_SECRET_KEY_FILE: a keyring file re-read on every reload (docs/configuration.md). */
  secretKeyFile: string | undefined;
  configFile: string | undefined;
  /** How often each instance checks whether a reload was asked for from the console (GATEWAY_RELOAD_POLL_MS). */
  reloadPollMs: number;
  logLevel: string;
  /** One line per request on every listener, and the gateway's stored refusals (docs/configuration.md, "Access log"). */
  accessLog: AccessLogSettings;
  /** Every listener's body limit, and the gateway routes' unless set per route. */
  bodyLimitBytes: number;
  /** Body limits of the gateway routes that take big inputs (docs/configuration.md). */
  routeBodyLimits: RouteBodyLimits;
  /** The worker pool for big inputs: threads, queue, size threshold (docs/configuration.md). */
  offload: OffloadSettings;
  /** How often another instance's key changes are picked up (multi-instance); see docs/decisions.md. */
  keyCacheTtlMs: number;
  /** Concurrent gateway requests per instance before 503 overloaded. */
  maxConcurrency: number;
  /** A budget reservation never settled (its process died) is released after this long. */
  reservationTtlMs: number;
  /** How often this instance's sweeper releases expired reservations (any instance's). */
  sweepIntervalMs: number;
  /** Prometheus `/metrics` (docs/configuration.md, "Metrics"). */
  metrics: MetricsSettings;
  /** Load the tokenizer vocabularies before listening instead of on first use (docs/decisions.md). */
  preloadTokenizers: boolean;
  /** Project domains: development mode, resolvers and limits of the ownership checks. */
  domains: DomainSettings;
  /** Timeouts and caps of every listener's connections (docs/configuration.md, "Connections"). */
  connections: ConnectionSettings;
  /** The address penalty box (docs/configuration.md, "Connections"). */
  addressPenalty: AddressPenaltySettings;
  /** Load balancers whose `X-Forwarded-For` names the client (`GATEWAY_TRUSTED_PROXIES`); empty: none. */
  trustedProxies: TrustedProxyRange[];
  /** JSON depth, pending gateway-tool ids (docs/configuration.md, "Input bounds"). */
  hardening: HardeningSettings;
  /** Listeners this process serves (`GATEWAY_SURFACES`); the others are not loaded. */
  surfaces: ReadonlySet<SurfaceName>;
  /** What is held of an upstream's answer (docs/configuration.md, "Upstream answer bounds"). */
  upstreamLimits: UpstreamLimits;
  /** Retention and caps of debug capture (docs/debug-capture.md). */
  debugCapture: DebugCaptureSettings;
}

export interface MetricsSettings {
  /** Serve `/metrics` on the gateway, console and collector listeners. */
  public: boolean;
  /** A separate HTTPS listener serving only `/metrics`; undefined: none. */
  port: number | undefined;
  host: string;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
}

export class SettingsError extends Error {}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new SettingsError(`${name} must be an integer port between 0 and 65535, got "${raw}"`);
  }
  return value;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new SettingsError(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new SettingsError(`${name} must be true or false, got "${raw}"`);
}

function metricsSettings(env: NodeJS.ProcessEnv): MetricsSettings {
  const separatePort =
    env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : port(env, 'METRICS_PORT', 0);
  return {
    // With a separate metrics listener, the public listeners stop serving /metrics unless asked to.
    public: flag(env, 'METRICS_PUBLIC', separatePort === undefined),
    port: separatePort,
    host: env.METRICS_HOST || env.GATEWAY_HOST || '127.0.0.1',
    token: env.METRICS_TOKEN || undefined,
  };
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const tlsCertFile = env.TLS_CERT_FILE || undefined;
  const tlsKeyFile = env.TLS_KEY_FILE || undefined;
  if (Boolean(tlsCertFile) !== Boolean(tlsKeyFile)) {
    throw new SettingsError('TLS_CERT_FILE and TLS_KEY_FILE must be given together');
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new SettingsError(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite store)',
    );
  }
  return {
    host: env.GATEWAY_HOST || '127.0.0.1',
    gatewayPort: port(env, 'GATEWAY_PORT', 8443),
    consolePort: port(env, 'CONSOLE_PORT', 8444),
    collectorPort: port(env, 'COLLECTOR_PORT', 8445),
    dataDir: resolve(env.GATEWAY_DATA_DIR || './.gateway-data'),
    databaseUrl,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    tlsCertFile,
    tlsKeyFile,
    tls: readTlsSettings(env),
    secretKey: env.GATEWAY_SECRET_KEY || undefined,
    secretKeyPrevious: env.GATEWAY_SECRET_KEY_PREVIOUS || undefined,
    secretKeyFile: env.GATEWAY_SECRET_KEY_FILE || undefined,
    configFile: env.GATEWAY_CONFIG || undefined,
    reloadPollMs: positiveInt(env, 'GATEWAY_RELOAD_POLL_MS', 2000),
    logLevel: env.LOG_LEVEL || 'info',
    accessLog: readAccessLogSettings(env),
    bodyLimitBytes: positiveInt(env, 'GATEWAY_BODY_LIMIT_BYTES', 10 * 1024 * 1024),
    routeBodyLimits: readRouteBodyLimits(env, positiveInt(env, 'GATEWAY_BODY_LIMIT_BYTES', 10 * 1024 * 1024)),
    offload: readOffloadSettings(env),
    keyCacheTtlMs: positiveInt(env, 'GATEWAY_KEY_CACHE_TTL_MS', 1000),
    maxConcurrency: positiveInt(env, 'GATEWAY_MAX_CONCURRENCY', 4096),
    reservationTtlMs: positiveInt(env, 'GATEWAY_RESERVATION_TTL_MS', 15 * 60 * 1000),
    sweepIntervalMs: positiveInt(env, 'GATEWAY_SWEEP_INTERVAL_MS', 30_000),
    metrics: metricsSettings(env),
    preloadTokenizers: flag(env, 'GATEWAY_PRELOAD_TOKENIZERS', false),
    domains: readDomainSettings(env),
    connections: readConnectionSettings(env),
    addressPenalty: readAddressPenaltySettings(env),
    trustedProxies: readTrustedProxies(env),
    hardening: readHardeningSettings(env),
    surfaces: readSurfaces(env),
    upstreamLimits: readUpstreamLimits(env),
    debugCapture: readDebugCaptureSettings(env),
  };
}
