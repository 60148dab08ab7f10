import { UpstreamError } from '../types.js';
import { sanitizeMessage } from '../shared/sanitize.js';

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface TransportContext {
  aborted: boolean; // the caller's signal fired (or the consumer stopped reading)
  idleTimedOut: boolean; // our between-chunks watchdog fired (and aborted the request)
  firstByteTimedOut: boolean; // our first-byte watchdog fired (and aborted the request)
  timeouts: { connectMs: number; firstByteMs: number; betweenChunksMs: number };
  apiKey: string | undefined;
}

/** Maps whatever undici or Node threw into an UpstreamError; UpstreamErrors pass through redacted. */
export function toUpstreamError(err: unknown, ctx: TransportContext): UpstreamError {
  if (err instanceof UpstreamError) {
    err.message = sanitizeMessage(err.message, [ctx.apiKey]);
    return err;
  }
  if (ctx.firstByteTimedOut) {
    return new UpstreamError(`upstream sent no response within ${ctx.timeouts.firstByteMs} ms`, {
      status: null,
      retryable: true,
      kind: 'timeout',
      cause: err,
    });
  }
  if (ctx.idleTimedOut) {
    return new UpstreamError(`upstream sent no data for ${ctx.timeouts.betweenChunksMs} ms`, {
      status: null,
      retryable: true,
      kind: 'timeout',
      cause: err,
    });
  }
  if (ctx.aborted)
    return new UpstreamError('upstream request aborted', {
      status: null,
      retryable: false,
      kind: 'aborted',
      cause: err,
    });
  const code = errorCode(err);
  const { connectMs, firstByteMs, betweenChunksMs } = ctx.timeouts;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new UpstreamError(`upstream connect timeout after ${connectMs} ms`, {
      status: null,
      retryable: true,
      kind: 'timeout',
      cause: err,
    });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new UpstreamError(`upstream sent no response within ${firstByteMs} ms`, {
      status: null,
      retryable: true,
      kind: 'timeout',
      cause: err,
    });
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError(`upstream sent no data for ${betweenChunksMs} ms`, {
      status: null,
      retryable: true,
      kind: 'timeout',
      cause: err,
    });
  }
  const detail = err instanceof Error ? err.message : String(err);
  const known = code !== undefined && (CONNECT_CODES.has(code) || code.startsWith('UND_ERR'));
  return new UpstreamError(sanitizeMessage(`upstream connection failed: ${code ?? ''} ${detail}`, [ctx.apiKey]), {
    status: null,
    retryable: known,
    kind: 'connect',
    cause: err,
  });
}
