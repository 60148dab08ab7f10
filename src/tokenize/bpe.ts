import { NONE, type MergeRanks } from './bpe-ranks.js';
import { mergeRanks } from './ranks-file.js';
import { MergeQueue } from './merge-queue.js';
import type { TokenizerName } from './tokenizer-names.js';
import { periodicRunCount } from './periodic-runs.js';

/**
 * tiktoken's byte-pair encoding of one pre-tokenization piece, in JavaScript, counting tokens
 * only, with the ranks tiktoken ships (bpe-ranks.ts).
 *
 * A call into tiktoken's WASM costs ~13 µs even for a three-letter piece (string transfer, its
 * own regex pass, an array back), which dominated counting text full of never-seen pieces (hex
 * dumps, hashes, identifiers). Here a piece costs a few table lookups.
 *
 * The merge order is tiktoken's `byte_pair_merge`: always the adjacent pair with the lowest
 * rank, the leftmost on a tie. Found by a scan of all parts, that is O(n²) for a piece of n
 * bytes, and a piece has no length bound (`\p{L}+` takes a whole run of letters): 64 KB of one
 * letter held the event loop for seconds, 10 MB for half an hour. Short pieces (nearly all) are
 * still merged by the scan, which is the fastest there; longer ones take their merges from a
 * queue of candidate pairs ordered by (rank, position) (merge-queue.ts): the same merges in the
 * same order, so the same count, in O(n log n) at worst (docs/tokenizers.md, "Complexity").
 */

/** Pieces up to this many bytes are merged by scanning; longer ones through the queue. */
export const QUEUE_FROM_BYTES = 48;

/** Loads the merge ranks now (synchronous; ~5 ms each from dist/ranks/) instead of under the first request. */
export function preloadRanks(names: readonly TokenizerName[]): void {
  for (const name of names) mergeRanks(name);
}

const utf8 = new TextEncoder();
// Scratch space of the merge loops: a piece allocates nothing. Kept between calls up to
// RETAINED_BYTES; a longer piece (a huge run of letters or blanks) gets arrays of its own, so
// one such piece does not leave megabytes allocated for the life of the process.
const RETAINED_BYTES = 4096;
const INITIAL_BYTES = 256;
let bytes = new Uint8Array(INITIAL_BYTES);
let next = new Int32Array(INITIAL_BYTES + 1);
let prev = new Int32Array(INITIAL_BYTES + 1);
let rank = new Int32Array(INITIAL_BYTES + 1);
/** rank[] of a part merged into the one before it: matches no queued candidate. */
const MERGED_AWAY = -1;
const queues = new Map<MergeRanks, MergeQueue>();
function queueFor(ranks: MergeRanks): MergeQueue {
  let queue = queues.get(ranks);
  if (!queue) queues.set(ranks, (queue = new MergeQueue(ranks.rankLimit)));
  return queue;
}

/** Work done by the merge queues so far, in steps (tests check it grows linearly). */
export function bpeQueueSteps(): number {
  let steps = 0;
  for (const queue of queues.values()) steps += queue.steps;
  return steps;
}

/**
 * The piece's UTF-8 bytes into `bytes`; returns their number. Lone surrogates become U+FFFD, as
 * they do on their way into tiktoken's WASM (TextEncoder there too).
 */
function encodeBytes(piece: string): number {
  const length = piece.length;
  if (length * 3 > bytes.length) bytes = new Uint8Array(length * 3);
  for (let i = 0; i < length; i++) {
    const c = piece.charCodeAt(i);
    if (c >= 128) return utf8.encodeInto(piece, bytes).written;
    bytes[i] = c; // ASCII is its own UTF-8
  }
  return length;
}

function ensureScratch(length: number): void {
  if (next.length > length) return;
  next = new Int32Array(length + 1);
  prev = new Int32Array(length + 1);
  rank = new Int32Array(length + 1);
}

/** After a piece: scratch arrays grown past RETAINED_BYTES are dropped for small ones. */
function releaseScratch(): void {
  if (bytes.length > RETAINED_BYTES * 3) bytes = new Uint8Array(INITIAL_BYTES);
  if (next.length > RETAINED_BYTES + 1) {
    next = new Int32Array(INITIAL_BYTES + 1);
    prev = new Int32Array(INITIAL_BYTES + 1);
    rank = new Int32Array(INITIAL_BYTES + 1);
  }
  for (const queue of queues.values()) queue.shrink(RETAINED_BYTES);
}

/**
 * Number of tokens tiktoken encodes `piece` (one pre-tokenization piece) into: 1 if the piece is
 * a token; otherwise its bytes are merged pairwise, always the adjacent pair with the lowest
 * rank first (the leftmost on a tie), until no adjacent pair is a token (tiktoken's
 * `byte_pair_merge`).
 */
export function bpeTokenCount(piece: string, name: TokenizerName): number {
  const ranks = mergeRanks(name);
  const exact = (part: string) => mergeCount(part, ranks, QUEUE_FROM_BYTES);
  // A run of one short unit millions of units long (10 MB of one letter) is counted from its
  // period instead of merged whole: ~1.5 s of merging on this hardware, a few ms this way.
  const count =
    (piece.length >= PERIODIC_FROM_CHARS ? periodicRunCount(piece, ranks, exact) : undefined) ?? exact(piece);
  releaseScratch();
  return count;
}

/** Pieces this long that repeat one unit are counted from their period (periodic-runs.ts). */
export const PERIODIC_FROM_CHARS = 1 << 20;

/**
 * As bpeTokenCount, with the queue used from `queueFromBytes` on (0: always, Infinity: never), so
 * tests can hold both merge loops against a reference on the same pieces.
 */
export function bpeTokenCountWith(piece: string, name: TokenizerName, queueFromBytes: number): number {
  const count = mergeCount(piece, mergeRanks(name), queueFromBytes);
  releaseScratch();
  return count;
}

function mergeCount(piece: string, ranks: MergeRanks, queueFromBytes: number): number {
  const length = encodeBytes(piece);
  if (length <= 1) return length;
  if (ranks.rank(bytes, 0, length) !== NONE) return 1;
  ensureScratch(length);
  // Parts as a linked list over byte offsets: next[k] is the start of the part after the one
  // starting at k; rank[k] the rank of that part merged with the next one.
  const pairs = ranks.pairs;
  for (let k = 0; k < length; k++) {
    next[k] = k + 1;
    prev[k + 1] = k;
    rank[k] = k + 1 < length ? pairs[(bytes[k]! << 8) | bytes[k + 1]!]! : NONE;
  }
  return length > queueFromBytes ? queueMerge(ranks, length) : scanMerge(ranks, length);
}

/** Finds each merge by scanning every part: O(n²), the fastest for short pieces. */
function scanMerge(ranks: MergeRanks, length: number): number {
  let parts = length;
  for (;;) {
    let best = NONE;
    let at = -1;
    for (let k = 0; k < length; k = next[k]!) {
      if (rank[k]! < best) {
        best = rank[k]!;
        at = k;
      }
    }
    if (at < 0) return parts;
    const gone = next[at]!;
    next[at] = next[gone]!;
    prev[next[gone]!] = at;
    parts--;
    rank[at] = pairRank(ranks, at, length);
    if (at > 0) rank[prev[at]!] = pairRank(ranks, prev[at]!, length);
  }
}

/**
 * Takes each merge from the queue of candidate pairs (merge-queue.ts) in the scan's order; a
 * merge re-ranks the merged part's pair and the one before it: O(1) amortised per merge.
 */
function queueMerge(ranks: MergeRanks, length: number): number {
  const queue = queueFor(ranks);
  queue.addAll(rank, length);
  let parts = length;
  for (;;) {
    const at = queue.take(rank);
    if (at < 0) return parts;
    const gone = next[at]!;
    next[at] = next[gone]!;
    prev[next[gone]!] = at;
    rank[gone] = MERGED_AWAY;
    parts--;
    const merged = pairRank(ranks, at, length);
    rank[at] = merged;
    if (merged !== NONE) queue.add(at, merged);
    if (at > 0) {
      const before = prev[at]!;
      const changed = pairRank(ranks, before, length);
      rank[before] = changed;
      if (changed !== NONE) queue.add(before, changed);
    }
  }
}

/** Rank of the part at `k` merged with the one after it, under the current boundaries. */
function pairRank(ranks: MergeRanks, k: number, length: number): number {
  const after = next[k]!;
  return after < length ? ranks.rank(bytes, k, next[after]!) : NONE;
}
