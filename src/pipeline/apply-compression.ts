import type { FastifyRequest } from 'fastify';
import type { CatalogueModel } from '../catalogue/catalogue.js';
import { cachePricingOfModel } from '../catalogue/cache-pricing.js';
import { CompressionInputError, COMPRESSION_MODELS, isCompressionModel, type BundleName } from '../compress/index.js';
import { sessionIdFrom } from '../compress/session-headers.js';
import {
  compressConversationRequest,
  type ConversationRequest,
  type ConversationResult,
  type ConversationStore,
} from '../compress/conversation-request.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import type { TokenUsage } from '../canonical/completion.js';
import { GatewayError } from './errors.js';
import { compressionAsked } from './compression-asked.js';
import { withBrevityInstruction } from './output-brevity.js';
import { compressConversationOffloaded } from '../offload/index.js';

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
  /** Names of the strategies the engine applied, as the usage row records them (at most 500 characters). */
  strategies: string;
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
 * Compression and prompt-cache management for one request (chat path and the native Messages
 * and Responses paths). Compression is on when the request asks for it (body members or the
 * X-Gateway-Compression-Model header) or the key has it enabled; it keeps per-conversation state
 * in `conversations` (src/compress/conversation-request.ts). Cache management (Anthropic
 * breakpoints, OpenAI prompt_cache_key) is on unless the key or X-Gateway-Cache-Breakpoints
 * turns it off. The tool surface (src/compress/tool-surface.ts) is decided unless the key's
 * `tool_surface` or X-Gateway-Tool-Surface turns it off (the header wins when present). Returns
 * the body to forward and what compression did (undefined when it did not run or removed
 * nothing); the body is the rewritten one even then (cache hints, and first-sight changes that
 * must stay the same from turn to turn).
 */
export async function applyCompression(
  request: FastifyRequest,
  body: ChatRequest,
  model: CatalogueModel,
  conversations: ConversationStore | undefined,
): Promise<{ body: ChatRequest; compression: AppliedCompression | undefined }> {
  const key = request.apiKey;
  const asked = compressionAsked(body as unknown as Record<string, unknown>, () =>
    bundleFromHeader(request.headers['x-gateway-compression-model']),
  );
  const compress = asked.on === true || (asked.on === undefined && key.compression);
  const manageCache = cacheManagementFrom(request.headers['x-gateway-cache-breakpoints']) ?? key.cacheBreakpoints;
  const client = outputBrevityAsked(request, key.outputBrevity) ? (withBrevityInstruction(body) as ChatRequest) : body;
  const target = model.routes[0]?.provider;
  if (!target || (!compress && !manageCache)) return { body: client, compression: undefined };
  // The bundle is passed explicitly; a compression_model that names none (Edgee's generic modes) is not the engine's to read.
  const source = client.compression_model === undefined ? client : withoutCompressionModel(client);
  const result = await compressOrRefuse(source, {
    apiKeyId: key.id,
    sessionId: sessionIdFrom(request.headers),
    compress,
    bundle: asked.bundle ?? (key.codingAssistant ? BUNDLE_FOR_ASSISTANT[key.codingAssistant] : undefined),
    provider: { kind: target.kind, id: target.id, baseUrl: target.base_url },
    pricing: cachePricingOfModel(model),
    manageCache,
    addCacheHints: manageCache,
    store: conversations,
    toolSurface: toolSurfaceFrom(request.headers['x-gateway-tool-surface']) ?? key.toolSurface,
    runEngine: compressConversationOffloaded,
    now: Date.now(),
    onStoreError: (error) => request.log.warn({ err: error }, 'compression conversation state unavailable'),
  });
  request.conversationHead = result.knownConversationHead ?? null;
  const report = result.compression;
  const saved = report ? report.uncompressed_input_tokens - report.compressed_input_tokens : 0;
  // Unchanged by the engine and without cache hints: the client's own body object goes on.
  const out = result.body === source ? client : (result.body as unknown as ChatRequest);
  if (!report || saved <= 0) return { body: out, compression: undefined };
  const applied: AppliedCompression = {
    savedTokens: saved,
    costSavingsMicroUsd: result.estimatedSavingsMicroUsd,
    reductionPercent: Math.round(report.compression_rate * 10_000) / 100,
    timeMs: report.compression_time_ms,
    uncompressedTokens: report.uncompressed_input_tokens,
    strategies: strategyList(report.applied_strategies),
    settle(usage) {
      applied.costSavingsMicroUsd = result.settle(usage);
      return applied.costSavingsMicroUsd;
    },
  };
  return { body: out, compression: applied };
}

/** The most characters of strategy names a usage row keeps: a handful of short names fit many times over. */
const MAX_STRATEGIES_CHARS = 500;

/** Distinct strategy names, comma-separated, cut at a name's end within the row's bound. */
export function strategyList(names: readonly string[]): string {
  let list = '';
  for (const name of new Set(names)) {
    const next = list === '' ? name : `${list},${name}`;
    if (next.length > MAX_STRATEGIES_CHARS) break;
    list = next;
  }
  return list;
}

/** A copy of the body without `compression_model`: made only when it is there (a rest copy is V8's slow generic path). */
function withoutCompressionModel(body: ChatRequest): Omit<ChatRequest, 'compression_model'> {
  const { compression_model: _named, ...source } = body;
  return source;
}

/** The engine's refusal of a body it cannot read is the client's 400, not the gateway's 500. */
async function compressOrRefuse(
  body: Record<string, unknown>,
  request: ConversationRequest,
): Promise<ConversationResult> {
  try {
    return await compressConversationRequest(body, request);
  } catch (error) {
    if (error instanceof CompressionInputError)
      throw new GatewayError('invalid_request', { message: error.message, param: error.param });
    throw error;
  }
}

export function formatCompression(applied: AppliedCompression) {
  return {
    saved_tokens: applied.savedTokens,
    cost_savings: applied.costSavingsMicroUsd,
    reduction: applied.reductionPercent,
    time_ms: applied.timeMs,
  };
}

/** The X-Gateway-Compression-Model header (also read by POST /v1/compress). */
export function bundleFromHeader(header: string | string[] | undefined): BundleName | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return undefined;
  if (!isCompressionModel(value)) {
    throw new GatewayError('invalid_request', {
      message: `Unknown X-Gateway-Compression-Model "${value.slice(0, 40)}"; expected one of ${COMPRESSION_MODELS.join(', ')}.`,
      param: 'compression_model',
    });
  }
  return value;
}

/**
 * X-Gateway-Cache-Breakpoints (also read by POST /v1/compress): `off` turns the gateway's
 * prompt-cache management off for one request (Anthropic breakpoints, OpenAI prompt_cache_key),
 * `on` turns it on for a key that has it off; absent: the key's setting.
 */
export function cacheManagementFrom(header: string | string[] | undefined): boolean | undefined {
  return onOffHeader(header, 'X-Gateway-Cache-Breakpoints');
}

/**
 * X-Gateway-Tool-Surface (also read by POST /v1/compress): `off` drops no tool definition in this
 * request, and a conversation whose first request says so decides to drop none
 * (src/compress/tool-surface.ts); `on` lets the conversation's decision apply even for a key whose
 * `tool_surface` is off; absent: the key's setting.
 */
export function toolSurfaceFrom(header: string | string[] | undefined): boolean | undefined {
  return onOffHeader(header, 'X-Gateway-Tool-Surface');
}

/** X-Gateway-Output-Brevity overrides the key's `output_brevity` (also read by POST /v1/compress). */
export function outputBrevityAsked(request: FastifyRequest, keySetting: boolean): boolean {
  return onOffHeader(request.headers['x-gateway-output-brevity'], 'X-Gateway-Output-Brevity') ?? keySetting;
}

/** An on/off request header overriding a key setting; absent or empty: undefined (the key decides). */
export function onOffHeader(header: string | string[] | undefined, name: string): boolean | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (value === 'on' || value === 'true' || value === '1') return true;
  if (value === 'off' || value === 'false' || value === '0') return false;
  throw new GatewayError('invalid_request', {
    message: `${name} must be "on" or "off", not "${value.slice(0, 40)}".`,
    param: name.toLowerCase(),
  });
}
