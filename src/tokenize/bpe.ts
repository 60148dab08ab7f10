import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * tiktoken's byte-pair encoding of one pre-tokenization piece, in JavaScript, counting tokens
 * only. The merge ranks are the ones the tiktoken package ships (`encoders/<name>.json`, the
 * same table its WASM build embeds), so counts are identical; test/tokenize checks that.
 *
 * A call into tiktoken's WASM costs ~13 µs even for a three-letter piece (string transfer, its
 * own regex pass, an array back), which dominated counting text full of never-seen pieces (hex
 * dumps, hashes, identifiers). Here a piece costs a few map lookups. The ranks take ~11 MB
 * (o200k_base) and ~6 MB (cl100k_base) once loaded, against ~35 MB per vocabulary in WASM.
 */

const requireModule = createRequire(import.meta.url);
type Ranks = Map<string, number>;
/** Rank of a byte sequence that is no token. */
const NONE = 0x7fffffff;
const loaded = new Map<TokenizerName, Ranks>();
/** Ranks of the two-byte tokens by `first << 8 | second`, NONE where the pair is no token. */
const pairTables = new Map<TokenizerName, Int32Array>();

/** Merge ranks keyed by the token's bytes as a Latin-1 string (one character per byte). */
function ranksFor(name: TokenizerName): Ranks {
  let ranks = loaded.get(name);
  if (ranks) return ranks;
  const file = requireModule.resolve(`tiktoken/encoders/${name}.json`);
  const { bpe_ranks: table } = JSON.parse(readFileSync(file, 'utf8')) as { bpe_ranks: string };
  ranks = new Map();
  // Lines of `<prefix> <first rank> <base64 token> <base64 token> …`, ranks consecutive.
  for (const line of table.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 3) continue;
    const first = Number(fields[1]);
    for (let i = 2; i < fields.length; i++) ranks.set(atob(fields[i]!), first + i - 2);
  }
  loaded.set(name, ranks);
  const pairs = new Int32Array(1 << 16).fill(NONE);
  for (const [bytes, rank] of ranks) if (bytes.length === 2) pairs[(bytes.charCodeAt(0) << 8) | bytes.charCodeAt(1)] = rank;
  pairTables.set(name, pairs);
  return ranks;
}

/** Loads the merge ranks now (synchronous, ~0.2–0.5 s each) instead of under the first request. */
export function preloadRanks(names: readonly TokenizerName[]): void {
  for (const name of names) ranksFor(name);
}

const utf8 = new TextEncoder();

/**
 * The piece's UTF-8 bytes as a Latin-1 string. Lone surrogates become U+FFFD, as they do on
 * their way into tiktoken's WASM (TextEncoder there too).
 */
function bytesOf(piece: string): string {
  // ASCII is its own UTF-8.
  let ascii = true;
  for (let i = 0; i < piece.length; i++) {
    if (piece.charCodeAt(i) >= 128) {
      ascii = false;
      break;
    }
  }
  if (ascii) return piece;
  const bytes = utf8.encode(piece);
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += String.fromCharCode(bytes[i]!);
  return out;
}


/**
 * Number of tokens tiktoken encodes `piece` (one pre-tokenization piece) into: 1 if the piece is
 * a token; otherwise its bytes are merged pairwise, always the adjacent pair with the lowest
 * rank first (the leftmost on a tie), until no adjacent pair is a token (tiktoken's
 * `byte_pair_merge`).
 */
export function bpeTokenCount(piece: string, name: TokenizerName): number {
  const ranks = ranksFor(name);
  const pairs = pairTables.get(name)!;
  const bytes = bytesOf(piece);
  const length = bytes.length;
  if (length <= 1) return length;
  if (ranks.has(bytes)) return 1;
  // Parts as a linked list over byte offsets: next[k] is the start of the part after the one
  // starting at k; rank[k] the rank of that part merged with the next one.
  const next = new Int32Array(length + 1);
  const prev = new Int32Array(length + 1);
  const rank = new Int32Array(length + 1).fill(NONE);
  for (let k = 0; k < length; k++) {
    next[k] = k + 1;
    prev[k + 1] = k;
    if (k + 1 < length) rank[k] = pairs[(bytes.charCodeAt(k) << 8) | bytes.charCodeAt(k + 1)]!;
  }
  // Rank of the part at `k` merged with the one after it, under the current boundaries.
  const pairRank = (k: number) => {
    const end = next[next[k]!]!;
    return next[k]! < length ? (ranks.get(bytes.slice(k, end)) ?? NONE) : NONE;
  };
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
    rank[at] = pairRank(at);
    if (at > 0) rank[prev[at]!] = pairRank(prev[at]!);
  }
}
