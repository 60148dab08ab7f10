import { encodeCount } from './encoders.js';
import { PieceCounter } from './piece-counter.js';
import { TextTokenCache, type TextTokenCacheStats } from './text-token-cache.js';
import type { TokenizerName } from './tokenizer-names.js';

/** Held text ≤ 32 Mi UTF-16 code units (≤ 64 MiB); one entry ≤ 2 Mi code units. */
export const TEXT_CACHE_MAX_CHARS = 32 * 1024 * 1024;
export const TEXT_CACHE_MAX_ENTRY_CHARS = 2 * 1024 * 1024;

const cache = new TextTokenCache({
  maxChars: TEXT_CACHE_MAX_CHARS,
  maxEntryChars: TEXT_CACHE_MAX_ENTRY_CHARS,
});
// Texts are counted piece by piece (piece-counter.ts); tiktoken sees only pieces not met
// before. 100k pieces per encoding hold a large code base's vocabulary in about 10 MB.
const PIECE_MEMO = { maxEntries: 100_000, maxPieceChars: 256 };
const pieceCounters: Record<TokenizerName, PieceCounter> = {
  cl100k_base: new PieceCounter('cl100k_base', (piece) => encodeCount(piece, 'cl100k_base'), PIECE_MEMO),
  o200k_base: new PieceCounter('o200k_base', (piece) => encodeCount(piece, 'o200k_base'), PIECE_MEMO),
};
const computers: Record<TokenizerName, (text: string) => number> = {
  cl100k_base: (text) => pieceCounters.cl100k_base.count(text),
  o200k_base: (text) => pieceCounters.o200k_base.count(text),
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

/** Empties the piece memos too: the next counts start from tiktoken alone (cold benchmark). */
export function clearPieceMemos(): void {
  for (const counter of Object.values(pieceCounters)) counter.clear();
}

export function tokenCacheStats(): TextTokenCacheStats {
  return cache.stats();
}
