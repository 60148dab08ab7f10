import type { Tracing } from '../telemetry/tracing.js';
import type { RequestTraceData } from '../telemetry/request-trace.js';
import type { FastifyRequest } from 'fastify';
import type { TokenUsage } from '../canonical/completion.js';
import type { Attempt } from '../providers/index.js';
import type { Admission } from './admit.js';
import type { Plan } from './plan.js';

/** What a trace reads of a settled call (src/pipeline/call.ts). */
export interface TracedCall {
  readonly admission: Admission;
  readonly plan: Plan;
  readonly request: FastifyRequest;
  readonly endpoint: string;
  readonly attempts: Attempt[];
  readonly providerId: string;
  readonly upstreamModel: string;
}

/**
 * The trace of one settled request: its span and one child span per upstream attempt, built
 * from the figures it was metered with, so the trace and the usage row always agree. Called
 * only when tracing is on.
 */
export function recordTrace(
  tracing: Tracing,
  call: TracedCall,
  outcome: { status: number; errorCode: string | null; usage: TokenUsage },
  stream: boolean,
  costMicroUsd: number,
): void {
  const { admission, request, plan } = call;
  const kindOf = (providerId: string) => admission.targets.find((t) => t.providerId === providerId)?.kind;
  const traceparent = request.headers.traceparent;
  const data: RequestTraceData = {
    operation: 'chat',
    endpoint: call.endpoint,
    requestId: admission.requestId,
    requestModel: admission.model.id,
    providerId: call.attempts.length > 0 ? call.providerId : undefined,
    providerKind: kindOf(call.providerId),
    responseModel: call.attempts.length > 0 ? call.upstreamModel : undefined,
    stream,
    maxTokens: admission.maxOutputTokens,
    temperature: plan.body.temperature,
    topP: plan.body.top_p,
    startedAt: admission.startedAt,
    endedAt: Date.now(),
    status: outcome.status,
    errorCode: outcome.errorCode,
    usage: outcome.usage,
    costMicroUsd,
    compression: plan.compression
      ? { savedTokens: plan.compression.savedTokens, costSavingsMicroUsd: plan.compression.costSavingsMicroUsd }
      : undefined,
    attempts: call.attempts.map((a) => ({
      providerId: a.providerId,
      providerKind: kindOf(a.providerId),
      upstreamModel: a.upstreamModel,
      status: a.status,
      error: a.error,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
    })),
    organizationId: request.apiKey.organizationId,
    apiKeyId: request.apiKey.id,
    tags: admission.tags,
    traceparent: typeof traceparent === 'string' ? traceparent : undefined,
  };
  tracing.record(data);
}
