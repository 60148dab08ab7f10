import type { ChatRequest } from '../canonical/chat-request.js';
import type { ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../canonical/completion.js';
import type { ProviderKind } from '../canonical/provider-kinds.js';

/**
 * The one interface every provider implements. Provider names meet only in `registry.ts`.
 *
 * Adapters translate between the gateway's canonical request (the OpenAI chat-completions
 * shape, already validated) and one provider's own wire format. They never format what the
 * client sees: they return provider-neutral results (`ProviderCompletion`, `ProviderStreamEvent`)
 * and the gateway writes the client's wire format.
 */

export type { ProviderKind };

/** One configured upstream: where to send, with which credential, as which upstream model. */
export interface UpstreamTarget {
  providerId: string; // the config's provider id, e.g. "mock" or "openai"
  kind: ProviderKind;
  baseUrl: string; // e.g. "https://api.openai.com/v1" (no trailing slash)
  apiKey: string | undefined; // resolved from api_key_env at call time
  upstreamModel: string; // the provider's model name, e.g. "gpt-4o-mini"
  headers?: Record<string, string>;
  /** An `openai` target that also serves the Responses API (config `responses_api`): /v1/responses goes to it natively. */
  responsesApi?: boolean;
}

/** An HTTP request to send upstream. The body is already serialized. */
export interface UpstreamRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

/** One event of a text/event-stream, after SSE framing is parsed. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** Why an upstream call failed; `retryable` is decided here, not at the call site. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly details: {
      status: number | null; // upstream HTTP status; null when no response (connect error, timeout)
      retryable: boolean;
      retryAfterMs?: number; // from retry-after / retry-after-ms
      upstreamRequestId?: string;
      cause?: unknown;
      kind?: 'http' | 'connect' | 'timeout' | 'malformed' | 'aborted' | 'oversized';
    },
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** A provider's wire format: build the HTTP request, parse what comes back. Pure; no I/O. */
export interface WireCodec {
  buildRequest(request: ChatRequest, target: UpstreamTarget, options: { stream: boolean }): UpstreamRequest;
  parseResponse(body: unknown): ProviderCompletion; // throws UpstreamError(kind 'malformed')
  /** Returns a stateful translator for one stream: feed it each SSE event, then call end(). */
  createStreamParser(): StreamParser;
  /** Turns an upstream error response into an UpstreamError with a sanitised message. */
  parseError(status: number, body: string, headers: Record<string, string | string[] | undefined>): UpstreamError;
}

export interface StreamParser {
  push(event: SseEvent): ProviderStreamEvent[];
  /** Called when the upstream stream ends; throws UpstreamError if it ended before completion. */
  end(): ProviderStreamEvent[];
}

/**
 * What the request path needs of an abort signal. A real AbortSignal is one; the gateway passes
 * a lighter one per request (gateway/chat/client-abort.ts): building an AbortSignal and adding
 * a listener to it cost several microseconds, more than the rest of the abort handling.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface CallOptions {
  signal: AbortSignalLike;
  timeouts: { connectMs: number; firstByteMs: number; betweenChunksMs: number };
  /** Sees each HTTP request as it leaves for `target` (a key in debug capture: docs/debug-capture.md); absent: nothing is kept. */
  observeRequest?: ((request: UpstreamRequest, target: UpstreamTarget) => void) | undefined;
}

/**
 * The client-facing wire formats an upstream may accept as they are: a surface that receives one
 * passes the client's own body through to a target whose adapter accepts it (native pass-through).
 */
export type WireFormat = 'anthropic-messages' | 'openai-responses' | 'chat-completions';

/** One event of a named-event stream (Messages, Responses): its `event:` name and its parsed `data:` object. */
export interface NativeEvent {
  event: string;
  data: Record<string, unknown>;
}

/** An upstream's answer in a client's wire format: the body as received, and its usage for metering. */
export interface NativeAnswer {
  body: Record<string, unknown>;
  usage: TokenUsage;
  upstreamRequestId?: string;
  /** The id the provider keeps this answer under as context for a later request; absent when it keeps none. */
  storedId?: string | undefined;
}

/** An upstream's stream in a client's wire format: its events as received, and what metering needs of it. */
export interface NativeEventStream {
  events: AsyncIterable<NativeEvent>;
  /** Usage as known so far; undefined before the upstream said any. */
  usage(): TokenUsage | undefined;
  /** Whether the final usage arrived. */
  complete(): boolean;
  /** Text produced so far, for an estimate when the stream is cut short. */
  producedText(): string;
  /** The id the provider keeps this answer under as context for a later request, once known; absent when it keeps none. */
  storedId?: (() => string | undefined) | undefined;
}

export interface NativeCallOptions extends CallOptions {
  /** Request headers of the wire format, as the client sent them (Messages: `anthropic-version`, `anthropic-beta`). */
  wireHeaders?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * A wire format an adapter accepts as it is: the client's body goes upstream with only the
 * model replaced and the gateway's members removed, and the answer comes back as written.
 */
export interface NativeWire {
  /** Whether `target` serves this format (an `openai` provider serves Responses only with `responses_api`). */
  accepts(target: UpstreamTarget): boolean;
  /** One call; resolves with the whole answer (so the router can still retry a malformed one). */
  complete(body: Record<string, unknown>, target: UpstreamTarget, options: NativeCallOptions): Promise<NativeAnswer>;
  /** Starts a stream; resolves once the upstream answered 2xx, like `ProviderAdapter.stream`. */
  stream(body: Record<string, unknown>, target: UpstreamTarget, options: NativeCallOptions): Promise<NativeEventStream>;
}

/** What the router calls. HTTP providers get this from `createHttpAdapter(codec)`. */
export interface ProviderAdapter {
  readonly kind: ProviderKind;
  /** The client wire formats this provider accepts as they are, each with its own call; absent: none. */
  readonly native?: Readonly<Partial<Record<WireFormat, NativeWire>>>;
  complete(request: ChatRequest, target: UpstreamTarget, options: CallOptions): Promise<ProviderCompletion>;
  /**
   * Starts a stream. The returned promise resolves once the upstream has answered with a
   * successful status (so the caller can still retry or fall back before sending a byte),
   * and rejects with UpstreamError otherwise.
   */
  stream(
    request: ChatRequest,
    target: UpstreamTarget,
    options: CallOptions,
  ): Promise<AsyncIterable<ProviderStreamEvent>>;
}
