import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { lookup as lookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';

/**
 * SSRF protection for webhook targets (OWASP API7): loopback, private, link-local, carrier-grade
 * NAT, multicast, documentation and other special-purpose ranges are refused unless the
 * operator allows them (GATEWAY_WEBHOOK_ALLOW_PRIVATE=1, for local development and tests).
 * Every address a name resolves to is checked, at configuration time and again at delivery
 * time, where the connection is pinned to the checked address (no DNS-rebinding window).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return !blocked.check(mapped[1]!, 'ipv4');
    if (/^::ffff:/i.test(address)) return false;
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

export class UnsafeTargetError extends Error {}

export interface TargetPolicy {
  allowPrivate: boolean;
}

/** Checks a webhook URL: https (http only when private targets are allowed), and where it points. */
export async function checkWebhookUrl(raw: string, policy: TargetPolicy): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowPrivate))
    throw new UnsafeTargetError('must be an https:// URL');
  if (url.username || url.password) throw new UnsafeTargetError('must not carry credentials');
  if (policy.allowPrivate) return;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw new UnsafeTargetError('points to a private or reserved address');
    return;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new UnsafeTargetError(`host ${host} does not resolve`);
  }
  // The message names the host the caller gave, never the address it resolved to: telling which
  // internal address a name points at would turn this check into a probe of the internal network.
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))
    throw new UnsafeTargetError(`host ${host} resolves to a private or reserved address`);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connect options: resolves every address, refuses the connection if
 * any is private, and connects to the first checked one.
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookupCallback(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses as unknown as LookupAddress[];
      const refused = list.find((a) => !isPublicAddress(a.address));
      if (!policy.allowPrivate && (list.length === 0 || refused)) {
        const blockedError = Object.assign(
          new Error(`webhook host ${hostname} resolves to a private or reserved address`),
          { code: 'EADDRNOTALLOWED' },
        );
        return callback(blockedError, '');
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}
