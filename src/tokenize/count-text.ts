import { heapShare } from '../config/heap-share.js';
import { bpeTokenCount, preloadRanks } from './bpe.js';
import { Doorkeeper } from './doorkeeper.js';
import { LineCounter } from './line-counter.js';
import { PieceCounter } from './piece-counter.js';
import { TextTokenCache, type TextTokenCacheStats } from './text-token-cache.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * Held text ≤ 32 Mi UTF-16 code units (≤ 64 MiB), and ≤ an eighth of the heap limit counted at
 * two bytes a unit under a capped heap (heap-share.ts); one entry ≤ 2 Mi code units.
 */
export const TEXT_CACHE_MAX_CHARS = Math.floor(heapShare(1 / 8, 64 * 1024 * 1024) / 2);
export const TEXT_CACHE_MAX_ENTRY_CHARS = 2 * 1024 * 1024;

// Texts are held from their second sight on (doorkeeper.ts): one-off texts do not fill the cache,
// so its memory levels off as soon as the texts that recur are in. The line memo below holds the
// lines of texts of several lines from their first sight (a text's next version shares most of
// them), never a text of one line (line-counter.ts).
const cache = new TextTokenCache({
  maxChars: TEXT_CACHE_MAX_CHARS,
  maxEntryChars: TEXT_CACHE_MAX_ENTRY_CHARS,
  doorkeeper: new Doorkeeper(),
});
// Texts are counted piece by piece (piece-counter.ts); only pieces not met before are
// byte-pair encoded (bpe.ts). 100k pieces per encoding hold a large code base's vocabulary in
// about 10 MB.
const PIECE_MEMO = { maxEntries: 100_000, maxPieceChars: 256 };
const pieceCounters: Record<TokenizerName, PieceCounter> = {
  cl100k_base: new PieceCounter('cl100k_base', (piece) => bpeTokenCount(piece, 'cl100k_base'), PIECE_MEMO),
  o200k_base: new PieceCounter('o200k_base', (piece) => bpeTokenCount(piece, 'o200k_base'), PIECE_MEMO),
};
// New texts are mostly made of lines seen before (line-counter.ts). 2 Mi characters of lines
// per generation and encoding (two generations: ≤ 8 MiB of string data each) hold the working
// set of a few long conversations; the text cache above holds the whole texts.
const LINE_MEMO = { maxChars: 2 * 1024 * 1024, minLineChars: 12, maxLineChars: 64 * 1024 };
const lineCounters: Record<TokenizerName, LineCounter> = {
  cl100k_base: new LineCounter(pieceCounters.cl100k_base, LINE_MEMO),
  o200k_base: new LineCounter(pieceCounters.o200k_base, LINE_MEMO),
};
// One function for both encodings: a closure per encoding made the cache's call site see two
// targets, and V8 deoptimised the callers whenever the other encoding came next.
const countNewText = (text: string, tokenizer: TokenizerName) => lineCounters[tokenizer].count(text);

/**
 * Loads what counting needs (the merge ranks) now: synchronous work of a few hundred
 * milliseconds per encoding that would otherwise stall the first request that counts tokens.
 * `gateway serve` calls this before it starts listening.
 */
export function preloadEncoders(names: readonly TokenizerName[]): void {
  preloadRanks(names);
}

/** Tokens of plain text, identical to tiktoken's `encode_ordinary(text).length`. */
export function countTextTokens(text: string, tokenizer: TokenizerName): number {
  if (text.length === 0) return 0;
  return cache.count(text, tokenizer, countNewText);
}

/** Empties the shared text and line caches (tests and benchmarks start cold with them). */
export function clearTokenCache(): void {
  cache.clear();
  for (const counter of Object.values(lineCounters)) counter.clear();
}

/** Empties the piece memos too: the next counts start from tiktoken alone (cold benchmark). */
export function clearPieceMemos(): void {
  for (const counter of Object.values(pieceCounters)) counter.clear();
}

export function tokenCacheStats(): TextTokenCacheStats {
  return cache.stats();
}
