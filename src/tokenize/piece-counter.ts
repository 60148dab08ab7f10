import { MAX_PACKED_CHARS, PackedPieceTable } from './packed-piece-table.js';
import { pieceEndFor } from './pre-tokenize.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * Exact token count of a text as the sum of its pre-tokenization pieces' counts (BPE never
 * merges across pieces), each piece's count memoised. A piece seen for the first time is
 * counted by tiktoken itself: alone, it is one piece again, so tiktoken byte-pair encodes
 * exactly the bytes it would have encoded inside the whole text.
 *
 * The memos are open-addressing tables keyed by the piece's characters, looked up in place
 * (hash and compare over the text) so that a hit allocates nothing: a text has about one
 * piece per four characters, and a substring plus a Map lookup per piece would cost more than
 * the scan itself. ASCII pieces of 2 to 12 characters go to a packed table (packed-piece-table.ts,
 * one cache line per lookup); longer or non-ASCII pieces to a table of strings here. Each grows
 * up to `maxEntries` and is then emptied and refilled: its content is vocabulary-like (words,
 * indentation, punctuation), so it refills within a few requests.
 */
export interface PieceCounterOptions {
  /** Pieces held at most per table (rounded up to a power of two, at half load). */
  maxEntries: number;
  /** Longer pieces (runs of spaces, minified blobs) are counted without being held. */
  maxPieceChars: number;
}

const INITIAL_CAPACITY = 1 << 12;

export class PieceCounter {
  private capacity = INITIAL_CAPACITY;
  private hashes = new Int32Array(INITIAL_CAPACITY);
  private keys: (string | undefined)[] = new Array<string | undefined>(INITIAL_CAPACITY);
  private counts = new Int32Array(INITIAL_CAPACITY);
  private size = 0;
  private readonly maxCapacity: number;
  private readonly packed: PackedPieceTable;
  private readonly pieceEnd: (text: string, i: number) => number;

  constructor(
    tokenizer: TokenizerName,
    private readonly encodePiece: (piece: string) => number,
    private readonly options: PieceCounterOptions,
  ) {
    let capacity = INITIAL_CAPACITY;
    while (capacity < options.maxEntries * 2) capacity *= 2;
    this.maxCapacity = capacity;
    this.packed = new PackedPieceTable(INITIAL_CAPACITY, capacity);
    this.pieceEnd = pieceEndFor(tokenizer);
  }

  count(text: string): number {
    let total = 0;
    const length = text.length;
    const pieceEnd = this.pieceEnd;
    for (let i = 0; i < length;) {
      const end = pieceEnd(text, i);
      total += this.pieceCountAt(text, i, end);
      i = end;
    }
    return total;
  }

  clear(): void {
    this.reset(INITIAL_CAPACITY);
    this.packed.clear();
  }

  get entries(): number {
    return this.size + this.packed.entries;
  }

  private pieceCountAt(text: string, start: number, end: number): number {
    const length = end - start;
    // Every byte is a token of its own in byte-level BPE, so one ASCII character is one token.
    if (length === 1 && text.charCodeAt(start) < 128) return 1;
    if (length > 1 && length <= MAX_PACKED_CHARS && length <= this.options.maxPieceChars) {
      const known = this.packed.count(text, start, end, this.encodePiece);
      if (known >= 0) return known;
    }
    return this.pieceCount(text, start, end);
  }

  private pieceCount(text: string, start: number, end: number): number {
    const length = end - start;
    if (length > this.options.maxPieceChars) return this.encodePiece(text.slice(start, end));
    let hash = length;
    for (let k = start; k < end; k++) hash = Math.imul(hash ^ text.charCodeAt(k), 0x01000193);
    // FNV leaves the low bits (the slot) poorly mixed; fold the high bits in.
    hash ^= hash >>> 15;
    hash = Math.imul(hash, 0x2c1b3c6d);
    hash ^= hash >>> 13;
    const mask = this.capacity - 1;
    const keys = this.keys;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const key = keys[slot];
      if (key === undefined) break;
      if (this.hashes[slot] === hash && key.length === length && sameChars(key, text, start)) return this.counts[slot]!;
    }
    const piece = text.slice(start, end);
    const count = this.encodePiece(piece);
    this.insert(piece, hash, count);
    return count;
  }

  private insert(piece: string, hash: number, count: number): void {
    if ((this.size + 1) * 2 > this.capacity) {
      if (this.capacity < this.maxCapacity) this.grow();
      else this.reset(this.capacity);
    }
    const mask = this.capacity - 1;
    let slot = hash & mask;
    while (this.keys[slot] !== undefined) slot = (slot + 1) & mask;
    this.keys[slot] = piece;
    this.hashes[slot] = hash;
    this.counts[slot] = count;
    this.size++;
  }

  private grow(): void {
    const { keys, hashes, counts, capacity } = this;
    this.reset(capacity * 2);
    for (let slot = 0; slot < capacity; slot++) {
      const key = keys[slot];
      if (key !== undefined) this.insert(key, hashes[slot]!, counts[slot]!);
    }
  }

  private reset(capacity: number): void {
    this.capacity = capacity;
    this.hashes = new Int32Array(capacity);
    this.keys = new Array<string | undefined>(capacity);
    this.counts = new Int32Array(capacity);
    this.size = 0;
  }
}

function sameChars(key: string, text: string, start: number): boolean {
  for (let k = 0; k < key.length; k++) if (key.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}
