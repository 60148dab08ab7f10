import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/**
 * A webhook endpoint on 127.0.0.1 for collector and alert tests. It de-duplicates by event id, as
 * a receiver of an at-least-once feed should, and counts raw deliveries too. `failNext(n)` answers
 * 503 (or `status`) to the next n requests. Every request is kept as it came (`requests`, failed
 * ones included), for bodies that are not event batches (alerts).
 */
export interface WebhookReceiver {
  url: string;
  /** Distinct event ids received, in first-arrival order. */
  ids: string[];
  events: Map<string, any>;
  deliveries: number;
  duplicates: number;
  batches: any[];
  requests: Array<{ headers: Record<string, string | string[] | undefined>; body: string; status: number }>;
  failNext(n: number, status?: number): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const events = new Map<string, any>();
  const ids: string[] = [];
  let failing = 0;
  let failStatus = 503;
  const waiters: Array<() => void> = [];
  const receiver: WebhookReceiver = {
    url: '',
    ids,
    events,
    deliveries: 0,
    duplicates: 0,
    batches: [],
    requests: [],
    failNext: (n, status = 503) => {
      failing = n;
      failStatus = status;
    },
    async waitFor(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (events.size < count) {
        if (Date.now() > until) throw new Error(`webhook received ${events.size} of ${count} events`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (failing > 0) {
        failing--;
        receiver.requests.push({ headers: req.headers, body: text, status: failStatus });
        res.writeHead(failStatus).end();
        for (const wake of waiters.splice(0)) wake();
        return;
      }
      receiver.requests.push({ headers: req.headers, body: text, status: 200 });
      const batch = JSON.parse(text);
      receiver.batches.push(batch);
      for (const event of Array.isArray(batch.events) ? batch.events : []) {
        receiver.deliveries++;
        if (events.has(event.id)) receiver.duplicates++;
        else {
          events.set(event.id, event);
          ids.push(event.id);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
