// Compression engine: a pure library. The `/v1/compress` route (and chat completions, when a
// bundle is selected) call `compressPayload`; nothing here does I/O or calls a provider.
import { performance } from 'node:perf_hooks';
import { bundleFor, COMPRESSION_MODELS, isCompressionModel } from './bundles.js';
import { CompressionInputError } from './errors.js';
import { readRequest } from './formats/index.js';
import { runPipeline, type PipelineOptions } from './pipeline.js';
import { appliedStrategies, countRewrittenBodyTokens, countSourceTokens, tokenizerFor } from './token-count.js';
import type { CompressionReport, CompressOptions, CompressResult } from './types.js';

export { BUNDLES, COMPRESSION_MODELS, isCompressionModel, type BundleName } from './bundles.js';
export { CompressionInputError } from './errors.js';
export { detectFormat } from './formats/index.js';
export { clearCompressionCaches } from './cache.js';
export { STRATEGY_NAMES } from './pipeline.js';
export type { CompressionReport, CompressOptions, CompressResult, RequestFormat } from './types.js';

/** Fraction of input tokens removed, 4 decimals: 1000 → 810 gives 0.19. */
export function compressionRate(before: number, after: number): number {
  if (before <= 0 || after >= before) return 0;
  return Math.round(((before - after) / before) * 10_000) / 10_000;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compresses a chat (2.1), messages-style (2.2) or responses-style (2.3) body.
 * Only `messages` / `input` / `tools` may differ in the returned body; every other member,
 * `system` included, is passed through as is. Throws CompressionInputError for bodies that
 * cannot be converted. The bundle comes from `options.bundle` (header or per-key setting,
 * resolved by the caller) or else from the body's `compression_model`.
 */
export function compressPayload(body: unknown, options: CompressOptions & PipelineOptions = {}): CompressResult {
  const started = performance.now();
  const requested = options.bundle ?? (isObject(body) ? body.compression_model : undefined);
  if (requested !== undefined && !isCompressionModel(requested)) {
    throw new CompressionInputError(
      `Unknown compression_model ${describeValue(requested)}; expected one of ${COMPRESSION_MODELS.join(', ')}.`,
      'compression_model',
    );
  }
  const adapter = readRequest(body);
  const source = body as Record<string, unknown>;
  const { conversation } = adapter;
  runPipeline(conversation, bundleFor(requested), options);
  const engineMs = performance.now() - started;
  const tokenizer = tokenizerFor(source);
  // The source first: every text of the request is then counted (or found counted) once, and
  // the gate and the rewritten body only look up what they share with it.
  const counted = countSourceTokens(source, conversation.format, tokenizer);
  const before = counted.total;
  const applied = appliedStrategies(conversation);
  const candidate = applied.length > 0 ? adapter.write() : source;
  const after = countRewrittenBodyTokens(source, candidate, counted, conversation.format, tokenizer);
  // Every change was kept only if it saved tokens under o200k_base; the request's own tokenizer
  // may disagree by a token. The rewritten body is still the one sent: reverting it for this
  // request alone would change the prefix the next request shares with it.
  const report: CompressionReport = {
    technique: 'auto',
    applied_strategies: applied,
    compression_rate: compressionRate(before, after),
    uncompressed_input_tokens: before,
    compressed_input_tokens: after,
    compression_time_ms: Math.round((performance.now() - started) * 1000) / 1000,
  };
  const totalMs = performance.now() - started;
  return {
    body: candidate,
    compression: report,
    timings: { engine_ms: engineMs, accounting_ms: totalMs - engineMs },
  };
}

/** A short, safe rendering of a client value for an error message (String() can throw on objects). */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value.slice(0, 40)}'`;
  try {
    return (JSON.stringify(value) ?? typeof value).slice(0, 40);
  } catch {
    return typeof value;
  }
}
