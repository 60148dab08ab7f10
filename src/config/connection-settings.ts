import { readFileSync } from 'node:fs';

/**
 * How long a client may take over each phase of a connection, and how many connections one
 * instance and one client address may hold (docs/configuration.md, "Connections"). Applied to
 * every listener: gateway, console, collector and the optional metrics listener.
 */
export interface ConnectionSettings {
  /** From the TCP accept to the first byte, and again from the first byte to the end of the TLS handshake. */
  handshakeTimeoutMs: number;
  /** From the end of the handshake (first request) or a request's first byte (later ones) to the end of its headers. */
  headersTimeoutMs: number;
  /** A request body may stall this long at its start; every `bodyMinBytesPerSecond` bytes received add a second. */
  bodyTimeoutMs: number;
  bodyMinBytesPerSecond: number;
  /** A connection with no request in progress is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Open connections across all listeners of this instance; beyond it new ones are closed at once. */
  maxConnections: number;
  /** Open connections from one client address (IPv6: one /64) across all listeners; 0: no per-address cap. */
  maxConnectionsPerAddress: number;
}

export const CONNECTION_DEFAULTS: ConnectionSettings = {
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 20_000,
  bodyMinBytesPerSecond: 8 * 1024,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 256,
};

/**
 * The address penalty box (src/server/address-penalties.ts, docs/configuration.md,
 * "Connections"): an address whose connections keep missing the handshake or header deadline
 * without completing a request is refused on accept for a while.
 */
export interface AddressPenaltySettings {
  /** Such cuts within `windowMs` that put an address in the box; 0: never. */
  cuts: number;
  windowMs: number;
  /** How long a boxed address is refused. */
  cooldownMs: number;
  /**
   * Requests within `windowMs` that came while the address was told to wait (a collector 429
   * with Retry-After) that put it in the box; 0: never.
   */
  ignoredRefusals: number;
}

export const ADDRESS_PENALTY_DEFAULTS: AddressPenaltySettings = {
  cuts: 8,
  windowMs: 60_000,
  cooldownMs: 60_000,
  ignoredRefusals: 1_000,
};

/**
 * File descriptors kept back from the connection cap for everything else the process opens:
 * database connections, upstream keep-alive pools, webhook deliveries, log and data files.
 */
export const RESERVED_FILE_DESCRIPTORS = 1024;

export class ConnectionSettingsError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConnectionSettingsError(`${name} must be an integer ${min === 0 ? '≥ 0' : `≥ ${min}`}, got "${raw}"`);
  }
  return value;
}

export function readConnectionSettings(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const d = CONNECTION_DEFAULTS;
  return {
    handshakeTimeoutMs: integer(env, 'GATEWAY_HANDSHAKE_TIMEOUT_MS', d.handshakeTimeoutMs, 1),
    headersTimeoutMs: integer(env, 'GATEWAY_HEADERS_TIMEOUT_MS', d.headersTimeoutMs, 1),
    bodyTimeoutMs: integer(env, 'GATEWAY_BODY_TIMEOUT_MS', d.bodyTimeoutMs, 1),
    bodyMinBytesPerSecond: integer(env, 'GATEWAY_BODY_MIN_BYTES_PER_SECOND', d.bodyMinBytesPerSecond, 1),
    keepAliveTimeoutMs: integer(env, 'GATEWAY_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs, 1),
    maxConnections: integer(env, 'GATEWAY_MAX_CONNECTIONS', d.maxConnections, 1),
    maxConnectionsPerAddress: integer(env, 'GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', d.maxConnectionsPerAddress, 0),
  };
}

export function readAddressPenaltySettings(env: NodeJS.ProcessEnv = process.env): AddressPenaltySettings {
  const d = ADDRESS_PENALTY_DEFAULTS;
  return {
    cuts: integer(env, 'GATEWAY_ADDRESS_PENALTY_CUTS', d.cuts, 0),
    windowMs: integer(env, 'GATEWAY_ADDRESS_PENALTY_WINDOW_MS', d.windowMs, 1),
    cooldownMs: integer(env, 'GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS', d.cooldownMs, 1),
    ignoredRefusals: integer(env, 'GATEWAY_ADDRESS_PENALTY_IGNORED_REFUSALS', d.ignoredRefusals, 0),
  };
}

/**
 * The process's soft limit on open files (Linux `/proc/self/limits`; Node raises the soft limit
 * to the hard one at start-up), or undefined where it cannot be read.
 */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const value = Number(soft);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connection cap that fits the file-descriptor limit: connections beyond the limit would make
 * `accept()` and every database or upstream socket fail for everyone, so the cap is lowered to
 * leave RESERVED_FILE_DESCRIPTORS free (never below 64).
 */
export function fitConnectionCap(
  maxConnections: number,
  fileLimit: number | undefined,
): { cap: number; lowered: boolean } {
  if (fileLimit === undefined) return { cap: maxConnections, lowered: false };
  const room = Math.max(64, fileLimit - RESERVED_FILE_DESCRIPTORS);
  return maxConnections > room ? { cap: room, lowered: true } : { cap: maxConnections, lowered: false };
}
