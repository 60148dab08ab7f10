import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/**
 * An HTTPS pass-through placed between a CLI and the gateway, so a test sees exactly what the
 * client sent (to re-count it) and what the gateway answered (the savings it reported), while
 * the CLI talks to the gateway as it would directly. It presents the gateway's own certificate,
 * so the CLI trusts it with the same CA variable; bodies are forwarded as they come and
 * responses streamed back chunk by chunk.
 */
export interface ProxiedExchange {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  status: number;
  responseHeaders: Record<string, string | string[] | undefined>;
  /** The whole response body as text, complete once the exchange ended. */
  responseText: string;
}

export interface RecordingProxy {
  origin: string;
  exchanges: ProxiedExchange[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

export async function startRecordingProxy(options: {
  target: string;
  cert: string;
  key: string;
  ca: string;
}): Promise<RecordingProxy> {
  const dispatcher = new Agent({ connect: { ca: options.ca } });
  const exchanges: ProxiedExchange[] = [];
  const server: Server = createServer({ cert: options.cert, key: options.key }, (req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      ) as Record<string, string>;
      const exchange: ProxiedExchange = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        status: 0,
        responseHeaders: {},
        responseText: '',
      };
      exchanges.push(exchange);
      try {
        const upstream = await request(options.target + exchange.path, {
          method: exchange.method as 'POST',
          headers,
          body: raw.length ? raw : undefined,
          dispatcher,
        });
        exchange.status = upstream.statusCode;
        exchange.responseHeaders = upstream.headers;
        const out = Object.fromEntries(
          Object.entries(upstream.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
        ) as Record<string, string>;
        res.writeHead(upstream.statusCode, out);
        for await (const chunk of upstream.body) {
          exchange.responseText += Buffer.from(chunk as Buffer).toString('utf8');
          res.write(chunk);
        }
        res.end();
      } catch (error) {
        exchange.status = 502;
        exchange.responseText = String(error);
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    exchanges,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dispatcher.close();
    },
  };
}
