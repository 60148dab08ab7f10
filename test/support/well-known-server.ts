import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { generate } from 'selfsigned';

/**
 * A local HTTPS server standing in for an organization's web site in the domain-verification
 * tests. Its self-signed certificate names `*.<parent>`; `caFile` holds it, for
 * GATEWAY_DOMAIN_VERIFY_CA_FILE. Each host's answer to the well-known path is set by the test.
 */
export type WellKnownAnswer =
  | { status: number; body?: string; headers?: Record<string, string> }
  /** Accept the request and never answer (a timeout). */
  | 'hang';

export interface WellKnownServer {
  port: number;
  caFile: string;
  /** Hosts (lowercase) asked for the well-known path, in order. */
  requests: Array<{ host: string; path: string }>;
  answer(host: string, answer: WellKnownAnswer): void;
  /** Resolves when the next request that will hang has arrived. */
  nextHang(): Promise<void>;
  close(): Promise<void>;
}

export async function startWellKnownServer(parent: string): Promise<WellKnownServer> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: `*.${parent}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: `*.${parent}` }] },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'well-known-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const answers = new Map<string, WellKnownAnswer>();
  const requests: WellKnownServer['requests'] = [];
  const hangWaiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    { cert: pems.cert, key: pems.private },
    (req: IncomingMessage, res: ServerResponse) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      requests.push({ host, path: req.url ?? '' });
      const answer = answers.get(host) ?? { status: 404, body: 'not found' };
      if (answer === 'hang') {
        hangWaiters.splice(0).forEach((wake) => wake());
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
      res.end(answer.body ?? '');
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    caFile,
    requests,
    answer: (host, answer) => void answers.set(host.toLowerCase(), answer),
    nextHang: () => new Promise<void>((resolve) => hangWaiters.push(resolve)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
