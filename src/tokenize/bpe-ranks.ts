import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TokenizerName } from './tokenizer-names.js';
import { hashOf } from './packed-piece-table.js';

/**
 * tiktoken's merge ranks (token bytes → rank), looked up by a range of a byte array.
 *
 * Byte-pair encoding a new piece asks for the rank of every candidate merge. As a Map keyed by
 * strings, each question cost a substring, its hash and a walk through a 200k-entry table spread
 * over the heap (several cache misses): ~2 µs per piece. Tokens of up to 12 bytes (nearly all)
 * are held instead in one Int32Array whose 16-byte slots carry the bytes themselves, packed four
 * per integer, next to the length and rank; a question is a hash of at most three integers and
 * one cache line. Longer tokens stay in a Map.
 *
 * The ranks are the ones the tiktoken package ships (`encoders/<name>.json`, the same table its
 * WASM build embeds), so counts are identical; test/tokenize checks that.
 */

/** Rank of a byte sequence that is no token. */
export const NONE = 0x7fffffff;
const MAX_PACKED_BYTES = 12;
const SLOT_INTS = 4; // bytes 0–3, 4–7, 8–11, length | rank << 8 (0 = empty)

export class MergeRanks {
  private readonly mask: number;
  private readonly slots: Int32Array;
  /** Tokens longer than 12 bytes: their bytes end to end, and per token its start, length, rank. */
  private longBytes = new Uint8Array(1 << 16);
  private longBytesUsed = 0;
  private longStart: number[] = [];
  private longLength: number[] = [];
  private longRank: number[] = [];
  /** Open addressing over the long tokens by hash of their bytes: index + 1 (0 = empty). */
  private longSlots = new Int32Array(0);
  /** Ranks of the two-byte tokens by `first << 8 | second`: the first merges need no hashing. */
  readonly pairs = new Int32Array(1 << 16).fill(NONE);
  /** Bytes of the longest token: a longer range is no token, without a lookup. */
  maxTokenBytes = 0;
  /** One more than the highest rank: ranks index arrays of this length. */
  rankLimit = 0;

  constructor(tokens: number) {
    let capacity = 1024;
    while (capacity < tokens * 2) capacity *= 2;
    this.mask = capacity - 1;
    this.slots = new Int32Array(capacity * SLOT_INTS);
  }

  /** `bytes`: one character per byte (Latin-1). */
  add(bytes: string, rank: number): void {
    const length = bytes.length;
    if (length > this.maxTokenBytes) this.maxTokenBytes = length;
    if (rank >= this.rankLimit) this.rankLimit = rank + 1;
    if (length === 2) this.pairs[(bytes.charCodeAt(0) << 8) | bytes.charCodeAt(1)] = rank;
    if (length > MAX_PACKED_BYTES) {
      this.addLong(bytes, rank);
      return;
    }
    let a = 0;
    let b = 0;
    let c = 0;
    for (let k = 0; k < length; k++) {
      const shift = (k & 3) * 8;
      if (k < 4) a |= bytes.charCodeAt(k) << shift;
      else if (k < 8) b |= bytes.charCodeAt(k) << shift;
      else c |= bytes.charCodeAt(k) << shift;
    }
    const slots = this.slots;
    let slot = hashOf(a, b, c, length) & this.mask;
    while (slots[slot * SLOT_INTS + 3] !== 0) slot = (slot + 1) & this.mask;
    const at = slot * SLOT_INTS;
    slots[at] = a;
    slots[at + 1] = b;
    slots[at + 2] = c;
    slots[at + 3] = length | (rank << 8);
  }

  private addLong(latin1: string, rank: number): void {
    const length = latin1.length;
    if (this.longBytesUsed + length > this.longBytes.length) {
      const grown = new Uint8Array(Math.max(this.longBytes.length * 2, this.longBytesUsed + length));
      grown.set(this.longBytes);
      this.longBytes = grown;
    }
    const start = this.longBytesUsed;
    for (let k = 0; k < length; k++) this.longBytes[start + k] = latin1.charCodeAt(k);
    this.longBytesUsed += length;
    this.longStart.push(start);
    this.longLength.push(length);
    this.longRank.push(rank);
    if (this.longStart.length * 2 > this.longSlots.length) this.rehashLong();
    else this.slotLong(this.longStart.length - 1);
  }

  private rehashLong(): void {
    this.longSlots = new Int32Array(Math.max(1024, this.longSlots.length * 2));
    for (let index = 0; index < this.longStart.length; index++) this.slotLong(index);
  }

  private slotLong(index: number): void {
    const start = this.longStart[index]!;
    const mask = this.longSlots.length - 1;
    let slot = hashBytes(this.longBytes, start, start + this.longLength[index]!) & mask;
    while (this.longSlots[slot] !== 0) slot = (slot + 1) & mask;
    this.longSlots[slot] = index + 1;
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
      if (this.longLength[index] !== length) continue;
      const at = this.longStart[index]!;
      let k = 0;
      while (k < length && pool[at + k] === bytes[start + k]) k++;
      if (k === length) return this.longRank[index]!;
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

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = end - start;
  for (let k = start; k < end; k++) hash = Math.imul(hash ^ bytes[k]!, 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return hash ^ (hash >>> 13);
}

const requireModule = createRequire(import.meta.url);
const loaded = new Map<TokenizerName, MergeRanks>();

/** The merge ranks of `name`, read from the tiktoken package on first use (~0.2–0.5 s). */
export function mergeRanks(name: TokenizerName): MergeRanks {
  let ranks = loaded.get(name);
  if (ranks) return ranks;
  const file = requireModule.resolve(`tiktoken/encoders/${name}.json`);
  const { bpe_ranks: table } = JSON.parse(readFileSync(file, 'utf8')) as { bpe_ranks: string };
  // Lines of `<prefix> <first rank> <base64 token> <base64 token> …`, ranks consecutive.
  const lines = table
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields.length >= 3);
  ranks = new MergeRanks(lines.reduce((n, fields) => n + fields.length - 2, 0));
  for (const fields of lines) {
    const first = Number(fields[1]);
    for (let i = 2; i < fields.length; i++) ranks.add(atob(fields[i]!), first + i - 2);
  }
  loaded.set(name, ranks);
  return ranks;
}
