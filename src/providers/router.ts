import type { ChatRequest } from '../canonical/chat-request.js';
import { getAdapter, nativeWireOf } from './registry.js';
import { backoffMs, decide, DEFAULT_RETRY, sleep, type RetryOptions } from './retry-policy.js';
import {
  UpstreamError,
  type CallOptions,
  type NativeAnswer,
  type NativeEventStream,
  type NativeWire,
  type WireFormat,
  type ProviderAdapter,
  type ProviderKind,
  type UpstreamTarget,
} from './types.js';
import { type ProviderCompletion, type ProviderStreamEvent } from '../canonical/completion.js';

export interface Attempt {
  providerId: string;
  upstreamModel: string;
  status: number | null; // upstream HTTP status; 200 on success, null when no response
  error?: string; // sanitised message
  /** Epoch milliseconds (a trace's attempt spans start here). */
  startedAt: number;
  durationMs: number;
}

export interface RouteOptions extends CallOptions {
  retry?: RetryOptions;
  /** Tests inject adapters here; production uses the registry. */
  resolveAdapter?: (kind: ProviderKind) => ProviderAdapter;
}

export interface Routed<T> {
  result: T;
  target: UpstreamTarget;
  attempts: Attempt[];
}

/** Every target failed (or the first failure was final); carries the whole attempt history. */
export class RoutingError extends UpstreamError {
  constructor(
    readonly lastError: UpstreamError,
    readonly attempts: Attempt[],
  ) {
    super(lastError.message, lastError.details);
    this.name = 'RoutingError';
  }
}

function asUpstreamError(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  return new UpstreamError('provider adapter failed', { status: null, retryable: false, cause: err });
}

async function route<T>(
  targets: readonly UpstreamTarget[],
  options: RouteOptions,
  call: (adapter: ProviderAdapter, target: UpstreamTarget, callOptions: CallOptions) => Promise<T>,
): Promise<Routed<T>> {
  const { maxAttempts, baseDelayMs, maxDelayMs } = { ...DEFAULT_RETRY, ...options.retry };
  const resolve = options.resolveAdapter ?? getAdapter;
  const attempts: Attempt[] = [];
  // Created only when needed: an Error captures a stack trace, which costs more than a whole successful call's routing.
  let lastError: UpstreamError | undefined;

  targets: for (const [t, target] of targets.entries()) {
    const isLastTarget = t === targets.length - 1;
    for (let attempt = 1; attempt <= Math.max(1, maxAttempts); attempt++) {
      const startedAt = Date.now();
      const started = performance.now();
      try {
        const result = await call(resolve(target.kind), target, {
          signal: options.signal,
          timeouts: options.timeouts,
          observeRequest: options.observeRequest,
        });
        attempts.push({
          providerId: target.providerId,
          upstreamModel: target.upstreamModel,
          status: 200,
          startedAt,
          durationMs: Math.round(performance.now() - started),
        });
        return { result, target, attempts };
      } catch (err) {
        lastError = asUpstreamError(err);
        attempts.push({
          providerId: target.providerId,
          upstreamModel: target.upstreamModel,
          status: lastError.details.status,
          error: lastError.message,
          startedAt,
          durationMs: Math.round(performance.now() - started),
        });
        const decision = options.signal.aborted ? 'fail' : decide(lastError, attempt, maxAttempts);
        if (decision === 'fail') break targets;
        if (decision === 'next') continue targets;
        const retryAfter = lastError.details.retryAfterMs;
        // Waiting longer than maxDelayMs is worse than asking the next provider; with no next
        // provider there is nothing better to do than fail now.
        if (retryAfter !== undefined && retryAfter > maxDelayMs) {
          if (isLastTarget) break targets;
          continue targets;
        }
        await sleep(retryAfter ?? backoffMs(attempt, baseDelayMs, maxDelayMs), options.signal).catch(
          (abortErr: unknown) => {
            lastError = asUpstreamError(abortErr);
          },
        );
        if (options.signal.aborted) break targets;
      }
    }
  }
  throw new RoutingError(
    lastError ?? new UpstreamError('no upstream target configured', { status: null, retryable: false }),
    attempts,
  );
}

/** Non-streaming call with retry and fallback across `targets` (priority order). */
export function callWithFallback(
  request: ChatRequest,
  targets: readonly UpstreamTarget[],
  options: RouteOptions,
): Promise<Routed<ProviderCompletion>> {
  return route(targets, options, (adapter, target, callOptions) => adapter.complete(request, target, callOptions));
}

/**
 * Streaming call with retry and fallback. Fallback can only happen until an adapter's stream()
 * resolves (a 2xx arrived, nothing reached the client yet); after that, errors surface from the
 * iterator and the caller ends the client stream.
 */
export function streamWithFallback(
  request: ChatRequest,
  targets: readonly UpstreamTarget[],
  options: RouteOptions,
): Promise<Routed<AsyncIterable<ProviderStreamEvent>>> {
  return route(targets, options, (adapter, target, callOptions) => adapter.stream(request, target, callOptions));
}

/** What a native call sends: the client's body in its wire format, and that format's client headers. */
export interface NativeRequest {
  format: WireFormat;
  body: Record<string, unknown>;
  wireHeaders?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * A native call (the client's body in its own wire format) with retry and fallback across
 * `targets`, each called through its adapter's native call for that format.
 */
export function nativeCallWithFallback(
  request: NativeRequest,
  targets: readonly UpstreamTarget[],
  options: RouteOptions,
): Promise<Routed<NativeAnswer>> {
  return route(targets, options, (adapter, target, callOptions) =>
    nativeWire(adapter, request.format, target).complete(request.body, target, {
      ...callOptions,
      wireHeaders: request.wireHeaders,
    }),
  );
}

/** The streamed counterpart of `nativeCallWithFallback`: fallback only until an upstream answered 2xx. */
export function nativeStreamWithFallback(
  request: NativeRequest,
  targets: readonly UpstreamTarget[],
  options: RouteOptions,
): Promise<Routed<NativeEventStream>> {
  return route(targets, options, (adapter, target, callOptions) =>
    nativeWire(adapter, request.format, target).stream(request.body, target, {
      ...callOptions,
      wireHeaders: request.wireHeaders,
    }),
  );
}

function nativeWire(adapter: ProviderAdapter, format: WireFormat, target: UpstreamTarget): NativeWire {
  const wire = nativeWireOf(adapter, format, target);
  if (!wire)
    throw new UpstreamError(`${target.providerId} does not accept ${format}`, { status: null, retryable: false });
  return wire;
}
