import { connect as tcpConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

// Raw client sockets against the service's listeners: what a slowloris or an idle flood sends,
// and what the service answers before it closes them. Client sockets bind to other loopback
// addresses (127.0.0.0/8) to act as other clients.

/** Long enough for a loaded 2-core machine, far shorter than anything the old code did (10 s at best). */
export const CLOSED_WITHIN = 7_000;

export interface Outcome {
  closed: boolean;
  elapsedMs: number;
  /** performance.now() when the socket closed (or was given up on). */
  endedAt: number;
  text: string;
  error?: string;
}

export interface Watched {
  result: Promise<Outcome>;
  /** What the server sent so far. */
  text(): string;
}

/** Collects what the server sends until the socket closes, or until `withinMs` (then it is destroyed and `closed` is false). */
export function watch(socket: Socket, startedAt = performance.now(), withinMs = CLOSED_WITHIN): Watched {
  let text = '';
  let error: string | undefined;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const result = new Promise<Outcome>((resolve) => {
    const end = (closed: boolean) => {
      const endedAt = performance.now();
      resolve({ closed, elapsedMs: endedAt - startedAt, endedAt, text, error });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      end(false);
    }, withinMs);
    socket.on('close', () => {
      clearTimeout(timer);
      end(true);
    });
  });
  return { result, text: () => text };
}

export function outcomeOf(socket: Socket, startedAt = performance.now(), withinMs = CLOSED_WITHIN): Promise<Outcome> {
  return watch(socket, startedAt, withinMs).result;
}

export function target(url: string): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

export function rawTcp(url: string, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ ...target(url), localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

export async function rawTls(url: string, ca: string, localAddress: string): Promise<TLSSocket> {
  const tcp = await rawTcp(url, localAddress);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ socket: tcp, ca, servername: 'localhost' }, () => resolve(socket));
    socket.once('error', reject);
    tcp.once('close', () => reject(new Error('closed before the TLS handshake finished')));
  });
}

/** The first flight of a real TLS client, captured from a throwaway server. */
export async function captureClientHello(): Promise<Buffer> {
  return new Promise((resolve) => {
    const capture = createServer((socket) =>
      socket.once('data', (hello: Buffer) => {
        resolve(hello);
        socket.destroy();
        capture.close();
      }),
    );
    capture.listen(0, '127.0.0.1', () => {
      const client = tlsConnect({ port: (capture.address() as AddressInfo).port, host: '127.0.0.1' });
      client.on('error', () => undefined);
    });
  });
}

/**
 * Keeps `n` idle connections open against one listener, as an attacker would: each one the
 * service closes is replaced at once. A third are silent TCP connections, a third stop after the
 * first 40 bytes of a ClientHello, a third finish the TLS handshake and never send a request.
 * They come from 60 loopback addresses, five from each (under the per-address cap).
 */
export class IdleFlood {
  readonly open = new Set<Socket>();
  closedByService = 0;
  private stopping = false;

  constructor(
    private readonly url: string,
    private readonly ca: string,
    private readonly hello: Buffer,
  ) {}

  start(n: number): void {
    for (let i = 0; i < n; i++) this.spawn(i);
  }

  stop(): void {
    this.stopping = true;
  }

  private spawn(i: number): void {
    if (this.stopping) return;
    const localAddress = `127.0.1.${1 + (i % 60)}`;
    const tcp = tcpConnect({ ...target(this.url), localAddress });
    tcp.on('error', () => undefined);
    let replaced = false;
    const replace = () => {
      if (replaced) return;
      replaced = true;
      setImmediate(() => this.spawn(i));
    };
    const held = (socket: Socket) => {
      this.open.add(socket);
      // Read (and drop) whatever comes, so the service's close is seen.
      socket.resume();
      socket.once('close', () => {
        if (this.open.delete(socket)) this.closedByService++;
        replace();
      });
    };
    tcp.once('close', replace);
    tcp.once('connect', () => {
      if (i % 3 === 0) {
        held(tcp);
      } else if (i % 3 === 1) {
        tcp.write(this.hello.subarray(0, 40));
        held(tcp);
      } else {
        // The TLS socket takes the TCP socket over: its own close is the one to watch.
        const tls = tlsConnect({ socket: tcp, ca: this.ca, servername: 'localhost' }, () => held(tls));
        tls.once('close', replace);
        tls.on('error', () => undefined);
      }
    });
  }
}
