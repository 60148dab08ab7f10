import { isIPv6, type Socket } from 'node:net';
import { connectionsOpen, connectionsRefused, type RefusalReason } from '../metrics/connection-metrics.js';
import type { AddressPenalties } from './address-penalties.js';

export interface ConnectionCaps {
  /** Open connections across every listener of the instance. */
  maxConnections: number;
  /** Open connections from one client address across every listener; 0: no per-address cap. */
  maxConnectionsPerAddress: number;
}

/**
 * Caps on open connections, shared by every listener of one instance: file descriptors and
 * TLS buffers (~50 KB a connection) are the process's, whichever port a client picked. A
 * connection beyond a cap, or from an address in the listener's penalty box
 * (address-penalties.ts), is reset on accept, before any TLS work is spent on it.
 */
export class ConnectionGate {
  private open = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(private readonly caps: ConnectionCaps) {}

  get openConnections(): number {
    return this.open;
  }

  /**
   * Counts the socket until it closes, or resets it at once and returns false. `penalties` is
   * the box of the listener that accepted it: the caps are the instance's, penalties are not.
   */
  admit(socket: Socket, surface: string, penalties?: AddressPenalties): boolean {
    const address = addressKey(socket.remoteAddress);
    const fromAddress = this.perAddress.get(address) ?? 0;
    const refusal: RefusalReason | undefined =
      this.open >= this.caps.maxConnections
        ? 'instance_cap'
        : this.caps.maxConnectionsPerAddress > 0 && fromAddress >= this.caps.maxConnectionsPerAddress
          ? 'address_cap'
          : penalties?.isBoxed(address)
            ? 'address_penalty'
            : undefined;
    if (refusal) {
      connectionsRefused.labels(surface, refusal).inc();
      // A reset rather than a FIN: no TIME_WAIT kept on this side for a connection never served.
      socket.resetAndDestroy();
      return false;
    }
    this.open++;
    this.perAddress.set(address, fromAddress + 1);
    const gauge = connectionsOpen.labels(surface);
    gauge.inc();
    socket.once('close', () => {
      this.open--;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
      gauge.dec();
    });
    return true;
  }
}

/**
 * The client a connection counts against: an IPv4 address (IPv4-mapped IPv6 included) as is,
 * an IPv6 address by its /64 prefix, the block one host or one customer is usually given.
 */
export function addressKey(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  if (remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.')) return remoteAddress.slice(7);
  if (!isIPv6(remoteAddress)) return remoteAddress;
  return `${ipv6Groups(remoteAddress).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded, zone id dropped. */
function ipv6Groups(address: string): string[] {
  const bare = address.split('%')[0]!.toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const headGroups = head ? head.split(':') : [];
  if (tail === undefined) return headGroups.map(trimGroup);
  const tailGroups = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (`64:ff9b::192.0.2.1`) stands for two groups.
  const tailWidth = tailGroups.length + (tailGroups.at(-1)?.includes('.') ? 1 : 0);
  const zeros = Array<string>(Math.max(0, 8 - headGroups.length - tailWidth)).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map(trimGroup);
}

function trimGroup(group: string): string {
  return group.replace(/^0+(?=.)/, '');
}
