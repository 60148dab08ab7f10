import { encodeCount } from './encoders.js';
import { TextTokenCache, type TextTokenCacheStats } from './text-token-cache.js';
import type { TokenizerName } from './tokenizer-names.js';

/** Held text ≤ 32 Mi UTF-16 code units (≤ 64 MiB); one entry ≤ 2 Mi code units. */
export const TEXT_CACHE_MAX_CHARS = 32 * 1024 * 1024;
export const TEXT_CACHE_MAX_ENTRY_CHARS = 2 * 1024 * 1024;

const cache = new TextTokenCache({
  maxChars: TEXT_CACHE_MAX_CHARS,
  maxEntryChars: TEXT_CACHE_MAX_ENTRY_CHARS,
});
const computers: Record<TokenizerName, (text: string) => number> = {
  cl100k_base: (text) => encodeCount(text, 'cl100k_base'),
  o200k_base: (text) => encodeCount(text, 'o200k_base'),
};

/** Tokens of plain text, identical to tiktoken's `encode_ordinary(text).length`. */
export function countTextTokens(text: string, tokenizer: TokenizerName): number {
  if (text.length === 0) return 0;
  return cache.count(text, tokenizer, computers[tokenizer]);
}

/** Empties the shared text cache (tests and benchmarks start cold with it). */
export function clearTokenCache(): void {
  cache.clear();
}

export function tokenCacheStats(): TextTokenCacheStats {
  return cache.stats();
}
