import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Server as HttpsServer } from 'node:https';

const TLS_HANDSHAKE_RECORD = 0x16;
const FIRST_BYTE_TIMEOUT_MS = 10_000;

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

/**
 * Accepts TCP connections, looks at the first byte, and hands TLS connections to the HTTPS
 * server. Anything else (a plain HTTP request) gets an immediate plain-text 400 and is closed,
 * so a client that forgot the `s` is told why instead of seeing a hang or a reset.
 */
export function createHttpsOnlyListener(https: HttpsServer): Server {
  // noDelay: without it the first SSE event after the headers waits ~40 ms for the client's delayed ACK (Nagle).
  return createServer({ noDelay: true }, (socket: Socket) => {
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      if (chunk[0] === TLS_HANDSHAKE_RECORD) {
        socket.unshift(chunk);
        https.emit('connection', socket);
      } else {
        socket.end(PLAIN_HTTP_REFUSAL);
      }
    });
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
