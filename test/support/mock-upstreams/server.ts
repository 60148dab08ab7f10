import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type {
  MockOptions,
  MockScenario,
  MockUpstream,
  MockWireFormat,
  RecordedRequest,
  ScenarioSource,
} from './types.js';

function wait(ms: number | undefined): Promise<void> {
  if (ms === undefined) return new Promise((resolve) => setImmediate(resolve));
  // Infinity: never resumes; the socket closing (client abort or server close) ends the handler.
  if (!Number.isFinite(ms)) return new Promise(() => {});
  return delay(ms);
}

function frame(event: { event?: string; data: unknown }, scenario: MockScenario): string {
  const data =
    typeof event.data === 'string'
      ? event.data
      : JSON.stringify(event.data, null, scenario.multiLineData ? 1 : undefined);
  const lines = [...(event.event ? [`event: ${event.event}`] : []), ...data.split('\n').map((line) => `data: ${line}`)];
  const text = `${lines.join('\n')}\n\n`;
  return scenario.crlf ? text.replace(/\n/g, '\r\n') : text;
}

/** Cuts a buffer right after the first byte of each multi-byte character (at most 4 cuts). */
function splitInsideCharacters(bytes: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length && pieces.length < 4; i++) {
    if ((bytes[i] as number) >= 0xc0) {
      pieces.push(bytes.subarray(start, i + 1));
      start = i + 1;
    }
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

async function writeStream(
  res: ServerResponse,
  format: MockWireFormat,
  scenario: MockScenario,
  request: RecordedRequest,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...scenario.headers });
  res.flushHeaders();
  const events = format.streamEvents(scenario, request);
  const frames = events.map((event) => frame(event, scenario));
  if (scenario.malformedSse) frames.splice(1, 0, frame({ data: '{"choices": [ {"delta": ' }, scenario));
  const hangAfter = scenario.hangAfterEvent ?? 1;
  const closeAt = scenario.closeMidStream ? Math.max(1, Math.floor(frames.length / 2)) : -1;
  for (const [i, text] of frames.entries()) {
    if (res.destroyed) return;
    if (i === closeAt) {
      res.socket?.destroy();
      return;
    }
    if (scenario.splitUtf8) {
      for (const piece of splitInsideCharacters(Buffer.from(text, 'utf8'))) {
        res.write(piece);
        // A pause so the pieces leave as separate TCP segments and arrive as separate reads.
        await delay(5);
      }
    } else {
      res.write(text);
    }
    if (i === hangAfter && scenario.hangBetweenChunksMs !== undefined) await wait(scenario.hangBetweenChunksMs);
    else await wait(scenario.chunkDelayMs);
  }
  res.end();
}

async function respond(
  res: ServerResponse,
  formats: readonly MockWireFormat[],
  options: MockOptions,
  scenario: MockScenario,
  request: RecordedRequest,
): Promise<void> {
  if (scenario.hangBeforeHeadersMs !== undefined) await wait(scenario.hangBeforeHeadersMs);
  if (res.destroyed) return;
  const format = formats.find((candidate) => candidate.acceptsPath(request.path)) ?? formats[0]!;
  if (!format.acceptsPath(request.path)) {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify(format.errorBody(404, `no route ${request.path}`)));
    return;
  }
  if (options.apiKey !== undefined && format.apiKeyOf(request) !== options.apiKey) {
    const auth = format.authError();
    res.writeHead(auth.status, { 'content-type': 'application/json' }).end(JSON.stringify(auth.body));
    return;
  }
  if (scenario.status !== undefined && scenario.status >= 400) {
    const body =
      scenario.errorBody ?? format.errorBody(scenario.status, scenario.errorMessage ?? `mock error ${scenario.status}`);
    res
      .writeHead(scenario.status, {
        'content-type': 'application/json',
        'x-request-id': 'req_mock_error',
        ...scenario.headers,
      })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
    return;
  }
  if (format.isStream(request)) return writeStream(res, format, scenario, request);
  res
    .writeHead(200, { 'content-type': 'application/json', ...scenario.headers })
    .end(JSON.stringify(format.json(scenario, request)));
}

/** One wire format, or several on one port (each request goes to the format whose path it names). */
export async function startMockServer(
  format: MockWireFormat | readonly MockWireFormat[],
  options: MockOptions = {},
): Promise<MockUpstream> {
  const formats: readonly MockWireFormat[] = Array.isArray(format) ? format : [format as MockWireFormat];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let source: ScenarioSource = {};
  let consumed = 0;

  function scenarioFor(request: RecordedRequest): MockScenario {
    if (typeof source === 'function') return source(request);
    if (Array.isArray(source)) return source[Math.min(consumed++, source.length - 1)] ?? {};
    return source;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const socket = req.socket;
    let markClosed!: (at: number) => void;
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      rawBody,
      body,
      receivedAt: performance.now(),
      closed: new Promise<number>((resolve) => (markClosed = resolve)),
    };
    const onClose = (): void => {
      record.socketClosedAt = performance.now();
      markClosed(record.socketClosedAt);
    };
    if (socket.destroyed) onClose();
    else closeWatchers.get(socket)?.push(onClose);
    res.once('finish', () => (record.responseEndedAt = performance.now()));
    requests.push(record);
    await respond(res, formats, options, scenarioFor(record), record);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  // One close listener per socket, fanned out to every request it carried (keep-alive).
  const closeWatchers = new WeakMap<Socket, Array<() => void>>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    closeWatchers.set(socket, []);
    socket.once('close', () => {
      sockets.delete(socket);
      for (const watcher of closeWatchers.get(socket) ?? []) watcher();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    baseUrl: `${url}${formats[0]!.basePath}`,
    requests,
    setScenario(next) {
      source = next;
      consumed = 0;
    },
    lastRequest: () => requests[requests.length - 1],
    reset() {
      requests.length = 0;
      source = {};
      consumed = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
