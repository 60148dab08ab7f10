import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callWithFallback, streamWithFallback, UpstreamError, type Attempt, type TokenUsage } from '../../providers/index.js';
import { countTextTokens } from '../../tokenize/index.js';
import { ChatRequestSchema, type ChatRequest } from '../schemas/chat-request.js';
import type { GatewayServices } from '../gateway-services.js';
import { GatewayError } from '../errors.js';
import { admit, type Admission } from './admission.js';
import { meter, ZERO_USAGE } from './metering.js';
import { toProviderGatewayError } from './provider-error.js';
import { formatChunk, formatCompletion, formatUsageChunk, type CompletionIdentity } from './completion-format.js';
import { SseWriter } from './sse-writer.js';
import { StreamAccumulator } from './stream-accumulator.js';
import { formatCompression } from './apply-compression.js';

/** HTTP status recorded for a request whose client went away (nginx's convention). */
const CLIENT_CLOSED_REQUEST = 499;
const ENDPOINT = '/v1/chat/completions';

export function registerChatCompletionsRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: ChatRequest }>(ENDPOINT, { schema: { body: ChatRequestSchema } }, async (request, reply) => {
    const body = request.body;
    const admission = await admit(services, request, body);
    const abort = new AbortController();
    // The response's 'close' before it finished means the client left: stop the upstream at once.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const identity: CompletionIdentity = {
      id: `chatcmpl-${randomBytes(12).toString('base64url')}`,
      created: Math.floor(admission.startedAt / 1000),
      model: body.model,
    };
    const routeOptions = { signal: abort.signal, timeouts: services.upstream.timeouts, retry: services.upstream.retry };
    if (body.stream) return streamCompletion(services, request, reply, admission, identity, routeOptions);

    try {
      const routed = await callWithFallback(admission.body, admission.targets, routeOptions);
      const { usage } = routed.result;
      meter(services, request, admission, success(admission, routed.target.providerId, routed.target.upstreamModel, usage, false));
      return reply.send(formatCompletion(identity, routed.result, responseExtras(admission, routed.attempts, routed.target.providerId, routed.target.upstreamModel)));
    } catch (error) {
      throw failed(services, request, admission, error, abort.signal, false);
    }
  });
}

async function streamCompletion(
  services: GatewayServices,
  request: FastifyRequest,
  reply: FastifyReply,
  admission: Admission,
  identity: CompletionIdentity,
  routeOptions: Parameters<typeof streamWithFallback>[2],
): Promise<void> {
  let routed: Awaited<ReturnType<typeof streamWithFallback>>;
  try {
    routed = await streamWithFallback(admission.body, admission.targets, routeOptions);
  } catch (error) {
    // Nothing has reached the client yet: an ordinary JSON error response.
    throw failed(services, request, admission, error, routeOptions.signal, true);
  }

  reply.hijack();
  const writer = new SseWriter(reply.raw);
  writer.start({ 'x-request-id': request.id });
  const accumulator = new StreamAccumulator();
  const { providerId, upstreamModel } = routed.target;
  try {
    await writer.send(formatChunk(identity, { role: 'assistant', content: '' }, null));
    for await (const event of routed.result) {
      accumulator.add(event);
      if (event.type === 'delta') {
        const delta: { content?: string; refusal?: string; tool_calls?: typeof event.toolCalls } = {};
        if (event.content) delta.content = event.content;
        if (event.refusal) delta.refusal = event.refusal;
        if (event.toolCalls?.length) delta.tool_calls = event.toolCalls;
        await writer.send(formatChunk(identity, delta, null));
      } else if (event.type === 'finish') {
        await writer.send(formatChunk(identity, {}, event.finishReason));
      }
      if (writer.isClosed) break;
    }
    if (writer.isClosed) throw new UpstreamError('client closed the stream', { status: null, retryable: false, kind: 'aborted' });
    const usage = accumulator.usage ?? estimateUsage(admission, accumulator);
    meter(services, request, admission, success(admission, providerId, upstreamModel, usage, true));
    if (admission.body.stream_options?.include_usage) {
      await writer.send(formatUsageChunk(identity, usage, responseExtras(admission, routed.attempts, providerId, upstreamModel)));
    }
    await writer.done();
  } catch (error) {
    const clientGone = writer.isClosed || routeOptions.signal.aborted;
    const usage = accumulator.usage ?? estimateUsage(admission, accumulator);
    const gatewayError = toProviderGatewayError(error, providerId);
    meter(services, request, admission, {
      status: clientGone ? CLIENT_CLOSED_REQUEST : gatewayError.status,
      errorCode: clientGone ? 'client_closed' : gatewayError.code,
      usage,
      provider: providerId,
      upstreamModel,
      stream: true,
      endpoint: ENDPOINT,
      uncompressedInputTokens: uncompressedInput(admission, usage),
    });
    if (!clientGone) {
      await writer.send(gatewayError.toEnvelope());
      writer.end();
    }
  }
}

function success(admission: Admission, provider: string, upstreamModel: string, usage: TokenUsage, stream: boolean) {
  return { status: 200, errorCode: null, usage, provider, upstreamModel, stream, endpoint: ENDPOINT, uncompressedInputTokens: uncompressedInput(admission, usage) };
}

/** The provider billed the compressed prompt; the row also keeps what it would have been. */
function uncompressedInput(admission: Admission, usage: TokenUsage): number | null {
  return admission.compression ? usage.inputTokens + admission.compression.savedTokens : null;
}

function responseExtras(admission: Admission, attempts: Attempt[], provider: string, upstreamModel: string): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (admission.compression) extra.compression = formatCompression(admission.compression);
  if (admission.debug) extra.debug = debugInfo(admission, attempts, provider, upstreamModel);
  return extra;
}

/**
 * Records the failure and returns what the client gets. A client that left before any answer
 * is charged the estimated prompt (the provider may have processed it); an upstream failure
 * is charged nothing, since providers do not bill failed requests.
 */
function failed(
  services: GatewayServices,
  request: FastifyRequest,
  admission: Admission,
  error: unknown,
  signal: AbortSignal,
  stream: boolean,
): GatewayError {
  const last = admission.targets[0]!;
  const gatewayError = toProviderGatewayError(error, last.providerId);
  const clientGone = signal.aborted;
  meter(services, request, admission, {
    status: clientGone ? CLIENT_CLOSED_REQUEST : gatewayError.status,
    errorCode: clientGone ? 'client_closed' : gatewayError.code,
    usage: clientGone ? { ...ZERO_USAGE, inputTokens: admission.promptEstimate } : ZERO_USAGE,
    provider: last.providerId,
    upstreamModel: last.upstreamModel,
    stream,
    endpoint: ENDPOINT,
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

function debugInfo(admission: Admission, attempts: Attempt[], provider: string, upstreamModel: string) {
  return {
    request_id: admission.requestId,
    provider,
    upstream_model: upstreamModel,
    attempts: attempts.map((a) => ({ provider: a.providerId, upstream_model: a.upstreamModel, status: a.status, error: a.error ?? null, duration_ms: a.durationMs })),
    prompt_tokens_estimate: admission.promptEstimate,
    tags: admission.tags,
    timings: { total_ms: Date.now() - admission.startedAt },
  };
}
