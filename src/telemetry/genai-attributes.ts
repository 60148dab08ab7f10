import type { ProviderKind } from '../canonical/provider-kinds.js';
import type { RequestTraceData, TracedAttempt } from './request-trace.js';

/**
 * Span attributes following OpenTelemetry's GenAI semantic conventions (gen_ai.*, as of
 * semantic-conventions 1.45), plus the gateway's own figures under `gateway.*` where the
 * conventions have no name (cost, compression, routing). Plain strings rather than the
 * incubating constants: that entry point of @opentelemetry/semantic-conventions is large and
 * its names may change between minor releases.
 */
export type Attributes = Record<string, string | number | boolean | string[]>;

/** GenAI's provider names for the adapter kinds that have one; others keep the configured provider id. */
const GENAI_PROVIDER: Partial<Record<ProviderKind, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
};

export function genAiProviderName(kind: string | undefined, providerId: string | undefined): string {
  return (kind && GENAI_PROVIDER[kind as ProviderKind]) || providerId || 'unknown';
}

export function requestSpanName(data: RequestTraceData): string {
  return `${data.operation} ${data.requestModel}`;
}

export function requestAttributes(data: RequestTraceData): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': data.operation,
    'gen_ai.request.model': data.requestModel,
    'gen_ai.provider.name': genAiProviderName(data.providerKind, data.providerId),
    'gen_ai.request.stream': data.stream,
    'gen_ai.usage.input_tokens': data.usage.inputTokens,
    'gen_ai.usage.output_tokens': data.usage.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': data.usage.cachedInputTokens,
    'gen_ai.usage.cache_creation.input_tokens': data.usage.cacheCreationInputTokens,
    'gen_ai.usage.reasoning.output_tokens': data.usage.reasoningTokens,
    'http.request.method': 'POST',
    'url.path': data.endpoint,
    'http.response.status_code': data.status,
    'gateway.request_id': data.requestId,
    'gateway.cost_usd': data.costMicroUsd / 1e6,
    'gateway.attempts': data.attempts.length,
    'gateway.fallback_used': fallbackUsed(data.attempts),
    'gateway.organization_id': data.organizationId,
    'gateway.api_key_id': data.apiKeyId,
  };
  if (data.responseModel !== undefined) attributes['gen_ai.response.model'] = data.responseModel;
  if (data.responseId !== undefined) attributes['gen_ai.response.id'] = data.responseId;
  if (data.finishReasons?.length) attributes['gen_ai.response.finish_reasons'] = data.finishReasons;
  if (data.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = data.maxTokens;
  if (data.temperature !== undefined) attributes['gen_ai.request.temperature'] = data.temperature;
  if (data.topP !== undefined) attributes['gen_ai.request.top_p'] = data.topP;
  if (data.errorCode !== null) attributes['error.type'] = data.errorCode;
  if (data.tags.length > 0) attributes['gateway.tags'] = data.tags;
  if (data.compression) {
    attributes['gateway.compression.saved_tokens'] = data.compression.savedTokens;
    if (data.compression.costSavingsMicroUsd !== undefined) {
      attributes['gateway.compression.cost_savings_usd'] = data.compression.costSavingsMicroUsd / 1e6;
    }
  }
  return attributes;
}

export function attemptSpanName(attempt: TracedAttempt): string {
  return `chat ${attempt.upstreamModel}`;
}

/** Attributes of one upstream call; `index` is its position among the request's attempts. */
export function attemptAttributes(attempts: TracedAttempt[], index: number): Attributes {
  const attempt = attempts[index]!;
  const first = attempts[0]!;
  const previous = index > 0 ? attempts[index - 1] : undefined;
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': genAiProviderName(attempt.providerKind, attempt.providerId),
    'gen_ai.request.model': attempt.upstreamModel,
    'gateway.provider_id': attempt.providerId,
    'gateway.attempt': index + 1,
    'gateway.retry': previous !== undefined && previous.providerId === attempt.providerId,
    'gateway.fallback': attempt.providerId !== first.providerId,
  };
  if (attempt.status !== null) attributes['http.response.status_code'] = attempt.status;
  if (attempt.error !== undefined)
    attributes['error.type'] = attempt.status === null ? 'no_response' : String(attempt.status);
  return attributes;
}

function fallbackUsed(attempts: TracedAttempt[]): boolean {
  const first = attempts[0];
  return first !== undefined && attempts.some((a) => a.providerId !== first.providerId);
}
