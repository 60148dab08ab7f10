import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate-limit key of a client address. An IPv4 address (also when written as an
 * IPv4-mapped IPv6 address) is its own key; an IPv6 address is keyed by its /64, the block a
 * single subscriber usually gets, so one client cannot step around its limit by rotating
 * through the 2^64 addresses it owns.
 */
export function addressKey(ip: string): string {
  if (ip.startsWith('::ffff:') && isIPv4(ip.slice(7))) return ip.slice(7);
  if (!isIPv6(ip)) return ip;
  const groups = ipv6Groups(ip);
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address ("::" expanded, a dotted IPv4 tail converted). */
function ipv6Groups(ip: string): number[] {
  const zone = ip.indexOf('%');
  const address = zone >= 0 ? ip.slice(0, zone) : ip;
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = address.indexOf('::');
  if (gap < 0) return parse(address);
  const head = parse(address.slice(0, gap));
  const tail = parse(address.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}
