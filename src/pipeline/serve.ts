import type { FastifyReply } from 'fastify';
import type { ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../canonical/completion.js';
import type { NativeEvent } from '../providers/index.js';
import type { Call, Charge } from './call.js';
import { GatewayError } from './errors.js';
import { nativeJson, nativeStream, translatedFallback } from './native.js';
import { relayStream, sendJson, type StreamEncoder } from './relay.js';
import type { RelayedEvents } from './relayed-events.js';
import { singleJson, singleStream, type UpstreamStream } from './single-call.js';
import { hasGatewayTools, ToolLoop, toolLoopJson, toolLoopStream } from './tool-loop.js';
import type { Plan } from './plan.js';

/**
 * How one surface writes its answers: a translated answer (a provider-neutral completion or
 * stream) in the surface's wire format, and, for a surface that makes a native offer at
 * admission, the upstream's own answer with the gateway's members. Pure formatting: answering,
 * failing and settling are `serve`'s.
 */
export interface AnswerCodec {
  /** The client's body for a translated answer in one piece. */
  completion(completion: ProviderCompletion, extras: Record<string, unknown>): unknown;
  /** How a translated stream is framed. */
  events(session: StreamSession): StreamEncoder<ProviderStreamEvent>;
  /** The client's body for the upstream's own answer in one piece (a surface with a native offer). */
  nativeBody?(answer: Record<string, unknown>, extras: Record<string, unknown>): unknown;
  /** How the upstream's own stream is framed (a surface with a native offer). */
  nativeEvents?(session: StreamSession): StreamEncoder<NativeEvent>;
}

/** A stream as a codec's encoder sees it: usage and extras are valid once its events have ended. */
export interface StreamSession {
  /** The usage the request was settled with. */
  usage(): TokenUsage;
  /** The gateway members of the final event (compression, debug, and the gateway tools' when the loop ran). */
  extras(): Record<string, unknown>;
  /**
   * With gateway tools: `gateway_tools_executed` and `gateway_pending_id`, valid from the moment
   * the finish event is yielded (the chat codec puts them on the finish chunk too); else undefined.
   */
  gatewayExtras(): Record<string, unknown> | undefined;
}

/** The stream `serve` relays: its events already metered, settled once when they end. */
export class ServedStream<E> implements StreamSession {
  constructor(
    private readonly call: Call,
    readonly events: RelayedEvents<E>,
    private readonly loop: ToolLoop | undefined,
  ) {}

  usage(): TokenUsage {
    return this.events.settledUsage;
  }

  extras(): Record<string, unknown> {
    return this.loop ? { ...this.call.extras(), ...this.loop.gatewayExtras() } : this.call.extras();
  }

  gatewayExtras(): Record<string, unknown> | undefined {
    return this.loop?.gatewayExtras();
  }
}

/**
 * Answers an opened call, whatever its strategy: native pass-through, the gateway-tool loop or
 * one call. This is the only place a request is answered, failed or relayed, so every opened
 * call is settled exactly once: answered (JSON) before its body is sent; relayed (stream) and
 * settled when its events end, fail or are abandoned; or failed with the charge of its
 * strategy, whatever threw, the client's departure included. A native plan whose targets all
 * failed in a way another provider might not is followed by the translated plan that
 * `translatedFallback` builds.
 */
export function serve(call: Call, codec: AnswerCodec): Promise<FastifyReply | undefined> {
  // The reply of a JSON answer is returned to Fastify: its body leaves once the usage row is committed.
  return call.admission.stream ? serveStream(call, codec) : serveJson(call, codec);
}

async function serveJson(call: Call, codec: AnswerCodec): Promise<FastifyReply> {
  for (;;) {
    const plan = call.plan;
    let charged: Charge = call;
    try {
      if (plan.native) {
        const answer = await nativeJson(call, plan);
        call.answered(answer.usage);
        return sendJson(call, nativeCodec(codec).nativeBody(answer.body, call.extras()));
      }
      if (hasGatewayTools(call)) {
        const loop = new ToolLoop(call, plan);
        charged = loop;
        const completion = await toolLoopJson(loop);
        call.answered(loop.usage);
        return sendJson(call, codec.completion(completion, { ...call.extras(), ...loop.gatewayExtras() }));
      }
      const completion = await singleJson(call, plan);
      call.answered(completion.usage);
      return sendJson(call, codec.completion(completion, call.extras()));
    } catch (error) {
      // Answered already: what broke is the codec's, the request is metered.
      if (call.isSettled) throw error;
      if (await fellBack(call, plan, error, false)) continue;
      throw call.fail(error, false, charged);
    }
  }
}

async function serveStream(call: Call, codec: AnswerCodec): Promise<undefined> {
  for (;;) {
    const plan = call.plan;
    let charged: Charge = call;
    let opened: { cancel(): void } | undefined;
    try {
      if (plan.native) {
        const native = new ServedStream(call, relayed(call, await nativeStream(call, plan)), undefined);
        opened = native.events;
        await relayStream(call, native.events, nativeCodec(codec).nativeEvents(native));
        return undefined;
      }
      const loop = hasGatewayTools(call) ? new ToolLoop(call, plan) : undefined;
      if (loop) charged = loop;
      const upstream = loop ? await toolLoopStream(loop) : await singleStream(call, plan);
      const served = new ServedStream(call, relayed(call, upstream), loop);
      opened = served.events;
      await relayStream(call, served.events, codec.events(served));
      return undefined;
    } catch (error) {
      // Relayed streams settle themselves (end, failure, abandonment): what broke after is rethrown.
      if (call.isSettled) throw error;
      if (!opened && (await fellBack(call, plan, error, true))) continue;
      const clientError = call.fail(error, true, charged);
      // An upstream opened but never relayed (its encoder failed to build) is closed.
      opened?.cancel();
      throw clientError;
    }
  }
}

/**
 * Whether a translated plan takes over from a failed native `plan` (it is then the call's). A
 * failure to build it (compression refused the canonical body) fails the call.
 */
async function fellBack(call: Call, plan: Plan, error: unknown, stream: boolean): Promise<boolean> {
  if (!plan.native) return false;
  let next: Plan | undefined;
  try {
    next = await translatedFallback(call, plan, error);
  } catch (fallbackError) {
    throw call.fail(fallbackError, stream, call);
  }
  if (!next) return false;
  call.plan = next;
  return true;
}

function nativeCodec(codec: AnswerCodec): Required<AnswerCodec> {
  if (!codec.nativeBody || !codec.nativeEvents)
    throw new GatewayError('internal_error', { message: 'A native plan on a surface that writes no native answer.' });
  return codec as Required<AnswerCodec>;
}

function relayed<E>(call: Call, upstream: UpstreamStream<E>): RelayedEvents<E> {
  return call.relayEvents(upstream.source, upstream.usage, upstream);
}
