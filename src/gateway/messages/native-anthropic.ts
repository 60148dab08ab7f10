import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  decide,
  DEFAULT_RETRY,
  nativeMessagesComplete,
  nativeMessagesStream,
  routeCalls,
  RoutingError,
  type Attempt,
  type NativeHeaders,
  type NativeStream,
  type UpstreamTarget,
} from '../../providers/index.js';
import { type TokenUsage } from '../../canonical/completion.js';
import type { CatalogueModel } from '../../catalogue/catalogue.js';
import type { ConversationStore } from '../../compress/conversation-request.js';
import { countTextTokens } from '../../tokenize/index.js';
import type { ChatRequest } from '../../canonical/chat-request.js';
import type { AdmitOptions } from '../chat/admission.js';
import type { GatewayToolPlan } from '../chat/gateway-tool-plan.js';
import { applyCompression, type AppliedCompression } from '../chat/apply-compression.js';
import { CLIENT_CLOSED_REQUEST, responseExtras, type Execution } from '../chat/execute.js';
import { meter, usageCommitted, ZERO_USAGE } from '../chat/metering.js';
import { toProviderGatewayError } from '../chat/provider-error.js';
import { SseWriter, sseNamedEvent } from '../chat/sse-writer.js';
import type { GatewayError } from '../errors.js';
import type { MessagesRequest } from './messages-schema.js';
import { toAnthropicError } from './anthropic-errors.js';

/**
 * Native pass-through for `/v1/messages` (docs/agent-endpoints.md, "Native pass-through"):
 * when the model's first upstream target is an Anthropic one, the client's own Messages body
 * goes upstream (model replaced, gateway members removed, compressed in Messages form when
 * compression applies) and Anthropic's answer comes back as it was, `model` echoing the client.
 * Admission (auth, key models, ceilings, tags, debug) and metering (one row, committed before the
 * last byte) are those of every route; only the body and the answer skip the translation.
 *
 * Translation stays in charge when gateway tools are injected or a `gateway_pending_id` is sent
 * (the tool loop works on the canonical chat shape), and when the first target is not Anthropic.
 *
 * Routing: retries and fallback run across the leading Anthropic targets of the model's list,
 * natively. When all of them fail before the first byte with an error another provider might not
 * have (retryable, 401/403/404, malformed), the remaining targets are tried through the
 * translated path, exactly as a translated request would have; a final error (400, 413, 422,
 * client gone) is returned at once, like on the translated path.
 */

export interface PreparedNative {
  /** The client's Messages body, compressed when compression applies; gateway members still in (the provider layer removes them). */
  body: Record<string, unknown>;
  compression: AppliedCompression | undefined;
}

/** Whether a request goes native: no gateway tools, no pending id, and an Anthropic first target. */
export function nativeEligible(context: {
  body: ChatRequest;
  plan: GatewayToolPlan | undefined;
  targets: UpstreamTarget[];
}): boolean {
  return (
    (context.plan?.tools.size ?? 0) === 0 &&
    context.body.gateway_pending_id === undefined &&
    context.targets[0]?.kind === 'anthropic'
  );
}

/**
 * Admission options for a Messages request: when it goes native, compression runs on the
 * client's Messages body (inside admission, so a compression error is still a plain 400 before
 * any budget is reserved) instead of on the canonical body. `prepared()` says which path won.
 */
export function nativeAdmission(
  request: FastifyRequest,
  client: MessagesRequest,
): { options: AdmitOptions; prepared(): PreparedNative | undefined } {
  let prepared: PreparedNative | undefined;
  return {
    options: {
      compressCanonical: async (context) => {
        if (!nativeEligible(context)) return true;
        prepared = await compressMessagesBody(request, client, context.model, context.services.compression);
        return false;
      },
    },
    prepared: () => prepared,
  };
}

/**
 * Compression in Messages form: the compression engine reads a body as Messages-style when it has
 * `system` (rule 1 of its format detection), so a body without one gets an empty placeholder
 * for the reading, removed again from what is sent.
 */
async function compressMessagesBody(
  request: FastifyRequest,
  client: MessagesRequest,
  model: CatalogueModel,
  conversations: ConversationStore | undefined,
): Promise<PreparedNative> {
  const source = client as unknown as Record<string, unknown>;
  const hadSystem = 'system' in source;
  const probe = hadSystem ? source : { ...source, system: undefined };
  const { body, compression } = await applyCompression(request, probe as unknown as ChatRequest, model, conversations);
  const out = { ...(body as unknown as Record<string, unknown>) };
  if (!hadSystem && out.system === undefined) delete out.system;
  return { body: out, compression };
}

/** `anthropic-version` and `anthropic-beta` as the client sent them (repeated headers joined). */
function clientHeaders(request: FastifyRequest): NativeHeaders {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);
  return {
    anthropicVersion: one(request.headers['anthropic-version']),
    anthropicBeta: one(request.headers['anthropic-beta']),
  };
}

/** Extras of the answer: compression and debug as on every route, plus which path served it. */
function nativeExtras(execution: Execution, attempts: Attempt[], target: UpstreamTarget): Record<string, unknown> {
  const extras = responseExtras(execution.admission, attempts, target.providerId, target.upstreamModel);
  if (extras.debug && typeof extras.debug === 'object') extras.debug = { ...extras.debug, messages_path: 'native' };
  return extras;
}

/** Puts the native attempts first in a translated fallback's debug member. */
function withNativeAttempts(extras: Record<string, unknown>, native: Attempt[]): Record<string, unknown> {
  const debug = extras.debug as { attempts?: unknown[] } | undefined;
  if (!debug || !Array.isArray(debug.attempts)) return extras;
  const mapped = native.map((a) => ({
    provider: a.providerId,
    upstream_model: a.upstreamModel,
    status: a.status,
    error: a.error ?? null,
    duration_ms: a.durationMs,
  }));
  return {
    ...extras,
    debug: { ...debug, attempts: [...mapped, ...debug.attempts], messages_path: 'translated_fallback' },
  };
}

function record(
  execution: Execution,
  target: Pick<UpstreamTarget, 'providerId' | 'upstreamModel'>,
  stream: boolean,
  outcome: { status: number; errorCode: string | null; usage: TokenUsage },
): void {
  const { admission } = execution;
  meter(execution.services, execution.request, admission, {
    ...outcome,
    provider: target.providerId,
    upstreamModel: target.upstreamModel,
    stream,
    endpoint: execution.endpoint,
    uncompressedInputTokens: admission.compression
      ? outcome.usage.inputTokens + admission.compression.savedTokens
      : null,
  });
}

/** Meters a request that got no answer and returns what the client gets (as execute.ts does). */
function failedBeforeAnswer(
  execution: Execution,
  first: UpstreamTarget,
  error: unknown,
  stream: boolean,
): GatewayError {
  // The provider whose answer (or silence) ended the routing, not necessarily the first one.
  const target = (error instanceof RoutingError ? error.attempts.at(-1) : undefined) ?? first;
  const gatewayError = toProviderGatewayError(error, target.providerId);
  const clientGone = execution.signal.aborted;
  record(execution, target, stream, {
    status: clientGone ? CLIENT_CLOSED_REQUEST : gatewayError.status,
    errorCode: clientGone ? 'client_closed' : gatewayError.code,
    usage: clientGone ? { ...ZERO_USAGE, inputTokens: execution.admission.promptEstimate } : ZERO_USAGE,
  });
  return gatewayError;
}

/**
 * The translated path of the same request, for the fallback: `decorate` lets the native
 * attempts show in the debug member.
 */
export type TranslatedFallback = (
  decorate: (extras: Record<string, unknown>) => Record<string, unknown>,
) => Promise<unknown>;

/** Serves one admitted request natively; see the module comment for routing and fallback. */
export async function serveNativeMessages(
  reply: FastifyReply,
  execution: Execution,
  client: MessagesRequest,
  prepared: PreparedNative,
  translated: TranslatedFallback,
): Promise<unknown> {
  const { admission, services, request } = execution;
  const allTargets = admission.targets;
  let split = allTargets.findIndex((t) => t.kind !== 'anthropic');
  if (split < 0) split = allTargets.length;
  const nativeTargets = allTargets.slice(0, split);
  const rest = allTargets.slice(split);
  const { timeouts, retry } = services.upstream;
  const routeOptions = { signal: execution.signal, timeouts, retry };
  const headers = clientHeaders(request);
  const stream = client.stream === true;

  let routed;
  try {
    routed = stream
      ? await routeCalls(nativeTargets, routeOptions, (target, options) =>
          nativeMessagesStream(prepared.body, target, { ...options, ...headers }),
        )
      : await routeCalls(nativeTargets, routeOptions, (target, options) =>
          nativeMessagesComplete(prepared.body, target, { ...options, ...headers }),
        );
  } catch (error) {
    const maxAttempts = Math.max(1, retry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts);
    const movesOn = error instanceof RoutingError && decide(error.lastError, maxAttempts, maxAttempts) !== 'fail';
    if (rest.length > 0 && movesOn && !execution.signal.aborted) {
      // The translated path takes over the remaining targets, compressed in its own form.
      admission.targets = rest;
      admission.compression = undefined;
      const compressed = await applyCompression(request, admission.body, admission.model, services.compression);
      admission.body = compressed.body;
      admission.compression = compressed.compression;
      const nativeAttempts = error instanceof RoutingError ? error.attempts : [];
      return translated((extras) => withNativeAttempts(extras, nativeAttempts));
    }
    throw failedBeforeAnswer(execution, nativeTargets[0]!, error, stream);
  }

  if (!stream) {
    const answer = routed.result as Awaited<ReturnType<typeof nativeMessagesComplete>>;
    record(execution, routed.target, false, { status: 200, errorCode: null, usage: answer.usage });
    return reply.send({
      ...answer.body,
      model: client.model,
      ...nativeExtras(execution, routed.attempts, routed.target),
    });
  }
  return relayStream(reply, execution, client, routed.result as NativeStream, routed.target, routed.attempts);
}

/**
 * Relays Anthropic's events as they come (`message_start` with the client's model, gateway
 * members on `message_delta`, as on the translated path). `message_stop` is held until the
 * usage row is committed; a failure after the first byte is Anthropic's `error` event.
 */
async function relayStream(
  reply: FastifyReply,
  execution: Execution,
  client: MessagesRequest,
  upstream: NativeStream,
  target: UpstreamTarget,
  attempts: Attempt[],
): Promise<void> {
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  // The first event may take a while: the client sees the answer start as soon as the upstream's did.
  writer.start({ 'x-request-id': execution.request.id }, { flush: true });
  let recorded = false;
  const finish = (status: number, errorCode: string | null) => {
    if (recorded) return;
    recorded = true;
    record(execution, target, true, { status, errorCode, usage: streamUsage(execution, upstream) });
  };
  let stop: Record<string, unknown> | undefined;
  try {
    for await (const { event, data } of upstream.events) {
      if (event === 'message_stop') {
        stop = data;
        continue;
      }
      let out = data;
      if (event === 'message_start' && data.message && typeof data.message === 'object') {
        out = { ...data, message: { ...(data.message as Record<string, unknown>), model: client.model } };
      } else if (event === 'message_delta') {
        out = { ...data, ...nativeExtras(execution, attempts, target) };
      }
      await writer.sendEvent(event, out);
      if (writer.isClosed) break;
    }
    if (writer.isClosed) {
      finish(CLIENT_CLOSED_REQUEST, 'client_closed');
      return;
    }
    finish(200, null);
    writer.holdForEnd();
    await usageCommitted(execution.request);
    writer.end(sseNamedEvent('message_stop', stop ?? { type: 'message_stop' }));
  } catch (error) {
    const gatewayError = toProviderGatewayError(error, target.providerId);
    if (execution.signal.aborted || writer.isClosed) finish(CLIENT_CLOSED_REQUEST, 'client_closed');
    else finish(gatewayError.status, gatewayError.code);
    writer.end(sseNamedEvent('error', toAnthropicError(gatewayError, execution.request.id)));
  }
}

/** The stream's usage; when it was cut short, message_start's input and our count of what was produced. */
function streamUsage(execution: Execution, upstream: NativeStream): TokenUsage {
  const known = upstream.usage();
  if (known && upstream.complete()) return known;
  const { admission } = execution;
  const base = known ?? { ...ZERO_USAGE, inputTokens: admission.promptEstimate };
  const text = upstream.producedText();
  const counted = text ? countTextTokens(text, admission.tokenizer) : 0;
  return { ...base, outputTokens: Math.max(base.outputTokens, counted) };
}
