import type { ProviderStreamEvent } from '../canonical/completion.js';
import type { Call } from './call.js';
import { nativeJson, nativeStream, type NativeEvents, type NativeJson, type NativeRoute } from './native.js';
import { singleJson, singleStream, type CanonicalAnswer, type CanonicalStream } from './single-call.js';
import { hasGatewayTools, toolLoopJson, toolLoopStream } from './tool-loop.js';

/**
 * Route: how the core gets an answer for an admitted call. A native pass-through when the
 * codec offers one and the model's first target speaks the endpoint's wire format; otherwise
 * the translated path: the gateway-tool loop (several upstream calls, one answer) when gateway
 * tools were injected, else one call. Every path is settled by the call (src/pipeline/call.ts).
 */
export function answerJson(call: Call): Promise<CanonicalAnswer>;
export function answerJson<J, E>(
  call: Call,
  native: NativeRoute<J, E> | undefined,
): Promise<CanonicalAnswer | NativeJson<J>>;
export async function answerJson<J, E>(
  call: Call,
  native?: NativeRoute<J, E>,
): Promise<CanonicalAnswer | NativeJson<J>> {
  if (native) {
    const answer = await nativeJson(call, native);
    if (answer) return answer;
  }
  return hasGatewayTools(call) ? toolLoopJson(call) : singleJson(call);
}

/** The streamed counterpart of `answerJson`: resolves once an upstream has answered. */
export function answerStream(call: Call): Promise<CanonicalStream>;
export function answerStream<J, E>(
  call: Call,
  native: NativeRoute<J, E> | undefined,
): Promise<CanonicalStream | NativeEvents<E>>;
export async function answerStream<J, E>(
  call: Call,
  native?: NativeRoute<J, E>,
): Promise<CanonicalStream | NativeEvents<E>> {
  if (native) {
    const stream = await nativeStream(call, native);
    if (stream) return stream;
  }
  return hasGatewayTools(call) ? toolLoopStream(call) : singleStream(call);
}

export type { CanonicalAnswer, CanonicalStream, NativeEvents, NativeJson, ProviderStreamEvent };
