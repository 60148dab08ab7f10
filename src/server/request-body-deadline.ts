import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

export interface BodyDeadlineOptions {
  /** How long a body may stall at its start. */
  bodyTimeoutMs: number;
  /** Every this many bytes received extend the deadline by a second. */
  bodyMinBytesPerSecond: number;
  /** How often open bodies are checked; a late body is cut within this much of its deadline. */
  checkIntervalMs: number;
  /** Called once for each body cut. */
  onTimeout: () => void;
}

interface OpenBody {
  req: IncomingMessage;
  res: ServerResponse;
  socket: Socket;
  startedAt: number;
  bytesAtStart: number;
}

const BODY_TIMEOUT_MESSAGE = 'The request body arrived too slowly.';

/**
 * A minimum transfer rate for request bodies, the way Apache's mod_reqtimeout bounds them: a body
 * has `bodyTimeoutMs` to get going and earns one more second for every `bodyMinBytesPerSecond`
 * bytes it delivers. A 50 MB body at 1 MB/s passes (it keeps its whole head start); a client that
 * sends a few bytes now and then to hold the connection is cut. A fixed time for the whole body
 * could not be both: long enough for big uploads on slow links makes it long for everyone.
 *
 * The clock runs from the end of the headers until the body is complete, whatever the answer
 * does meanwhile: after an early answer (401, 413, 503) Node still reads the rest of the body
 * off the wire, at the client's pace. Responses are never timed: a stream that runs for ten
 * minutes after its request arrived is not this module's business.
 *
 * One sweep over the open bodies per interval, no timer per request: on the hot path a request
 * costs a Map insertion and one shared 'end' listener, and the map holds only bodies still
 * arriving.
 */
export function enforceBodyDeadline(server: HttpsServer, options: BodyDeadlineOptions): void {
  const open = new Map<IncomingMessage, OpenBody>();
  let sweeper: NodeJS.Timeout | undefined;
  let lastSweepAt = 0;
  // A body read to its end leaves the set at once: kept until the next sweep (up to a second),
  // every request and response object outlived two young-generation collections and was moved
  // to the old generation, a few KB per request for the full collections to clear.
  function bodyEnded(this: IncomingMessage): void {
    open.delete(this);
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!expectsBody(req)) return;
    open.set(req, { req, res, socket: req.socket, startedAt: performance.now(), bytesAtStart: req.socket.bytesRead });
    req.on('end', bodyEnded);
    if (sweeper === undefined) {
      lastSweepAt = performance.now();
      sweeper = setInterval(sweep, options.checkIntervalMs).unref();
    }
  });

  function sweep(): void {
    const now = performance.now();
    // Timers run before the loop reads its sockets: after a stall of the event loop, bytes a
    // client sent in time may still wait in the kernel. Such a round cuts nobody.
    const stalled = now - lastSweepAt > 2 * options.checkIntervalMs;
    lastSweepAt = now;
    for (const body of open.values()) {
      if (body.req.complete || body.socket.destroyed) {
        open.delete(body.req);
        continue;
      }
      const received = body.socket.bytesRead - body.bytesAtStart;
      const allowedMs = options.bodyTimeoutMs + (received / options.bodyMinBytesPerSecond) * 1000;
      if (!stalled && now - body.startedAt > allowedMs) {
        open.delete(body.req);
        options.onTimeout();
        cut(body);
      }
    }
    if (open.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }
}

function expectsBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * While the app is still reading the body (its parser listens for errors on the request) and
 * has not answered, the body fails with a 408 the app answers in its surface's envelope, and
 * `Connection: close` ends the connection after that answer (the rest of the body is never read).
 * Otherwise there is nobody to answer: the connection is closed.
 */
function cut({ req, res, socket }: OpenBody): void {
  if (!res.headersSent && req.listenerCount('error') > 0) {
    res.setHeader('connection', 'close');
    const error = Object.assign(new Error(BODY_TIMEOUT_MESSAGE), {
      statusCode: 408,
      code: 'GATEWAY_BODY_TIMEOUT',
    });
    req.emit('error', error);
    // A client that does not read its answer does not keep the socket.
    setTimeout(() => socket.destroy(), 5_000).unref();
    return;
  }
  socket.destroy();
}
