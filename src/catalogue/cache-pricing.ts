import type { Pricing } from '../config/gateway-config.js';
import type { ProviderKind } from '../canonical/provider-kinds.js';
import type { CatalogueModel } from './catalogue.js';

/**
 * How a provider prices and keeps a prompt cache, as far as compression decisions and the
 * compression benchmark need it (shared/guides/prompt-caching-economics.md). Prices are USD per
 * million tokens (numerically micro-USD per token), as in the catalogue.
 *
 * - `breakpoints` (Anthropic): nothing is cached unless the request marks `cache_control`
 *   breakpoints (at most `maxBreakpoints`); a read hits only at a breakpoint position that an
 *   earlier request wrote, looked up at most `lookbackBlocks` content blocks back from each
 *   breakpoint; tokens up to the last breakpoint that were not read are written (write price),
 *   tokens after it are plain input.
 * - `automatic` (OpenAI, Gemini implicit): the longest prefix seen recently is read, counted in
 *   `blockTokens` steps once it reaches `minCacheableTokens`; everything else is plain input.
 * - `none`: no prompt cache (local models, providers without one).
 */
export type CacheRules =
  | { kind: 'breakpoints'; maxBreakpoints: number; lookbackBlocks: number }
  | { kind: 'automatic'; blockTokens: number }
  | { kind: 'none' };

export interface CachePricing {
  inputPerMtok: number;
  /** Price of a token read from the cache. */
  cacheReadPerMtok: number;
  /** Price of a token written to the cache (Anthropic's 5-minute write; the input price elsewhere). */
  cacheWritePerMtok: number;
  /** An entry not used for this long is gone. */
  ttlMs: number;
  /** Shorter prefixes are never cached. */
  minCacheableTokens: number;
  rules: CacheRules;
  /** Prompt tokens the model accepts; a prompt near it is rewritten rather than refused. */
  contextWindow: number;
}

const FIVE_MINUTES = 5 * 60_000;

/** How a provider kind caches where the catalogue says nothing more (shared/guides/prompt-caching-economics.md). */
interface CacheDefaults {
  /** A cached token's price as a fraction of the input price, where the model lists none; 'input': reads cost the input price. */
  read: number | 'input';
  /** A written token's price as a fraction of the input price, where the model lists none; 'input': writes cost the input price. */
  write: number | 'input';
  ttlMs: number;
  minCacheableTokens: number;
  rules: CacheRules;
  contextWindow: number;
}

/**
 * One row per provider kind (the compiler asks for a row for each kind of
 * canonical/provider-kinds.ts). OpenAI's listed `cache_write_per_mtok` is its extended
 * (30-minute) retention, which requests do not ask for: automatic caching writes at the input price.
 */
const BY_KIND: Readonly<Record<ProviderKind, CacheDefaults>> = {
  anthropic: {
    read: 0.1,
    write: 1.25,
    ttlMs: FIVE_MINUTES,
    minCacheableTokens: 1024,
    rules: { kind: 'breakpoints', maxBreakpoints: 4, lookbackBlocks: 20 },
    contextWindow: 200_000,
  },
  openai: {
    read: 1,
    write: 'input',
    ttlMs: FIVE_MINUTES,
    minCacheableTokens: 1024,
    rules: { kind: 'automatic', blockTokens: 128 },
    contextWindow: 128_000,
  },
  gemini: {
    read: 0.25,
    write: 'input',
    ttlMs: FIVE_MINUTES,
    minCacheableTokens: 1024,
    rules: { kind: 'automatic', blockTokens: 1 },
    contextWindow: 1_000_000,
  },
  local: {
    read: 'input',
    write: 'input',
    ttlMs: 0,
    minCacheableTokens: Number.POSITIVE_INFINITY,
    rules: { kind: 'none' },
    contextWindow: 128_000,
  },
};

/** The cache pricing of a catalogue model served by a provider of `kind`. */
export function cachePricingFor(kind: string, pricing: Pricing, contextWindow?: number): CachePricing {
  // A kind without cache defaults (a provider registered at run time) is priced as uncached.
  const d = BY_KIND[kind as ProviderKind] ?? BY_KIND.local;
  const input = pricing.input_per_mtok;
  return {
    inputPerMtok: input,
    cacheReadPerMtok: d.read === 'input' ? input : (pricing.cached_input_per_mtok ?? input * d.read),
    cacheWritePerMtok: d.write === 'input' ? input : (pricing.cache_write_per_mtok ?? input * d.write),
    ttlMs: d.ttlMs,
    minCacheableTokens: d.minCacheableTokens,
    rules: { ...d.rules },
    contextWindow: contextWindow ?? d.contextWindow,
  };
}

/** OpenAI's own API accepts `prompt_cache_key`; strict OpenAI-compatible servers may not. */
export function takesPromptCacheKey(provider: { kind: string; id: string; baseUrl: string | undefined }): boolean {
  return (
    provider.kind === 'openai' && (provider.id === 'openai' || /\/\/api\.openai\.com\b/.test(provider.baseUrl ?? ''))
  );
}

/** What a request's prompt was billed as: read from the cache, written to it, or plain input. */
export interface CacheUsage {
  /** Prompt tokens billed at the input price (neither read nor written). */
  uncached: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Input cost in micro-USD (prices per million tokens are micro-USD per token). */
export function inputCostMicroUsd(pricing: CachePricing, usage: CacheUsage): number {
  return (
    usage.uncached * pricing.inputPerMtok +
    usage.cacheRead * pricing.cacheReadPerMtok +
    usage.cacheWrite * pricing.cacheWritePerMtok
  );
}

/**
 * Prices in units of one uncached input token: `read` for a cached token, `write` for a token
 * the provider has not cached yet (Anthropic's cache write, elsewhere the input price).
 */
export function relativePrices(pricing: CachePricing): { read: number; write: number } {
  const input = pricing.inputPerMtok > 0 ? pricing.inputPerMtok : 1;
  if (pricing.rules.kind === 'none') return { read: 1, write: 1 };
  return { read: pricing.cacheReadPerMtok / input, write: pricing.cacheWritePerMtok / input };
}

/**
 * Breakeven of a history rewrite (economics guide): rewriting `changedTokens` (Q) cached tokens
 * so that `savedTokens` (S) of them disappear costs the write price on what remains now, and
 * saves a read of S on every later request. It pays when more than the returned number of
 * requests follow; Infinity when it never pays (nothing saved, or reads as dear as writes).
 *
 *   R* = ((w − r)·Q − w·S) / (r·S)        (= (10w − 1)·Q/S − 10w for r = 0.1)
 */
export function rewriteBreakeven(pricing: CachePricing, changedTokens: number, savedTokens: number): number {
  if (savedTokens <= 0) return Number.POSITIVE_INFINITY;
  const { read, write } = relativePrices(pricing);
  if (read >= write) return 0; // no cache discount: every request pays in full, so any saving pays at once
  if (read <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(0, ((write - read) * changedTokens - write * savedTokens) / (read * savedTokens));
}

/** The cache pricing of a catalogue model, by the provider of its first route (where requests go first). */
export function cachePricingOfModel(model: Pick<CatalogueModel, 'pricing' | 'contextWindow' | 'routes'>): CachePricing {
  const kind = model.routes[0]?.provider.kind ?? 'local';
  return cachePricingFor(kind, model.pricing, model.contextWindow);
}
