import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createGzip } from 'node:zlib';

/**
 * An upstream that answers 200 and then misbehaves, one way per server (issue 27, row 3): the
 * malicious-upstream suite (test/security/hostile-upstreams.test.ts) and the attack bench
 * (bench/attack/hostile-streams.ts). It writes lazily and honours backpressure, so its own
 * memory stays flat and `bytesWritten` shows how far the gateway let it get before closing it.
 * The opening of each answer speaks the wire format the path asks for (chat completions,
 * Anthropic Messages, OpenAI Responses), so the gateway reads it as far as a real one.
 */
export type HostileKind = 'no-newline' | 'huge-line' | 'endless-deltas' | 'gzip-bomb' | 'stall' | 'huge-json';

export const HOSTILE_KINDS: readonly HostileKind[] = [
  'no-newline',
  'huge-line',
  'endless-deltas',
  'gzip-bomb',
  'stall',
  'huge-json',
];

export interface HostileOptions {
  /** Bytes of body at most, whatever the gateway does; the answer then ends (default 1 GiB). */
  maxBytes?: number;
  /** What the gzip bomb inflates to (default 1 GiB of zeros, ~1 MB compressed). */
  bombBytes?: number;
}

export interface HostileExchange {
  /** Body bytes handed to the socket. */
  bytesWritten: number;
  /** True when the gateway closed the connection before the upstream had sent all it meant to. */
  closedEarly: boolean;
}

export interface HostileUpstream {
  kind: HostileKind;
  baseUrl: string;
  /** Resolves when the current (or next) request's connection has closed. */
  nextClose(): Promise<HostileExchange>;
  /** Every finished exchange so far, in order. */
  exchanges: HostileExchange[];
  /** Resolves once `count` exchanges have closed, with them. */
  closedExchanges(count: number): Promise<HostileExchange[]>;
  close(): Promise<void>;
}

type Wire = 'chat' | 'messages' | 'responses';

const PIECE = 64 * 1024;
const FILLER = Buffer.alloc(PIECE, 'x');

function wireOf(req: IncomingMessage): Wire {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (path.endsWith('/messages')) return 'messages';
  if (path.endsWith('/responses')) return 'responses';
  return 'chat';
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** The events a well-formed stream opens with, so the gateway has started relaying when the trouble begins. */
function opening(wire: Wire): string {
  if (wire === 'messages') {
    const message = {
      id: 'msg_hostile',
      type: 'message',
      role: 'assistant',
      model: 'hostile',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 5, output_tokens: 0 },
    };
    return (
      sse({ type: 'message_start', message }, 'message_start') +
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start')
    );
  }
  if (wire === 'responses') {
    const response = { id: 'resp_hostile', object: 'response', status: 'in_progress', model: 'hostile', output: [] };
    return sse({ type: 'response.created', response }, 'response.created');
  }
  return sse({
    id: 'chatcmpl-hostile',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'hostile',
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
  });
}

/** One text delta event in the path's wire format. */
function delta(wire: Wire, text: string): string {
  if (wire === 'messages')
    return sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta');
  if (wire === 'responses')
    return sse(
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text },
      'response.output_text.delta',
    );
  return sse({
    id: 'chatcmpl-hostile',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'hostile',
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  });
}

/** A delta event cut where its text begins: what follows is the text, for as long as the upstream likes. */
function openDelta(wire: Wire): string {
  const marker = '\u0000';
  const whole = delta(wire, marker);
  return whole.slice(0, whole.indexOf(JSON.stringify(marker).slice(1, -1)));
}

function jsonOpening(wire: Wire): string {
  if (wire === 'messages')
    return '{"id":"msg_hostile","type":"message","role":"assistant","model":"hostile","content":[{"type":"text","text":"';
  if (wire === 'responses')
    return '{"id":"resp_hostile","object":"response","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"';
  return '{"id":"chatcmpl-hostile","object":"chat.completion","created":1,"model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"';
}

/** `bytes` zeros gzipped (about a thousandth of their size), made a MiB at a time so this process never holds them. */
async function gzipOfZeros(bytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise<void>((resolve, reject) => gzip.once('end', resolve).once('error', reject));
  const zeros = Buffer.alloc(Math.min(bytes, 1024 * 1024));
  for (let left = bytes; left > 0; left -= zeros.length) {
    const piece = left >= zeros.length ? zeros : zeros.subarray(0, left);
    if (!gzip.write(piece)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await ended;
  return Buffer.concat(parts);
}

export async function startHostileUpstream(kind: HostileKind, options: HostileOptions = {}): Promise<HostileUpstream> {
  const maxBytes = options.maxBytes ?? 1024 * 1024 * 1024;
  const bomb = kind === 'gzip-bomb' ? await gzipOfZeros(options.bombBytes ?? 1024 * 1024 * 1024) : undefined;
  const sockets = new Set<Socket>();
  const exchanges: HostileExchange[] = [];
  let waiters: Array<(exchange: HostileExchange) => void> = [];

  async function answer(req: IncomingMessage, res: ServerResponse, exchange: HostileExchange): Promise<void> {
    const wire = wireOf(req);
    const write = async (chunk: string | Buffer): Promise<boolean> => {
      if (res.destroyed) return false;
      exchange.bytesWritten += Buffer.byteLength(chunk);
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const resume = () => {
            res.off('drain', resume);
            res.off('close', resume);
            resolve();
          };
          res.on('drain', resume);
          res.on('close', resume);
        });
      }
      return !res.destroyed;
    };
    const fill = async (): Promise<void> => {
      while (exchange.bytesWritten < maxBytes && (await write(FILLER)));
    };
    switch (kind) {
      case 'stall':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        return; // nothing more, ever: the gateway's between-chunks deadline has to end it
      case 'gzip-bomb':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
        await write(bomb!);
        break;
      case 'huge-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        if (await write(jsonOpening(wire))) await fill();
        break;
      case 'no-newline':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (await write('data: ')) await fill();
        break;
      case 'huge-line':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if ((await write(opening(wire))) && (await write(openDelta(wire)))) await fill();
        await write('"}\n\n');
        break;
      case 'endless-deltas': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const event = delta(wire, 'endless '.repeat(8));
        let batch = '';
        while (batch.length < PIECE) batch += event;
        if (await write(opening(wire))) while (exchange.bytesWritten < maxBytes && (await write(batch)));
        break;
      }
    }
    if (!res.destroyed) res.end();
  }

  const server = createServer((req, res) => {
    const exchange: HostileExchange = { bytesWritten: 0, closedEarly: false };
    let finished = false;
    res.once('finish', () => (finished = true));
    res.once('close', () => {
      exchange.closedEarly = !finished;
      exchanges.push(exchange);
      const ready = waiters;
      waiters = [];
      for (const waiter of ready) waiter(exchange);
    });
    req.resume();
    req.once('end', () => void answer(req, res, exchange).catch(() => res.destroy()));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    kind,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    exchanges,
    nextClose: () => new Promise((resolve) => waiters.push(resolve)),
    closedExchanges: (count) =>
      new Promise((resolve) => {
        const check = () => {
          if (exchanges.length >= count) resolve(exchanges.slice(0, count));
          else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Per-model prices the hostile routes are listed with. */
export type RoutePricing = { input_per_mtok: number; output_per_mtok: number };

/**
 * The providers and models of a gateway config that routes `openai/healthy` to a healthy
 * upstream and, for each hostile upstream, `openai/<kind>` (Chat Completions and the Responses
 * API) and `anthropic/<kind>` (Messages) to it.
 */
export function hostileRoutes(
  healthyBaseUrl: string,
  upstreams: ReadonlyMap<HostileKind, HostileUpstream>,
  pricing: RoutePricing,
): { providers: unknown[]; models: unknown[] } {
  const providers: unknown[] = [{ id: 'healthy', kind: 'openai', base_url: healthyBaseUrl, api_key_env: 'MOCK_KEY' }];
  const models: unknown[] = [
    { id: 'openai/healthy', providers: [{ provider: 'healthy', model: 'gpt-4o-mini' }], pricing },
  ];
  for (const [kind, upstream] of upstreams) {
    providers.push(
      {
        id: `${kind}-openai`,
        kind: 'openai',
        base_url: upstream.baseUrl,
        api_key_env: 'MOCK_KEY',
        responses_api: true,
      },
      { id: `${kind}-anthropic`, kind: 'anthropic', base_url: upstream.baseUrl, api_key_env: 'MOCK_KEY' },
    );
    models.push(
      { id: `openai/${kind}`, providers: [{ provider: `${kind}-openai`, model: 'gpt-hostile' }], pricing },
      { id: `anthropic/${kind}`, providers: [{ provider: `${kind}-anthropic`, model: 'claude-hostile' }], pricing },
    );
  }
  return { providers, models };
}
