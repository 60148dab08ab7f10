import { callWithFallback, RoutingError, streamWithFallback, type Attempt } from '../../providers/index.js';
import { type ProviderStreamEvent, type TokenUsage } from '../../canonical/completion.js';
import { countTextTokens } from '../../tokenize/index.js';
import type { GatewayError } from '../errors.js';
import type { Admission } from './admission.js';
import { meter, ZERO_USAGE } from './metering.js';
import { toProviderGatewayError } from './provider-error.js';
import { StreamAccumulator } from './stream-accumulator.js';
import { formatCompression } from './apply-compression.js';
export type { Execution, JsonResult, StreamSession } from './execution.js';
import type { Execution, JsonResult, StreamSession } from './execution.js';
import { executeJsonWithTools, executeStreamWithTools, hasGatewayTools, type LoopHooks } from './gateway-tool-loop.js';

/** HTTP status recorded for a request whose client went away (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

function routeOptions(execution: Execution) {
  const { timeouts, retry } = execution.services.upstream;
  return { signal: execution.signal, timeouts, retry };
}

/** The metering, extras and routing the gateway-tool loop shares with the single-call path. */
function loopHooks(execution: Execution): LoopHooks {
  return {
    routeOptions: routeOptions(execution),
    record: (provider, upstreamModel, stream, outcome) => record(execution, provider, upstreamModel, stream, outcome),
    extras: (attempts, provider, upstreamModel) => extras(execution.admission, attempts, provider, upstreamModel),
  };
}

export async function executeJson(execution: Execution): Promise<JsonResult> {
  if (hasGatewayTools(execution)) return executeJsonWithTools(execution, loopHooks(execution));
  const { admission } = execution;
  try {
    const routed = await callWithFallback(admission.body, admission.targets, routeOptions(execution));
    record(execution, routed.target.providerId, routed.target.upstreamModel, false, {
      status: 200,
      errorCode: null,
      usage: routed.result.usage,
    });
    return {
      completion: routed.result,
      extras: extras(admission, routed.attempts, routed.target.providerId, routed.target.upstreamModel),
    };
  } catch (error) {
    throw failedBeforeAnswer(execution, error, false);
  }
}

/** Resolves once the upstream has answered, so a failure before that is still an ordinary error response. */
export async function executeStream(execution: Execution): Promise<StreamSession> {
  if (hasGatewayTools(execution)) return executeStreamWithTools(execution, loopHooks(execution));
  const { admission } = execution;
  let routed: Awaited<ReturnType<typeof streamWithFallback>>;
  try {
    routed = await streamWithFallback(admission.body, admission.targets, routeOptions(execution));
  } catch (error) {
    throw failedBeforeAnswer(execution, error, true);
  }
  const { providerId, upstreamModel } = routed.target;
  const accumulator = new StreamAccumulator();
  let finalUsage: TokenUsage = ZERO_USAGE;

  async function* events(): AsyncGenerator<ProviderStreamEvent> {
    let outcome: { status: number; errorCode: string | null } | undefined;
    try {
      for await (const event of routed.result) {
        accumulator.add(event);
        yield event;
      }
      outcome = { status: 200, errorCode: null };
    } catch (error) {
      const gatewayError = toProviderGatewayError(error, providerId);
      outcome = execution.signal.aborted
        ? { status: CLIENT_CLOSED_REQUEST, errorCode: 'client_closed' }
        : { status: gatewayError.status, errorCode: gatewayError.code };
      throw gatewayError;
    } finally {
      // No outcome: the consumer stopped iterating (its client left); the upstream is aborted by now.
      outcome ??= { status: CLIENT_CLOSED_REQUEST, errorCode: 'client_closed' };
      finalUsage = accumulator.usage ?? estimateUsage(admission, accumulator);
      record(execution, providerId, upstreamModel, true, { ...outcome, usage: finalUsage });
    }
  }

  return {
    events: events(),
    usage: () => finalUsage,
    extras: () => extras(admission, routed.attempts, providerId, upstreamModel),
  };
}

function record(
  execution: Execution,
  provider: string,
  upstreamModel: string,
  stream: boolean,
  outcome: { status: number; errorCode: string | null; usage: TokenUsage },
): void {
  const { admission } = execution;
  // Members listed one by one: spreading `outcome` into a new object is V8's slow generic copy.
  meter(execution.services, execution.request, admission, {
    status: outcome.status,
    errorCode: outcome.errorCode,
    usage: outcome.usage,
    provider,
    upstreamModel,
    stream,
    endpoint: execution.endpoint,
    uncompressedInputTokens: admission.compression
      ? outcome.usage.inputTokens + admission.compression.savedTokens
      : null,
  });
}

/**
 * Records a request that got no answer and returns what the client gets. A client that left
 * is charged the estimated prompt (the provider may have processed it); an upstream failure
 * is charged nothing, since providers do not bill failed requests.
 */
function failedBeforeAnswer(execution: Execution, error: unknown, stream: boolean): GatewayError {
  // The provider whose answer (or silence) ended the routing, not necessarily the first one.
  const last = (error instanceof RoutingError ? error.attempts.at(-1) : undefined) ?? execution.admission.targets[0]!;
  const gatewayError = toProviderGatewayError(error, last.providerId);
  const clientGone = execution.signal.aborted;
  record(execution, last.providerId, last.upstreamModel, stream, {
    status: clientGone ? CLIENT_CLOSED_REQUEST : gatewayError.status,
    errorCode: clientGone ? 'client_closed' : gatewayError.code,
    usage: clientGone ? { ...ZERO_USAGE, inputTokens: execution.admission.promptEstimate } : ZERO_USAGE,
  });
  return gatewayError;
}

/** When a stream ends without usage (aborted, or the provider sent none): our own counts. */
function estimateUsage(admission: Admission, accumulator: StreamAccumulator): TokenUsage {
  const text = accumulator.producedText();
  return {
    ...ZERO_USAGE,
    inputTokens: admission.promptEstimate,
    outputTokens: text ? countTextTokens(text, admission.tokenizer) : 0,
  };
}

/** The gateway members of a response (compression, debug); exported for the native /v1/messages path. */
export function responseExtras(
  admission: Admission,
  attempts: Attempt[],
  provider: string,
  upstreamModel: string,
): Record<string, unknown> {
  return extras(admission, attempts, provider, upstreamModel);
}

function extras(
  admission: Admission,
  attempts: Attempt[],
  provider: string,
  upstreamModel: string,
): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (admission.compression) extra.compression = formatCompression(admission.compression);
  if (admission.debug) {
    extra.debug = {
      request_id: admission.requestId,
      provider,
      upstream_model: upstreamModel,
      attempts: attempts.map((a) => ({
        provider: a.providerId,
        upstream_model: a.upstreamModel,
        status: a.status,
        error: a.error ?? null,
        duration_ms: a.durationMs,
      })),
      prompt_tokens_estimate: admission.promptEstimate,
      tags: admission.tags,
      timings: { total_ms: Date.now() - admission.startedAt },
    };
  }
  return extra;
}
