import type { FastifyRequest } from 'fastify';
import { compressPayload, type BundleName } from '../../compress/index.js';
import type { Pricing } from '../../config/gateway-config.js';
import type { ChatRequest } from '../../canonical/chat-request.js';
import { bundleFromHeader } from '../routes/compress.js';

export interface AppliedCompression {
  savedTokens: number;
  costSavingsMicroUsd: number;
  reductionPercent: number;
  timeMs: number;
  uncompressedTokens: number;
}

/** A coding-agent key compresses with the bundle tuned for its assistant. */
const BUNDLE_FOR_ASSISTANT: Record<string, BundleName> = {
  claude_code: 'claude',
  codex: 'codex',
  opencode: 'opencode',
};

/**
 * Compression inside chat completions: on when the request names a bundle (body or header) or
 * the key has compression enabled. Returns the body to forward and what was saved; a request
 * that would not shrink is forwarded unchanged and reports nothing.
 */
export function applyCompression(
  request: FastifyRequest,
  body: ChatRequest,
  pricing: Pricing,
): { body: ChatRequest; compression: AppliedCompression | undefined } {
  const key = request.apiKey;
  const requested = body.compression_model ?? bundleFromHeader(request.headers['x-gateway-compression-model']);
  if (!requested && !key.compression) return { body, compression: undefined };
  const bundle = requested ?? (key.codingAssistant ? BUNDLE_FOR_ASSISTANT[key.codingAssistant] : undefined);
  const result = compressPayload(body, bundle ? { bundle } : {});
  const report = result.compression;
  const saved = report.uncompressed_input_tokens - report.compressed_input_tokens;
  if (saved <= 0) return { body, compression: undefined };
  return {
    body: result.body as ChatRequest,
    compression: {
      savedTokens: saved,
      costSavingsMicroUsd: Math.round(saved * pricing.input_per_mtok),
      reductionPercent: Math.round(report.compression_rate * 10_000) / 100,
      timeMs: report.compression_time_ms,
      uncompressedTokens: report.uncompressed_input_tokens,
    },
  };
}

export function formatCompression(applied: AppliedCompression) {
  return {
    saved_tokens: applied.savedTokens,
    cost_savings: applied.costSavingsMicroUsd,
    reduction: applied.reductionPercent,
    time_ms: applied.timeMs,
  };
}
