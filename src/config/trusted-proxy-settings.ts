import { isIP } from 'node:net';

/** One entry of `GATEWAY_TRUSTED_PROXIES`: an address, or a network with its prefix length. */
export interface TrustedProxyRange {
  address: string;
  family: 'ipv4' | 'ipv6';
  /** 32 (IPv4) or 128 (IPv6) for a single address. */
  prefix: number;
}

export class TrustedProxySettingsError extends Error {}

/**
 * `GATEWAY_TRUSTED_PROXIES`: comma-separated addresses and CIDR networks (IPv4 and IPv6) of the
 * load balancers and reverse proxies whose `X-Forwarded-For` is believed (docs/configuration.md,
 * "Trusted proxies"). Default: none, so a client's own `X-Forwarded-For` never changes the
 * address its limits count against.
 */
export function readTrustedProxies(env: NodeJS.ProcessEnv): TrustedProxyRange[] {
  const raw = env.GATEWAY_TRUSTED_PROXIES?.trim();
  if (!raw) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(parseRange);
}

function parseRange(entry: string): TrustedProxyRange {
  const [address = '', prefixText, extra] = entry.split('/');
  const version = isIP(address);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (version === 0 || extra !== undefined || !(prefix >= 0 && prefix <= bits))
    throw new TrustedProxySettingsError(
      `GATEWAY_TRUSTED_PROXIES: "${entry}" is not an IPv4 or IPv6 address or CIDR network (e.g. 10.0.0.0/8, 2001:db8::/32, 192.0.2.10)`,
    );
  return { address, family, prefix };
}
