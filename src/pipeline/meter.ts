import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TokenUsage } from '../canonical/completion.js';
import { costMicroUsd } from '../catalogue/cost.js';
import type { CoreServices } from './services.js';
import type { Admission } from './admit.js';
import type { AppliedCompression } from './apply-compression.js';
import { recordUsageMetrics } from '../metrics/metrics.js';
import { timeOrderedUuid } from '../server/random-ids.js';
import type { UsageRecord } from '../metering/usage-record.js';
import { MAX_COMMIT_WAIT_MS } from '../metering/usage-writer.js';
import { setTimeout } from 'node:timers/promises';
import { clientSessionFrom } from '../compress/session-headers.js';
import { clientAgentFrom } from '../compress/client-agent.js';

export const ZERO_USAGE: TokenUsage = {
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheCreationInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
};

export interface Outcome {
  status: number;
  errorCode: string | null;
  usage: TokenUsage;
  provider: string;
  upstreamModel: string;
  stream: boolean;
  endpoint: string;
  uncompressedInputTokens?: number | null;
  /** Refused at admission (key ceiling): a row, but no model call whose latency the metrics record. */
  refused?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The conversation head id compression derived for this request, when it did (apply-compression.ts):
     * the usage row's session when the client named none.
     */
    conversationHead: string | null;
    /** The commit of this request's usage row, once metered; see `usageCommitted`. */
    usageCommit: Promise<void> | null;
  }
}

/** Gives every request of `app` its `usageCommit` slot (a decorated member, not a WeakMap entry per request). */
export function decorateUsageCommit(app: FastifyInstance): void {
  app.decorateRequest('usageCommit', null);
  app.decorateRequest('conversationHead', null);
}

/**
 * Resolves once the request's usage row is committed (or at once when it has none); when the
 * database is slow or away, after the writer's MAX_COMMIT_WAIT_MS (the row stays queued). Routes
 * await it before the last byte of their response, so an answer that reached the client is
 * always accounted for, even if the process dies right after.
 */
export function usageCommitted(request: FastifyRequest): Promise<void> {
  return request.usageCommit ?? Promise.resolve();
}

/**
 * Makes the answer's last bytes wait for `work` as well as for the usage row: what a client may
 * rely on as soon as it has the answer (the stored context of a response it may continue) is
 * written by then. Like the row, at most MAX_COMMIT_WAIT_MS: a database that is slow or away
 * delays an answer, never holds it.
 */
export function alsoBeforeAnswerEnds(request: FastifyRequest, work: Promise<void>): void {
  const bounded = Promise.race([work, setTimeout(MAX_COMMIT_WAIT_MS, undefined, { ref: false })]);
  const row = request.usageCommit;
  request.usageCommit = row ? Promise.all([row, bounded]).then(() => undefined) : bounded;
}

/** Like `usageCommitted`, for a caller that can do without a promise when there is no row. */
export function pendingUsageCommit(request: FastifyRequest): Promise<void> | undefined {
  return request.usageCommit ?? undefined;
}

/** A session named after the conversation's head: ids the client sends never take this form. */
const derivedSession = (head: string | null) => (head === null ? null : `conversation-${head.slice(0, 40)}`);

/**
 * Every admitted request ends here exactly once, whatever happened: one usage row, group-committed
 * together with the key's spend (the budget reservation settled to the actual cost).
 */
export function meter(
  services: CoreServices,
  request: FastifyRequest,
  admission: Admission,
  compression: AppliedCompression | undefined,
  outcome: Outcome,
): number {
  const cost = costMicroUsd(admission.model.pricing, outcome.usage);
  const now = Date.now();
  if (!outcome.refused)
    recordUsageMetrics({
      // Unlisted names are the client's choice: one label per provider keeps the series bounded.
      model: admission.model.unlisted ? `${admission.model.author}/unlisted` : admission.model.id,
      provider: outcome.provider,
      status: outcome.status,
      usage: outcome.usage,
      costMicroUsd: cost,
      latencyMs: now - admission.startedAt,
    });
  const record: UsageRecord = {
    id: timeOrderedUuid(now),
    request_id: admission.requestId,
    created_at: now,
    organization_id: request.apiKey.organizationId,
    api_key_id: request.apiKey.id,
    // The key's owner when served: moving the key to someone else later does not rewrite history.
    member_id: request.apiKey.memberId,
    model: admission.model.id,
    provider: outcome.provider,
    upstream_model: outcome.upstreamModel,
    endpoint: outcome.endpoint,
    input_tokens: outcome.usage.inputTokens,
    cached_input_tokens: outcome.usage.cachedInputTokens,
    cache_creation_input_tokens: outcome.usage.cacheCreationInputTokens,
    output_tokens: outcome.usage.outputTokens,
    reasoning_tokens: outcome.usage.reasoningTokens,
    uncompressed_input_tokens: outcome.uncompressedInputTokens ?? null,
    // Priced from the usage the upstream reported, caching counted (apply-compression.ts).
    compression_savings_micro_usd: compression && outcome.status === 200 ? compression.settle(outcome.usage) : null,
    cost_micro_usd: cost,
    tags: admission.tags.length === 0 ? '[]' : JSON.stringify(admission.tags),
    status_code: outcome.status,
    error_code: outcome.errorCode,
    latency_ms: now - admission.startedAt,
    stream: outcome.stream ? 1 : 0,
    model_unlisted: admission.model.unlisted ? 1 : 0,
    session_id: clientSessionFrom(request.headers) ?? derivedSession(request.conversationHead),
    agent: clientAgentFrom(request.headers['user-agent']) ?? null,
    compression_strategies: compression?.strategies || null,
  };
  // The access log reads the row itself: no second object per request.
  request.metered = record;
  request.usageCommit = services.usage.write(record, admission.reservation === undefined, admission.reservation);
  return cost;
}
