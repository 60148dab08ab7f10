import type { FastifyInstance } from 'fastify';
import type { Server as HttpsServer } from 'node:https';
import type { Server } from 'node:net';
import { createHttpsOnlyListener, listen } from './https-only-listener.js';
import type { ConnectionGate } from './connection-gate.js';
import type { HandshakePacer } from './handshake-pacer.js';
import type { AddressPenalties } from './address-penalties.js';
import type { TrustedProxy } from './trusted-proxies.js';

export interface SurfaceConnections {
  /** The instance's connection caps, shared by all its surfaces. */
  gate: ConnectionGate;
  handshakeTimeoutMs: number;
  /** The instance's handshake pacing, shared by all its surfaces; without it handshakes start at once. */
  pacer?: HandshakePacer;
  /** This surface's own penalty box: what an address earns on one surface is not held against it on another. */
  penalties?: AddressPenalties;
  /** Peers whose `X-Forwarded-For` is believed (GATEWAY_TRUSTED_PROXIES), never boxed themselves. */
  trustedProxy?: TrustedProxy | undefined;
}

/**
 * One HTTPS surface: a Fastify app behind the HTTPS-only listener, with in-flight request
 * tracking so shutdown can drain instead of cutting requests off.
 */
export class Surface {
  private listener: Server | undefined;
  private inFlight = 0;
  private draining = false;
  private idleWaiters: Array<() => void> = [];
  url = '';

  constructor(
    readonly name: string,
    readonly app: FastifyInstance,
    private readonly connections: SurfaceConnections,
  ) {
    const finished = () => {
      this.inFlight--;
      if (this.inFlight === 0 && this.idleWaiters.length > 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
    // Callback style: no promise per request on the hot path.
    app.addHook('onRequest', (_request, reply, done) => {
      this.inFlight++;
      // `on`, not `once`: a response closes once, and `once` costs a wrapper and a removal per request.
      reply.raw.on('close', finished);
      if (this.draining) reply.header('connection', 'close');
      done();
    });
  }

  async start(host: string, port: number): Promise<string> {
    await this.app.ready();
    this.listener = createHttpsOnlyListener(this.app.server as unknown as HttpsServer, {
      surface: this.name,
      ...this.connections,
    });
    const address = await listen(this.listener, port, host);
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `https://${shownHost}:${address.port}`;
    return this.url;
  }

  /** Lets in-flight requests finish (up to `graceMs`), then closes. */
  async drain(graceMs: number): Promise<void> {
    await this.settle(graceMs);
    await this.close();
  }

  /**
   * Starts draining and waits until no request is in flight (at most `graceMs`). The listener
   * keeps accepting meanwhile, so a load balancer's probe gets `/readyz`'s 503 rather than a
   * refused connection and takes the instance out before it goes away; every answer closes its
   * connection.
   */
  async settle(graceMs: number): Promise<void> {
    this.draining = true;
    (this.app.server as unknown as HttpsServer).closeIdleConnections();
    if (this.inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref()),
      ]);
    }
  }

  /** Whether a request is in flight on this listener. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Stops accepting connections and closes those still open. */
  async close(): Promise<void> {
    // The listener's close callback waits for every accepted socket, keep-alive ones included,
    // so it is not awaited: the connections are closed below instead.
    this.listener?.close();
    (this.app.server as unknown as HttpsServer).closeAllConnections();
    await this.app.close();
  }
}
