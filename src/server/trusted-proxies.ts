import { BlockList } from 'node:net';
import type { TrustedProxyRange } from '../config/trusted-proxy-settings.js';

/** Whether a peer (a socket's address, or a hop of `X-Forwarded-For`) is one of the trusted proxies. */
export type TrustedProxy = (address: string | undefined) => boolean;

/**
 * The matcher of `GATEWAY_TRUSTED_PROXIES`, or undefined when none is set: then nothing is
 * trusted and no listener reads `X-Forwarded-For` at all. Node's BlockList does the matching
 * (IPv4-mapped IPv6 peers such as `::ffff:10.0.0.5` match IPv4 networks; anything that is not an
 * address, e.g. an `unknown` hop, matches nothing).
 */
export function trustedProxyMatcher(ranges: readonly TrustedProxyRange[]): TrustedProxy | undefined {
  if (ranges.length === 0) return undefined;
  const list = new BlockList();
  for (const { address, family, prefix } of ranges) list.addSubnet(address, prefix, family);
  return (address) => address !== undefined && list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}
