import { request, type Dispatcher } from 'undici';
import type { ChatRequest } from '../../gateway/schemas/chat-request.js';
import type {
  CallOptions,
  ProviderAdapter,
  ProviderCompletion,
  ProviderKind,
  ProviderStreamEvent,
  UpstreamRequest,
  UpstreamTarget,
  WireCodec,
} from '../types.js';
import { dispatcherFor } from './agent-pool.js';
import { linkAbort, type LinkedAbort } from './linked-abort.js';
import { readSse } from './read-sse.js';
import { withIdleTimeout } from './idle-watchdog.js';
import { toUpstreamError, type TransportContext } from './transport-errors.js';
import { parseJson } from '../shared/upstream-errors.js';

/** Error bodies are read only this far: enough for any real error message, bounded for a hostile upstream. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Success bodies are bounded too (provider output is untrusted input). */
const MAX_RESPONSE_BODY_BYTES = 32 * 1024 * 1024;

interface OpenCall {
  response: Dispatcher.ResponseData;
  abort: LinkedAbort;
  ctx: TransportContext;
}

function watchedBody(call: OpenCall): AsyncIterable<Uint8Array> {
  return withIdleTimeout(call.response.body, call.ctx.timeouts.betweenChunksMs, () => {
    call.ctx.idleTimedOut = true;
    call.abort.abort();
  });
}

async function readCapped(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
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

export function createHttpAdapter(kind: ProviderKind, codec: WireCodec): ProviderAdapter {
  async function send(upstream: UpstreamRequest, target: UpstreamTarget, options: CallOptions): Promise<OpenCall> {
    const abort = linkAbort(options.signal);
    const ctx: TransportContext = {
      get aborted() {
        return abort.signal.aborted;
      },
      idleTimedOut: false,
      firstByteTimedOut: false,
      timeouts: options.timeouts,
      apiKey: target.apiKey,
    };
    // undici's headersTimeout (kept as a backstop) has about one second of resolution; this
    // timer is exact. It runs from dispatch, so connect time counts against it too.
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
        // An unread remainder would keep the socket busy; dropping it closes the connection.
        if (truncated) abort.abort();
        throw codec.parseError(response.statusCode, text, response.headers);
      }
      return { response, abort, ctx };
    } catch (err) {
      clearTimeout(firstByte);
      abort.dispose();
      throw toUpstreamError(err, ctx);
    }
  }

  async function complete(req: ChatRequest, target: UpstreamTarget, options: CallOptions): Promise<ProviderCompletion> {
    const upstream = codec.buildRequest(req, target, { stream: false });
    const call = await send(upstream, target, options);
    const { abort, ctx } = call;
    try {
      const { text, truncated } = await readCapped(watchedBody(call), MAX_RESPONSE_BODY_BYTES);
      if (truncated) abort.abort();
      return codec.parseResponse(parseJson(text, 'upstream response'));
    } catch (err) {
      throw toUpstreamError(err, ctx);
    } finally {
      abort.dispose();
    }
  }

  async function* events(call: OpenCall): AsyncGenerator<ProviderStreamEvent> {
    const parser = codec.createStreamParser();
    let done = false;
    try {
      for await (const sse of readSse(watchedBody(call))) {
        for (const event of parser.push(sse)) {
          // Events already parsed must not trickle out after an abort.
          if (call.ctx.aborted) throw new Error('aborted');
          yield event;
        }
      }
      done = true;
      for (const event of parser.end()) yield event;
    } catch (err) {
      throw toUpstreamError(err, call.ctx);
    } finally {
      // Reached when the consumer calls return() (client went away) or on any error: the
      // upstream socket must close now, not when the upstream finishes generating.
      if (!done) call.abort.abort();
      call.abort.dispose();
    }
  }

  async function stream(
    req: ChatRequest,
    target: UpstreamTarget,
    options: CallOptions,
  ): Promise<AsyncIterable<ProviderStreamEvent>> {
    const upstream = codec.buildRequest(req, target, { stream: true });
    const call = await send(upstream, target, options);
    return events(call);
  }

  return { kind, complete, stream };
}
