import type { Dispatcher } from 'undici';
import type {
  AbortSignalLike,
  CallOptions,
  UpstreamError,
  UpstreamRequest,
  UpstreamTarget,
  WireCodec,
} from '../types.js';
import { dispatcherFor } from './agent-pool.js';
import { toUpstreamError, type TransportContext } from './transport-errors.js';
import { BufferAccount } from '../bounds/buffer-budget.js';
import { answerTooLarge, upstreamLimits } from '../bounds/upstream-limits.js';
import { malformed } from '../shared/upstream-errors.js';

const CONTENT_ENCODING = 'content-encoding';
/** Error bodies are read to 64 KiB (the message is all that is used); answers to `jsonBytes` (upstream-limits.ts). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Unread response bytes at which the upstream socket is paused until the reader catches up. */
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * An upstream call whose body the caller built and whose answer the caller reads itself: the
 * transport of every HTTP adapter (create-http-adapter.ts) and of the routes that forward a
 * client's own body. A pooled keep-alive dispatcher, first-byte and between-chunks watchdogs, the
 * caller's abort signal, bounded bodies and error mapping. Opened once a 2xx arrived; a non-2xx
 * answer rejects with the codec's UpstreamError, so the router can still retry or fall back.
 */
export interface RawCall {
  status: number;
  /** Response headers, lower-case names. */
  readonly headers: Record<string, string | string[]>;
  /** True once the caller's signal fired or the call was aborted. */
  readonly aborted: boolean;
  /** What the call's reader holds of the answer, drawn from the process's budget; released by `dispose`. */
  readonly buffers: BufferAccount;
  /** Stops the upstream request now (the socket closes). */
  abort(): void;
  /** Drops the listener on the caller's signal; call once done with the body. A body not read to its end is aborted. */
  dispose(): void;
  /** Whatever undici or the watchdogs threw, as an UpstreamError (timeout, aborted, connect…). */
  toError(err: unknown): UpstreamError;
  /** The next chunk of the response body, or null at its end; watched by the between-chunks timeout. */
  read(): Promise<Uint8Array | null>;
}

/**
 * undici's dispatch API with a handler of our own: the response arrives as `onData` chunks into
 * a small queue, with no Readable stream, no AbortController and no async iterator per call
 * (undici's `request()` builds all three, which cost more than the rest of the call).
 */
class UpstreamCall implements RawCall, Dispatcher.DispatchHandler {
  status = 0;
  readonly buffers = new BufferAccount();
  private rawHeaders: Buffer[] = [];
  private parsedHeaders: Record<string, string | string[]> | undefined;
  private readonly ctx: TransportContext;
  private abortUpstream: ((reason: Error) => void) | undefined;
  private abortReason: Error | undefined;
  private resumeUpstream: (() => void) | undefined;
  private paused = false;
  private opened: { resolve: (call: UpstreamCall) => void; reject: (err: unknown) => void } | undefined;
  private readonly chunks: Buffer[] = [];
  private queuedBytes = 0;
  private ended = false;
  private failure: unknown;
  private reader: { resolve: (chunk: Uint8Array | null) => void; reject: (err: unknown) => void } | undefined;
  private readonly firstByteTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly onSignal = () => this.abort();

  constructor(
    private readonly signal: AbortSignalLike,
    private readonly timeouts: CallOptions['timeouts'],
    apiKey: string | undefined,
  ) {
    this.ctx = {
      aborted: false,
      idleTimedOut: false,
      firstByteTimedOut: false,
      timeouts,
      apiKey,
    };
    // undici's own headers and body timeouts run on a coarse timer (about one second of
    // resolution); these watchdogs enforce the configured ones.
    this.firstByteTimer = setTimeout(() => {
      this.ctx.firstByteTimedOut = true;
      this.abort();
    }, timeouts.firstByteMs);
    if (signal.aborted) this.abort();
    else signal.addEventListener('abort', this.onSignal);
  }

  open(): Promise<UpstreamCall> {
    return new Promise((resolve, reject) => {
      this.opened = { resolve, reject };
    });
  }

  get headers(): Record<string, string | string[]> {
    return (this.parsedHeaders ??= parseRawHeaders(this.rawHeaders));
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** Whether the answer has a header of this lower-case name, read from the raw names. */
  hasHeader(name: string): boolean {
    const raw = this.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const rawName = raw[i]!;
      if (rawName.length === name.length && rawName.toString('latin1').toLowerCase() === name) return true;
    }
    return false;
  }

  abort(): void {
    if (this.abortReason) return;
    this.abortReason = new Error('upstream request aborted');
    this.ctx.aborted = true;
    this.abortUpstream?.(this.abortReason);
  }

  dispose(): void {
    // Whoever stops reading early (a bound, a parse error) must not leave the upstream paused on a
    // full queue: the socket and its unread bytes would be held for good.
    if (!this.ended && this.failure === undefined) this.abort();
    this.buffers.release();
    clearTimeout(this.firstByteTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.signal.removeEventListener('abort', this.onSignal);
  }

  toError(err: unknown): UpstreamError {
    return toUpstreamError(err, this.ctx);
  }

  read(): Promise<Uint8Array | null> {
    const chunk = this.chunks.shift();
    if (chunk) {
      this.queuedBytes -= chunk.byteLength;
      // Resumed only once the queue is empty: resuming at every read below the mark keeps the
      // upstream socket trickling and backpressure never quite reaches the upstream.
      if (this.paused && this.queuedBytes === 0) {
        this.paused = false;
        this.resumeUpstream?.();
      }
      return Promise.resolve(chunk);
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(null);
    // The between-chunks clock runs only while the reader waits: a slow client does not count
    // against the upstream. One timer per call, re-armed by `refresh`.
    if (this.idleTimer) this.idleTimer.refresh();
    else this.idleTimer = setTimeout(() => this.onIdle(), this.timeouts.betweenChunksMs);
    return new Promise((resolve, reject) => {
      this.reader = { resolve, reject };
    });
  }

  private onIdle(): void {
    if (!this.reader || this.ended || this.failure !== undefined) return;
    this.ctx.idleTimedOut = true;
    this.abort();
  }

  // undici's (legacy) dispatch handler: a handler without onRequestStart is called directly.

  onConnect(abort: (err?: Error) => void): void {
    if (this.abortReason) abort(this.abortReason);
    else this.abortUpstream = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true; // 1xx: informational, the answer follows
    clearTimeout(this.firstByteTimer);
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    this.resumeUpstream = resume;
    this.opened?.resolve(this);
    this.opened = undefined;
    return true;
  }

  onData(chunk: Buffer): boolean {
    const reader = this.reader;
    if (reader) {
      this.reader = undefined;
      reader.resolve(chunk);
      return true;
    }
    this.chunks.push(chunk);
    this.queuedBytes += chunk.byteLength;
    if (this.queuedBytes < HIGH_WATER_BYTES) return true;
    this.paused = true;
    return false;
  }

  onComplete(): void {
    this.ended = true;
    const reader = this.reader;
    this.reader = undefined;
    reader?.resolve(null);
  }

  onError(err: Error): void {
    clearTimeout(this.firstByteTimer);
    if (this.opened) {
      this.opened.reject(err);
      this.opened = undefined;
      return;
    }
    this.failure = err;
    const reader = this.reader;
    this.reader = undefined;
    reader?.reject(err);
  }
}

function parseRawHeaders(raw: Buffer[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else headers[name] = [existing, value];
  }
  return headers;
}

/** `origin` and `path` of each upstream URL, split once (a handful of distinct URLs per process). */
const splitUrls = new Map<string, { origin: string; path: string }>();

function splitUrl(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (!split) {
    const parsed = new URL(url);
    split = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (splitUrls.size >= 1000) splitUrls.clear();
    splitUrls.set(url, split);
  }
  return split;
}

export async function openRawCall(
  upstream: UpstreamRequest,
  target: UpstreamTarget,
  options: CallOptions,
  parseError: WireCodec['parseError'],
): Promise<RawCall> {
  const call = new UpstreamCall(options.signal, options.timeouts, target.apiKey);
  options.observeRequest?.(upstream, target);
  try {
    const opened = call.open();
    const { origin, path } = splitUrl(upstream.url);
    dispatcherFor(options.timeouts.connectMs).dispatch(
      {
        origin,
        path,
        method: upstream.method,
        headers: upstream.headers,
        body: upstream.body,
        headersTimeout: options.timeouts.firstByteMs,
        bodyTimeout: options.timeouts.betweenChunksMs,
      },
      call,
    );
    await opened;
    if (call.status < 200 || call.status >= 300) {
      const { text, truncated } = await readCallText(call, MAX_ERROR_BODY_BYTES, true);
      if (truncated) call.abort();
      throw parseError(call.status, text, call.headers);
    }
    refuseEncodedBody(call);
    return call;
  } catch (err) {
    // Mapped before the abort in `dispose`, which would make any failure look like an abort.
    const error = call.toError(err);
    call.dispose();
    throw error;
  }
}

/**
 * The gateway asks for no content coding (undici's dispatch sends no accept-encoding) and inflates
 * none: a body that says it is compressed is refused at its headers rather than read as text, so
 * a few bytes of gzip that would inflate to gigabytes are never even looked at.
 */
function refuseEncodedBody(call: UpstreamCall): void {
  // Most answers carry no content-encoding: known from the raw names alone, without building the
  // headers object (every header decoded and lower-cased) that nothing else on the path reads.
  if (!call.hasHeader(CONTENT_ENCODING)) return;
  const encoding = call.headers[CONTENT_ENCODING];
  const codings = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).toLowerCase().split(',');
  if (codings.every((coding) => coding.trim() === '' || coding.trim() === 'identity')) return;
  call.abort();
  throw malformed(
    `upstream sent a body with content-encoding "${String(encoding)}", which the gateway did not ask for`,
  );
}

/** The body up to `maxBytes`; past it, `truncated` and the text of the first `maxBytes` when `keepPartial`, else none. */
async function readCallText(
  call: RawCall,
  maxBytes: number,
  keepPartial: boolean,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await call.read(); chunk !== null; chunk = await call.read()) {
    const room = maxBytes - size;
    if (chunk.byteLength > room) {
      if (!keepPartial) return { text: '', truncated: true };
      chunks.push(chunk.subarray(0, room));
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.byteLength;
    call.buffers.hold(size);
  }
  const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return { text: Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength).toString('utf8'), truncated: false };
}

/**
 * Reads the whole body of a raw call; errors come back as UpstreamErrors. One longer than
 * `jsonBytes` fails (oversized) and the upstream is closed at once: its first `jsonBytes` are
 * all that were ever held. Disposes the call.
 */
export async function readRawText(call: RawCall): Promise<string> {
  const limit = upstreamLimits().jsonBytes;
  try {
    const { text, truncated } = await readCallText(call, limit, false);
    if (truncated) {
      call.abort();
      throw answerTooLarge('answer', limit);
    }
    return text;
  } catch (err) {
    throw call.toError(err);
  } finally {
    call.dispose();
  }
}
