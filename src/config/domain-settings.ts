import { readFileSync } from 'node:fs';
import { Resolver } from 'node:dns';

/**
 * Project domains and their ownership checks (docs/configuration.md, "Project domains";
 * docs/console-api.md, "Project domains"). Read once at start-up.
 */
export interface DomainSettings {
  /**
   * `development` (GATEWAY_ENV=development) lets an organization use local and reserved test
   * names (localhost, *.localhost, *.test, *.example, *.invalid, loopback addresses) without
   * proving control; `production` (the default) refuses them.
   */
  mode: 'development' | 'production';
  /** Resolvers for the ownership checks (`host` or `host:port`); empty: the system's. */
  dnsServers: string[];
  /** Whole-check budget of one verification (DNS and the well-known file each get it). */
  verifyTimeoutMs: number;
  /** Let the well-known file be fetched from private, loopback and reserved addresses (tests, labs). */
  allowPrivate: boolean;
  /** Port of the well-known HTTPS check; 443 except in tests. */
  httpsPort: number;
  /** Extra trusted CA certificates (PEM) for the well-known HTTPS check, e.g. an internal PKI. */
  extraCa: string | undefined;
  /** Verifications in flight per instance; more get 429. */
  maxConcurrentChecks: number;
}

export class DomainSettingsError extends Error {}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > max)
    throw new DomainSettingsError(`${name} must be an integer between 1 and ${max}, got "${raw}"`);
  return value;
}

function mode(env: NodeJS.ProcessEnv): DomainSettings['mode'] {
  const raw = (env.GATEWAY_ENV ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'production') return 'production';
  if (raw === 'development') return 'development';
  throw new DomainSettingsError(`GATEWAY_ENV must be production or development, got "${env.GATEWAY_ENV}"`);
}

function dnsServers(env: NodeJS.ProcessEnv): string[] {
  const servers = (env.GATEWAY_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // The resolver itself is the parser: a value it refuses fails the start, not the first check.
  try {
    if (servers.length > 0) new Resolver().setServers(servers);
  } catch {
    throw new DomainSettingsError(
      `GATEWAY_DNS_SERVERS must be a comma-separated list of IP addresses with optional ports (1.1.1.1, 127.0.0.1:5353, [::1]:53), got "${env.GATEWAY_DNS_SERVERS}"`,
    );
  }
  return servers;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || ['0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  throw new DomainSettingsError(`${name} must be 1 or 0, got "${env[name]}"`);
}

export function readDomainSettings(env: NodeJS.ProcessEnv = process.env): DomainSettings {
  const caFile = env.GATEWAY_DOMAIN_VERIFY_CA_FILE || undefined;
  let extraCa: string | undefined;
  if (caFile) {
    try {
      extraCa = readFileSync(caFile, 'utf8');
    } catch {
      throw new DomainSettingsError(`GATEWAY_DOMAIN_VERIFY_CA_FILE cannot be read: ${caFile}`);
    }
  }
  return {
    mode: mode(env),
    dnsServers: dnsServers(env),
    verifyTimeoutMs: positiveInt(env, 'GATEWAY_DOMAIN_VERIFY_TIMEOUT_MS', 5_000, 60_000),
    allowPrivate: flag(env, 'GATEWAY_DOMAIN_VERIFY_ALLOW_PRIVATE'),
    httpsPort: positiveInt(env, 'GATEWAY_DOMAIN_VERIFY_HTTPS_PORT', 443, 65_535),
    extraCa,
    maxConcurrentChecks: positiveInt(env, 'GATEWAY_DOMAIN_VERIFY_CONCURRENCY', 16, 1_000),
  };
}
