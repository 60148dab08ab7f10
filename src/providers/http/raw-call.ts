import { request, type Dispatcher } from 'undici';
import type { CallOptions, SseEvent, UpstreamError, UpstreamRequest, UpstreamTarget, WireCodec } from '../types.js';
import { dispatcherFor } from './agent-pool.js';
import { linkAbort, type LinkedAbort } from './linked-abort.js';
import { readSse } from './read-sse.js';
import { withIdleTimeout } from './idle-watchdog.js';
import { toUpstreamError, type TransportContext } from './transport-errors.js';

/** Same bounds as the adapters' (create-http-adapter.ts): error bodies 64 KiB, success bodies 32 MiB. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
export const MAX_RAW_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * An upstream call whose body the caller built and whose answer the caller reads itself: the
 * pass-through variant of `createHttpAdapter` (same pooled dispatcher, first-byte and
 * between-chunks watchdogs, abort linking and error mapping), for a route that forwards a
 * client's own body instead of the canonical chat request. Opened once a 2xx arrived; a non-2xx
 * answer rejects with the codec's UpstreamError, so the router can still retry or fall back.
 */
export interface RawCall {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  /** True once the caller's signal fired or the call was aborted. */
  readonly aborted: boolean;
  /** Stops the upstream request now (the socket closes). */
  abort(): void;
  /** Drops the listener on the caller's signal; call once done with the body. */
  dispose(): void;
  /** Whatever undici or the watchdogs threw, as an UpstreamError (timeout, aborted, connect…). */
  toError(err: unknown): UpstreamError;
  /** The response body, each chunk watched by the between-chunks timeout. Read it once. */
  body(): AsyncIterable<Uint8Array>;
}

export async function openRawCall(
  upstream: UpstreamRequest,
  target: UpstreamTarget,
  options: CallOptions,
  parseError: WireCodec['parseError'],
): Promise<RawCall> {
  const abort: LinkedAbort = linkAbort(options.signal);
  const ctx: TransportContext = {
    get aborted() {
      return abort.signal.aborted;
    },
    idleTimedOut: false,
    firstByteTimedOut: false,
    timeouts: options.timeouts,
    apiKey: target.apiKey,
  };
  const firstByte = setTimeout(() => {
    ctx.firstByteTimedOut = true;
    abort.abort();
  }, options.timeouts.firstByteMs);
  try {
    const response = await request(upstream.url, {
      method: upstream.method,
      headers: upstream.headers,
      body: upstream.body,
      signal: abort.signal,
      dispatcher: dispatcherFor(options.timeouts.connectMs),
      headersTimeout: options.timeouts.firstByteMs,
      bodyTimeout: options.timeouts.betweenChunksMs,
    });
    clearTimeout(firstByte);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const { text, truncated } = await readCapped(response.body, MAX_ERROR_BODY_BYTES);
      if (truncated) abort.abort();
      throw parseError(response.statusCode, text, response.headers);
    }
    return {
      status: response.statusCode,
      headers: response.headers,
      get aborted() {
        return abort.signal.aborted;
      },
      abort: () => abort.abort(),
      dispose: () => abort.dispose(),
      toError: (err) => toUpstreamError(err, ctx),
      body: () =>
        withIdleTimeout(response.body, options.timeouts.betweenChunksMs, () => {
          ctx.idleTimedOut = true;
          abort.abort();
        }),
    };
  } catch (err) {
    clearTimeout(firstByte);
    abort.dispose();
    throw toUpstreamError(err, ctx);
  }
}

export async function readCapped(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.byteLength >= room) {
      chunks.push(chunk.subarray(0, room));
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

/** Reads the whole (bounded) body of a raw call; errors come back as UpstreamErrors. Disposes the call. */
export async function readRawText(call: RawCall): Promise<string> {
  try {
    const { text, truncated } = await readCapped(call.body(), MAX_RAW_RESPONSE_BYTES);
    if (truncated) call.abort();
    return text;
  } catch (err) {
    throw call.toError(err);
  } finally {
    call.dispose();
  }
}

/**
 * The SSE events of a raw call. Stopping early (the consumer's `return()`, i.e. its client went
 * away) or any error aborts the upstream at once; errors come back as UpstreamErrors.
 */
export async function* readRawSse(call: RawCall): AsyncGenerator<SseEvent> {
  let done = false;
  try {
    for await (const event of readSse(call.body())) {
      // Events already parsed must not trickle out after an abort.
      if (call.aborted) throw new Error('aborted');
      yield event;
    }
    done = true;
  } catch (err) {
    throw call.toError(err);
  } finally {
    if (!done) call.abort();
    call.dispose();
  }
}
