import type { FastifyRequest } from 'fastify';
import type { AddressPenalties } from './address-penalties.js';
import { addressKey } from './connection-gate.js';
import type { TrustedProxy } from './trusted-proxies.js';

type ClientRequest = Pick<FastifyRequest, 'ip' | 'socket'>;

/**
 * A listener's penalty box seen from a request, keyed by the request's client (`request.ip`: the
 * socket's peer, or behind a trusted proxy the client its `X-Forwarded-For` names). The refusal on
 * accept sees only the socket's peer, so a client behind a trusted proxy is refused here, one
 * request at a time, on the proxy's connection, which stays open for the proxy's other clients.
 */
export class ClientPenalties {
  constructor(
    private readonly box: AddressPenalties,
    private readonly trustedProxy: TrustedProxy | undefined,
  ) {}

  /** Milliseconds left of the request's client's cool-down; 0 when it is not boxed. */
  refusedForMs(request: ClientRequest): number {
    return this.box.remainingMs(addressKey(request.ip));
  }

  /** The request came while its client was told to wait; true when the client is boxed, now or already. */
  ignoredRefusal(request: ClientRequest): boolean {
    return this.box.ignoredRefusal(addressKey(request.ip));
  }

  /**
   * Whether the request's connection may be closed for its client's misbehaviour: never a trusted
   * proxy's, which carries other clients' requests too.
   */
  ownsConnection(request: ClientRequest): boolean {
    return !this.trustedProxy?.(request.socket.remoteAddress);
  }
}
