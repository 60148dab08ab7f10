import {
  decide,
  DEFAULT_RETRY,
  routeCalls,
  RoutingError,
  type CallOptions,
  type UpstreamTarget,
} from '../providers/index.js';
import type { TokenUsage } from '../canonical/completion.js';
import type { Call } from './call.js';
import { ZERO_USAGE } from './meter.js';
import { applyCompression } from './apply-compression.js';

/**
 * Native pass-through: when an endpoint and the model's first upstream speak the same wire
 * format, the client's own body goes upstream (model replaced, gateway members removed,
 * compressed in its own form) and the answer comes back as the upstream wrote it. Admission and
 * settlement are the core's as on every path; only the body and the answer skip translation.
 *
 * Routing: retries and fallback run natively across the leading targets of the endpoint's kind.
 * When all of them fail before the first byte with an error another provider might not have
 * (retryable, 401/403/404, malformed), the remaining targets are served through the translated
 * path, exactly as a translated request would have been; a final error (400, 413, 422, client
 * gone) is returned at once, as on the translated path.
 */

/** What an upstream's native answer gives the core: the body as received, and its usage for metering. */
export interface NativeAnswer<J> {
  body: J;
  usage: TokenUsage;
  /** The id the provider keeps this answer under as context for a later request; absent when it keeps none. */
  storedId?: string | undefined;
}

/** A native upstream stream: its events as received, and what the core needs to meter it. */
export interface NativeStream<E> {
  events: AsyncIterable<E>;
  /** Usage as known so far; undefined before the upstream said any. */
  usage(): TokenUsage | undefined;
  /** Whether the final usage arrived. */
  complete(): boolean;
  /** Text produced so far, for an estimate when the stream is cut short. */
  producedText(): string;
  /** The id the provider keeps this answer under as context for a later request, once known; absent when it keeps none. */
  storedId?: (() => string | undefined) | undefined;
}

/** An endpoint's native route, built by its codec once admission chose it. */
export interface NativeRoute<J, E> {
  /** Whether a target speaks the endpoint's wire format (the leading run of such targets is served natively). */
  speaks(target: UpstreamTarget): boolean;
  /**
   * Whether the request can also be served translated, when the native targets fail and others
   * follow. False when the body holds what the canonical request cannot carry: the native
   * failure is then final.
   */
  translatable: boolean;
  /** The debug member that says which path served the request (`messages_path`, `responses_path`). */
  debugMember: string;
  complete(target: UpstreamTarget, options: CallOptions): Promise<NativeAnswer<J>>;
  stream(target: UpstreamTarget, options: CallOptions): Promise<NativeStream<E>>;
}

export interface NativeJson<J> {
  native: true;
  body: J;
  extras: Record<string, unknown>;
}

export interface NativeEvents<E> {
  native: true;
  /** Iterate to the end, or stop early (the upstream is then aborted and the request metered as 499). */
  events: AsyncIterable<E>;
  usage(): TokenUsage;
  extras(): Record<string, unknown>;
}

/** The native answer in one piece; undefined when the translated path takes over the rest of the targets. */
export async function nativeJson<J, E>(call: Call, route: NativeRoute<J, E>): Promise<NativeJson<J> | undefined> {
  const answer = await nativeAttempt(call, route, false, (target, options) => route.complete(target, options));
  if (!answer) return undefined;
  call.storedAnswerId = () => answer.storedId;
  call.answered(answer.usage);
  return { native: true, body: answer.body, extras: call.extras() };
}

/** The native stream, resolved once the upstream answered; undefined when the translated path takes over. */
export async function nativeStream<J, E>(call: Call, route: NativeRoute<J, E>): Promise<NativeEvents<E> | undefined> {
  const upstream = await nativeAttempt(call, route, true, (target, options) => route.stream(target, options));
  if (!upstream) return undefined;
  call.storedAnswerId = upstream.storedId;
  const providerId = call.providerId;
  let finalUsage: TokenUsage = ZERO_USAGE;
  const events = call.relayEvents(upstream.events, () => (finalUsage = streamUsage(call, upstream)), {
    failure: (error) => call.upstreamFailure(error, providerId),
  });
  return { native: true, events, usage: () => finalUsage, extras: () => call.extras() };
}

async function nativeAttempt<J, E, T>(
  call: Call,
  route: NativeRoute<J, E>,
  stream: boolean,
  open: (target: UpstreamTarget, options: CallOptions) => Promise<T>,
): Promise<T | undefined> {
  const { admission } = call;
  let split = admission.targets.findIndex((t) => !route.speaks(t));
  if (split < 0) split = admission.targets.length;
  const nativeTargets = admission.targets.slice(0, split);
  const rest = admission.targets.slice(split);
  call.path = { member: route.debugMember, value: 'native' };
  try {
    return (await call.route((options) => routeCalls(nativeTargets, options, open))).result;
  } catch (error) {
    const maxAttempts = Math.max(1, call.services.upstream.retry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts);
    const movesOn = error instanceof RoutingError && decide(error.lastError, maxAttempts, maxAttempts) !== 'fail';
    if (route.translatable && rest.length > 0 && movesOn && !call.clientGone) {
      // The translated path takes over the remaining targets, compressed in its own form.
      call.path = { member: route.debugMember, value: 'translated_fallback' };
      admission.targets = rest;
      admission.compression = undefined;
      const compressed = await applyCompression(
        call.request,
        admission.body,
        admission.model,
        call.services.compression,
      );
      admission.body = compressed.body;
      admission.compression = compressed.compression;
      return undefined;
    }
    throw call.fail(error, stream, call.unansweredUsage);
  }
}

/** A native stream's usage; when it was cut short, what the upstream said so far and our count of what was produced. */
function streamUsage<E>(call: Call, upstream: NativeStream<E>): TokenUsage {
  const known = upstream.usage();
  if (known && upstream.complete()) return known;
  const base = known ?? { ...ZERO_USAGE, inputTokens: call.admission.promptEstimate };
  const produced = call.estimateUsage(0, upstream.producedText()).outputTokens;
  return { ...base, outputTokens: Math.max(base.outputTokens, produced) };
}
