import type { FastifyRequest } from 'fastify';
import { CompressionInputError, COMPRESSION_MODELS, isCompressionModel, type BundleName } from '../compress/index.js';
import { compressPayloadOffloaded } from '../offload/index.js';
import type { Pricing } from '../config/gateway-config.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import { GatewayError } from './errors.js';
import { compressionAsked } from './compression-asked.js';

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
export async function applyCompression(
  request: FastifyRequest,
  body: ChatRequest,
  pricing: Pricing,
): Promise<{ body: ChatRequest; compression: AppliedCompression | undefined }> {
  const key = request.apiKey;
  const asked = compressionAsked(body as unknown as Record<string, unknown>, () =>
    bundleFromHeader(request.headers['x-gateway-compression-model']),
  );
  if (asked.on === false || (asked.on === undefined && !key.compression)) return { body, compression: undefined };
  const bundle = asked.bundle ?? (key.codingAssistant ? BUNDLE_FOR_ASSISTANT[key.codingAssistant] : undefined);
  // The bundle is passed explicitly; a compression_model that names none (Edgee's generic modes) is not the engine's to read.
  const { compression_model: _named, ...source } = body;
  const result = await compressOrRefuse(source, bundle);
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

/** The engine's refusal of a body it cannot read is the client's 400, not the gateway's 500. */
async function compressOrRefuse(body: Record<string, unknown>, bundle: BundleName | undefined) {
  try {
    return await compressPayloadOffloaded(body, bundle ? { bundle } : {});
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
