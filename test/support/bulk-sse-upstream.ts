import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An OpenAI-compatible streaming upstream for backpressure tests: it generates its SSE events
 * lazily and honours backpressure itself (waits for 'drain'), so its own memory stays flat and
 * `bytesWritten` shows how far the gateway let it get. The reply text is `pieceText(i)` for
 * i in [0, pieces), concatenated.
 */
export interface BulkSseUpstream {
  baseUrl: string;
  /** Bytes of SSE handed to the socket so far (current or last request). */
  bytesWritten(): number;
  /** Resolves when the current stream has been written completely. */
  finished(): Promise<void>;
  close(): Promise<void>;
}

export function pieceText(i: number, pieceChars: number): string {
  const label = `<${i}>`;
  return label + 'x'.repeat(Math.max(0, pieceChars - label.length));
}

export async function startBulkSseUpstream(options: { pieces: number; pieceChars: number }): Promise<BulkSseUpstream> {
  let written = 0;
  let done: Promise<void> = Promise.resolve();
  const sockets = new Set<Socket>();

  async function stream(res: ServerResponse, model: string): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const base = { id: 'chatcmpl-bulk', object: 'chat.completion.chunk', created: 1, model };
    const send = async (data: unknown) => {
      // The gateway closed the stream (an error, a limit): nothing to wait for, so finished() settles.
      if (res.destroyed) return;
      const text = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
      written += Buffer.byteLength(text);
      if (!res.write(text)) {
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
    };
    await send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    for (let i = 0; i < options.pieces && !res.destroyed; i++) {
      await send({
        ...base,
        choices: [{ index: 0, delta: { content: pieceText(i, options.pieceChars) }, finish_reason: null }],
      });
    }
    await send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    await send({
      ...base,
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: options.pieces, total_tokens: 10 + options.pieces },
    });
    await send('[DONE]');
    res.end();
  }

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      written = 0;
      let model = 'bulk';
      try {
        model = JSON.parse(body).model ?? model;
      } catch {
        /* not JSON: keep the default */
      }
      done = stream(res, model).catch(() => {
        res.destroy();
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${url}/v1`,
    bytesWritten: () => written,
    finished: () => done,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
