import type { FastifyRequest } from 'fastify';
import type { CatalogueModel } from '../../catalogue/catalogue.js';
import { cachePricingOfModel } from '../../catalogue/cache-pricing.js';
import type { BundleName } from '../../compress/index.js';
import { sessionIdFrom } from '../../compress/conversation-id.js';
import { compressConversationRequest, type ConversationStore } from '../../compress/conversation-request.js';
import type { ChatRequest } from '../../canonical/chat-request.js';
import type { TokenUsage } from '../../canonical/completion.js';
import { bundleFromHeader, cacheManagementFrom } from '../routes/compress.js';

export interface AppliedCompression {
  savedTokens: number;
  /**
   * Money compression saved on this request, micro-USD, caching counted: the engine's estimate
   * at admission, replaced by `settle` with the price the upstream's usage says applied.
   */
  costSavingsMicroUsd: number;
  reductionPercent: number;
  timeMs: number;
  uncompressedTokens: number;
  /** Called by metering with the upstream's usage; returns the settled saving (micro-USD). */
  settle(usage: TokenUsage): number;
}

/** A coding-agent key compresses with the bundle tuned for its assistant. */
const BUNDLE_FOR_ASSISTANT: Record<string, BundleName> = {
  claude_code: 'claude',
  codex: 'codex',
  opencode: 'opencode',
};

/**
 * Compression and prompt-cache management inside chat completions (and the native Messages
 * path). Compression is on when the request names a bundle (body or header) or the key has it
 * enabled; it keeps per-conversation state in `conversations` (src/compress/conversation-request.ts).
 * Cache management (Anthropic breakpoints, OpenAI prompt_cache_key) is on unless the key or the
 * X-Gateway-Cache-Breakpoints header turns it off. Returns the body to forward and what
 * compression did (undefined when it did not run or removed nothing).
 */
export async function applyCompression(
  request: FastifyRequest,
  body: ChatRequest,
  model: CatalogueModel,
  conversations: ConversationStore | undefined,
): Promise<{ body: ChatRequest; compression: AppliedCompression | undefined }> {
  const key = request.apiKey;
  const requested = body.compression_model ?? bundleFromHeader(request.headers['x-gateway-compression-model']);
  const compress = requested !== undefined || key.compression;
  const manageCache = cacheManagementFrom(request.headers['x-gateway-cache-breakpoints']) ?? key.cacheBreakpoints;
  const target = model.routes[0]?.provider;
  if (!target || (!compress && !manageCache)) return { body, compression: undefined };
  const result = await compressConversationRequest(body as unknown as Record<string, unknown>, {
    apiKeyId: key.id,
    sessionId: sessionIdFrom(request.headers),
    compress,
    bundle: requested ?? (key.codingAssistant ? BUNDLE_FOR_ASSISTANT[key.codingAssistant] : undefined),
    provider: { kind: target.kind, id: target.id, baseUrl: target.base_url },
    pricing: cachePricingOfModel(model),
    manageCache,
    addCacheHints: manageCache,
    store: conversations,
    now: Date.now(),
    onStoreError: (error) => request.log.warn({ err: error }, 'compression conversation state unavailable'),
  });
  const out = result.body as unknown as ChatRequest;
  const report = result.compression;
  const saved = report ? report.uncompressed_input_tokens - report.compressed_input_tokens : 0;
  if (!report || saved <= 0) return { body: out, compression: undefined };
  const applied: AppliedCompression = {
    savedTokens: saved,
    costSavingsMicroUsd: result.estimatedSavingsMicroUsd,
    reductionPercent: Math.round(report.compression_rate * 10_000) / 100,
    timeMs: report.compression_time_ms,
    uncompressedTokens: report.uncompressed_input_tokens,
    settle(usage) {
      applied.costSavingsMicroUsd = result.settle(usage);
      return applied.costSavingsMicroUsd;
    },
  };
  return { body: out, compression: applied };
}

export function formatCompression(applied: AppliedCompression) {
  return {
    saved_tokens: applied.savedTokens,
    cost_savings: applied.costSavingsMicroUsd,
    reduction: applied.reductionPercent,
    time_ms: applied.timeMs,
  };
}
