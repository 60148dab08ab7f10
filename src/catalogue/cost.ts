import type { Pricing } from '../config/gateway-config.js';
import type { TokenUsage } from '../canonical/completion.js';

/**
 * A price in USD per million tokens is numerically micro-USD per token, so cost in micro-USD is
 * a plain weighted sum. Cached reads and cache writes use their own prices when the catalogue
 * has them, else the input price.
 */
export function costMicroUsd(pricing: Pricing, usage: TokenUsage): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const cacheWrite = Math.min(usage.cacheCreationInputTokens, usage.inputTokens - cached);
  const uncached = Math.max(0, usage.inputTokens - cached - cacheWrite);
  const cost =
    uncached * pricing.input_per_mtok +
    cached * (pricing.cached_input_per_mtok ?? pricing.input_per_mtok) +
    cacheWrite * (pricing.cache_write_per_mtok ?? pricing.input_per_mtok) +
    usage.outputTokens * pricing.output_per_mtok;
  return Math.round(cost);
}

/** The most a request can cost: every prompt token uncached at the highest input price, every allowed output token. */
export function worstCaseMicroUsd(pricing: Pricing, promptTokens: number, maxOutputTokens: number): number {
  const inputPrice = Math.max(pricing.input_per_mtok, pricing.cache_write_per_mtok ?? 0);
  return Math.ceil(promptTokens * inputPrice + maxOutputTokens * pricing.output_per_mtok);
}
