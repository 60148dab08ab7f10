import { hashOf } from './packed-piece-table.js';

/**
 * tiktoken's merge ranks (token bytes → rank), looked up by a range of a byte array.
 *
 * Byte-pair encoding a new piece asks for the rank of every candidate merge. As a Map keyed by
 * strings, each question cost a substring, its hash and a walk through a 200k-entry table spread
 * over the heap (several cache misses): ~2 µs per piece. Tokens of up to 12 bytes (nearly all)
 * are held instead in one Int32Array whose 16-byte slots carry the bytes themselves, packed four
 * per integer, next to the length and rank; a question is a hash of at most three integers and
 * one cache line. Longer tokens have a small table of their own.
 *
 * The ranks are the ones the tiktoken package ships (`encoders/<name>.json`, the same table its
 * WASM build embeds), so counts are identical; test/tokenize checks that. The tables are built
 * from them once, at build time, and stored as they are (ranks-file.ts).
 */

/** Rank of a byte sequence that is no token. */
export const NONE = 0x7fffffff;
const MAX_PACKED_BYTES = 12;
const SLOT_INTS = 4; // bytes 0–3, 4–7, 8–11, length | rank << 8 (0 = empty)
const LONG_INTS = 3; // start in longBytes, length, rank

/** Everything a MergeRanks holds: typed arrays and two numbers, so a file can store it as is. */
export interface RankTables {
  slots: Int32Array;
  /** Ranks of the two-byte tokens by `first << 8 | second`: the first merges need no hashing. */
  pairs: Int32Array;
  /** Tokens longer than 12 bytes: their bytes end to end, and per token LONG_INTS integers. */
  longBytes: Uint8Array;
  longTokens: Int32Array;
  /** Open addressing over the long tokens by hash of their bytes: index + 1 (0 = empty). */
  longSlots: Int32Array;
  /** Bytes of the longest token: a longer range is no token, without a lookup. */
  maxTokenBytes: number;
  /** One more than the highest rank: ranks index arrays of this length. */
  rankLimit: number;
}

export class MergeRanks {
  readonly pairs: Int32Array;
  readonly maxTokenBytes: number;
  readonly rankLimit: number;
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly longBytes: Uint8Array;
  private readonly longTokens: Int32Array;
  private readonly longSlots: Int32Array;

  constructor(private readonly tables: RankTables) {
    this.pairs = tables.pairs;
    this.maxTokenBytes = tables.maxTokenBytes;
    this.rankLimit = tables.rankLimit;
    this.slots = tables.slots;
    this.mask = tables.slots.length / SLOT_INTS - 1;
    this.longBytes = tables.longBytes;
    this.longTokens = tables.longTokens;
    this.longSlots = tables.longSlots;
  }

  /** What ranks-file.ts stores. */
  toTables(): RankTables {
    return this.tables;
  }

  /** Rank of a token of more than 12 bytes: one hash over the range, one compare on a hit. */
  private longRankOf(bytes: Uint8Array, start: number, end: number): number {
    const slots = this.longSlots;
    if (slots.length === 0) return NONE;
    const mask = slots.length - 1;
    const length = end - start;
    const pool = this.longBytes;
    for (let slot = hashBytes(bytes, start, end) & mask; ; slot = (slot + 1) & mask) {
      const index = slots[slot]! - 1;
      if (index < 0) return NONE;
      const meta = index * LONG_INTS;
      if (this.longTokens[meta + 1] !== length) continue;
      const at = this.longTokens[meta]!;
      let k = 0;
      while (k < length && pool[at + k] === bytes[start + k]) k++;
      if (k === length) return this.longTokens[meta + 2]!;
    }
  }

  /** Rank of the token `bytes[start, end)`, NONE if it is no token. */
  rank(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length > this.maxTokenBytes) return NONE;
    if (length > MAX_PACKED_BYTES) return this.longRankOf(bytes, start, end);
    let a = 0;
    let b = 0;
    let c = 0;
    for (let k = 0; k < length; k++) {
      const shift = (k & 3) * 8;
      if (k < 4) a |= bytes[start + k]! << shift;
      else if (k < 8) b |= bytes[start + k]! << shift;
      else c |= bytes[start + k]! << shift;
    }
    const slots = this.slots;
    for (let slot = hashOf(a, b, c, length) & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot * SLOT_INTS;
      const meta = slots[at + 3]!;
      if (meta === 0) return NONE;
      if ((meta & 0xff) === length && slots[at] === a && slots[at + 1] === b && slots[at + 2] === c) return meta >>> 8;
    }
  }
}

/** Builds the tables from tokens and their ranks (at build time, or in a tree not built). */
export class MergeRanksBuilder {
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly pairs = new Int32Array(1 << 16).fill(NONE);
  private longBytes = new Uint8Array(1 << 16);
  private longBytesUsed = 0;
  private longTokens: number[] = [];
  private maxTokenBytes = 0;
  private rankLimit = 0;

  constructor(tokens: number) {
    let capacity = 1024;
    while (capacity < tokens * 2) capacity *= 2;
    this.mask = capacity - 1;
    this.slots = new Int32Array(capacity * SLOT_INTS);
  }

  /** The token `bytes[start, start + length)` has rank `rank`. */
  add(bytes: Uint8Array, start: number, length: number, rank: number): void {
    if (length > this.maxTokenBytes) this.maxTokenBytes = length;
    if (rank >= this.rankLimit) this.rankLimit = rank + 1;
    if (length === 2) this.pairs[(bytes[start]! << 8) | bytes[start + 1]!] = rank;
    if (length > MAX_PACKED_BYTES) {
      this.addLong(bytes, start, length, rank);
      return;
    }
    // Bytes 0–3, 4–7 and 8–11, one integer each, as rank() packs them.
    const ints = new Int32Array(3);
    for (let k = 0; k < length; k++) ints[k >> 2]! |= bytes[start + k]! << ((k & 3) * 8);
    const slots = this.slots;
    let slot = hashOf(ints[0]!, ints[1]!, ints[2]!, length) & this.mask;
    while (slots[slot * SLOT_INTS + 3] !== 0) slot = (slot + 1) & this.mask;
    slots.set([ints[0]!, ints[1]!, ints[2]!, length | (rank << 8)], slot * SLOT_INTS);
  }

  private addLong(bytes: Uint8Array, from: number, length: number, rank: number): void {
    if (this.longBytesUsed + length > this.longBytes.length) {
      const grown = new Uint8Array(Math.max(this.longBytes.length * 2, this.longBytesUsed + length));
      grown.set(this.longBytes);
      this.longBytes = grown;
    }
    this.longBytes.set(bytes.subarray(from, from + length), this.longBytesUsed);
    this.longTokens.push(this.longBytesUsed, length, rank);
    this.longBytesUsed += length;
  }

  build(): MergeRanks {
    const longBytes = this.longBytes.slice(0, this.longBytesUsed);
    const longTokens = Int32Array.from(this.longTokens);
    const count = longTokens.length / LONG_INTS;
    let capacity = 1024;
    while (capacity < count * 2) capacity *= 2;
    const longSlots = new Int32Array(count === 0 ? 0 : capacity);
    for (let index = 0; index < count; index++) {
      const start = longTokens[index * LONG_INTS]!;
      const mask = capacity - 1;
      let slot = hashBytes(longBytes, start, start + longTokens[index * LONG_INTS + 1]!) & mask;
      while (longSlots[slot] !== 0) slot = (slot + 1) & mask;
      longSlots[slot] = index + 1;
    }
    return new MergeRanks({
      slots: this.slots,
      pairs: this.pairs,
      longBytes,
      longTokens,
      longSlots,
      maxTokenBytes: this.maxTokenBytes,
      rankLimit: this.rankLimit,
    });
  }
}

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = end - start;
  for (let k = start; k < end; k++) hash = Math.imul(hash ^ bytes[k]!, 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return hash ^ (hash >>> 13);
}
