import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { connectionsTimedOut } from '../metrics/connection-metrics.js';
import type { AddressPenalties } from './address-penalties.js';
import { addressKey, type ConnectionGate } from './connection-gate.js';
import type { HandshakePacer } from './handshake-pacer.js';
import type { TrustedProxy } from './trusted-proxies.js';

const TLS_HANDSHAKE_RECORD = 0x16;

const PLAIN_HTTP_REFUSAL = (() => {
  const body = 'This server speaks HTTPS only. Plain HTTP is refused: use https:// for this URL.\n';
  return (
    'HTTP/1.1 400 Bad Request\r\n' +
    'Content-Type: text/plain; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
})();

export interface ListenerOptions {
  /** Labels this listener's connection metrics. */
  surface: string;
  /** The instance's connection caps, shared by all its listeners. */
  gate: ConnectionGate;
  /** Budget from the TCP accept to the end of the TLS handshake, first byte included. */
  handshakeTimeoutMs: number;
  /** Defers handshakes so a burst of new connections does not stall open ones; absent: at once. */
  pacer?: HandshakePacer | undefined;
  /** This listener's own penalty box (address-penalties.ts); absent: none. */
  penalties?: AddressPenalties | undefined;
  /**
   * Peers never refused or counted by the penalty box: a trusted proxy's connections carry many
   * clients, and its clients are judged at the request level instead (client-penalties.ts).
   */
  trustedProxy?: TrustedProxy | undefined;
}

/**
 * Accepts TCP connections, looks at the first byte, and hands TLS connections to the HTTPS
 * server. Anything else (a plain HTTP request) gets an immediate plain-text 400 and is closed,
 * so a client that forgot the `s` is told why instead of seeing a hang or a reset.
 *
 * Before any TLS work: a connection beyond the instance's or the client address's cap, or from an
 * address in this listener's penalty box (never a trusted proxy's), is reset, and every
 * connection has one deadline from its accept to the end of its handshake, whether it sends
 * nothing, a first byte and nothing, or a ClientHello a byte at a time; a connection cut there
 * counts against its address in this listener's box. (Node's own TLS
 * handshake timeout, kept as a backstop, starts only when the HTTPS server gets the socket, after
 * the first byte, and is an inactivity timer by its API.) After the handshake the HTTPS server's
 * header, body and keep-alive timeouts apply (create-app.ts). With a pacer, a TLS connection's
 * handshake waits its turn (handshake-pacer.ts); its deadline runs meanwhile.
 */
export function createHttpsOnlyListener(https: HttpsServer, options: ListenerOptions): Server {
  startConnectionChecks(https);
  const { penalties, trustedProxy } = options;
  const boxFor = (socket: Socket) => (penalties && !trustedProxy?.(socket.remoteAddress) ? penalties : undefined);
  if (penalties) reportHeaderDeadlineCuts(https, boxFor);
  const timedOut = connectionsTimedOut.labels(options.surface, 'handshake');
  const handshaking = new Map<string, NodeJS.Timeout>();
  const handshakeDone = (key: string) => {
    const timer = handshaking.get(key);
    if (timer === undefined) return;
    clearTimeout(timer);
    handshaking.delete(key);
  };
  https.on('secureConnection', (tls: TLSSocket) => handshakeDone(peerKey(tls)));

  // noDelay: without it the first SSE event after the headers waits ~40 ms for the client's delayed ACK (Nagle).
  return createServer({ noDelay: true }, (socket: Socket) => {
    socket.on('error', () => socket.destroy());
    if (!options.gate.admit(socket, options.surface, boxFor(socket))) return;
    const key = peerKey(socket);
    handshaking.set(
      key,
      setTimeout(() => {
        handshaking.delete(key);
        timedOut.inc();
        boxFor(socket)?.cut(addressKey(socket.remoteAddress));
        socket.destroy();
      }, options.handshakeTimeoutMs).unref(),
    );
    socket.once('close', () => handshakeDone(key));
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      if (chunk[0] === TLS_HANDSHAKE_RECORD) {
        socket.unshift(chunk);
        if (!options.pacer) https.emit('connection', socket);
        // Cut at the handshake deadline while it waited: nothing left to do.
        else
          options.pacer.enqueue(
            addressKey(socket.remoteAddress),
            () => socket.destroyed || https.emit('connection', socket),
          );
      } else {
        handshakeDone(key);
        socket.end(PLAIN_HTTP_REFUSAL);
        // A client that never closes its side does not keep the socket.
        setTimeout(() => socket.destroy(), options.handshakeTimeoutMs).unref();
      }
    });
  });
}

/** The raw socket and the TLS socket over it report the same peer; one listener has one socket per peer. */
function peerKey(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

const checked = new WeakSet<HttpsServer>();

/**
 * Node checks its servers' `headersTimeout` and `requestTimeout` on a timer it starts when the
 * server emits `listening`. The HTTPS server never listens itself (this listener hands it its
 * sockets), so without this it never checked them: a client could send its headers a byte at a
 * time for as long as it liked. The same list of connections is what `closeIdleConnections` and
 * `closeAllConnections` work on at shutdown.
 */
function startConnectionChecks(https: HttpsServer): void {
  if (checked.has(https)) return;
  checked.add(https);
  https.emit('listening');
}

const reporting = new WeakSet<HttpsServer>();

/**
 * Tells the penalty box about connections Node cut at the header deadline (a 408 through
 * `clientError`) that never delivered a request head: silent ones and slowloris. A connection
 * that did is a client that works, whatever it does later, and is never counted against its
 * address. Costs a WeakSet insertion per request.
 */
function reportHeaderDeadlineCuts(https: HttpsServer, boxFor: (socket: Socket) => AddressPenalties | undefined): void {
  if (reporting.has(https)) return;
  reporting.add(https);
  const served = new WeakSet<Socket>();
  https.on('request', (request: IncomingMessage) => served.add(request.socket));
  https.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && !served.has(socket))
      boxFor(socket)?.cut(addressKey(socket.remoteAddress));
  });
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
