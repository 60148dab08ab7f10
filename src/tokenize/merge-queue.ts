/**
 * The candidate merges of one long piece, in the order tiktoken's `byte_pair_merge` takes them:
 * lowest rank first, leftmost (lowest start offset) on a tie. The next one costs O(1) amortised
 * in the common case, O(log n) at worst, where a binary heap over all n candidates paid two full
 * sift-downs per merge (10 MB of one letter: ~360 M heap steps, > 10 s).
 *
 * Candidates are grouped by rank into buckets, each a FIFO list of start offsets kept in
 * increasing order; a small heap of the non-empty buckets' ranks finds the lowest. Nearly every
 * candidate is born at a higher offset than the ones already in its bucket (the initial pairs
 * left to right, then the pairs around each merge, which moves rightwards within a rank), so it
 * is appended. The rare one that is not goes to a side heap keyed by (rank, offset), and the
 * next merge is the lower of the two heads.
 *
 * Stale candidates are not removed when a merge changes a pair: an entry (rank r, offset p) is
 * valid while `rank[p] === r` in the caller's array, which it sets to -1 for a part merged away.
 * A pair only ever changes into a longer byte string, so into another rank: an entry cannot
 * become valid again.
 */

import { TypedMinHeap } from './typed-min-heap.js';

const NO_ENTRY = -1;
const OFFSET_SCALE = 2 ** 32; // side-heap key: rank * 2^32 + offset, exact in a double

export class MergeQueue {
  // Bucket lists: entries in a pool, linked by entryNext; free entries form a list too.
  private entryOffset = new Int32Array(256);
  private entryNext = new Int32Array(256);
  private entriesUsed = 0;
  private freeEntry = NO_ENTRY;
  private bucketHead: Int32Array;
  private bucketTail: Int32Array;
  /** The ranks whose bucket is not empty. */
  private readonly ranks = new TypedMinHeap((n) => new Int32Array(n), 64);
  /** Out-of-order candidates, keyed rank * OFFSET_SCALE + offset. */
  private readonly side = new TypedMinHeap((n) => new Float64Array(n), 64);
  /** Entries appended or taken. */
  private entrySteps = 0;
  /** Rank of the candidate `take` returned last. */
  takenRank = 0;

  /** Entries appended, taken or sifted in total: tests check the bound with it. */
  get steps(): number {
    return this.entrySteps + this.ranks.steps + this.side.steps;
  }

  constructor(rankLimit: number) {
    this.bucketHead = new Int32Array(rankLimit).fill(NO_ENTRY);
    this.bucketTail = new Int32Array(rankLimit).fill(NO_ENTRY);
  }

  /**
   * Adds every pair of a fresh piece: `rankOf[k]` for k < length - 1, NONE (≥ rankLimit) for no
   * token. Sorted by rank first (counting sort), so that each bucket's entries sit side by side
   * in the pool and walking one reads memory in order: on a long piece of varied text a bucket
   * spans the whole piece, and entries scattered through the pool cost a cache miss each.
   */
  addAll(rankOf: Int32Array, length: number): void {
    const limit = this.bucketHead.length;
    // bucketTail holds the counts during the sort; the buckets are all empty between pieces.
    const counts = this.bucketTail;
    let pairs = 0;
    for (let k = 0; k + 1 < length; k++) {
      const rank = rankOf[k]!;
      if (rank >= limit) continue;
      if (counts[rank] === NO_ENTRY) counts[rank] = 0;
      counts[rank]!++;
      pairs++;
    }
    if (this.entryOffset.length < pairs) this.growEntries(pairs);
    // Bucket starts in the pool, in order of first appearance (any order works; heads get set).
    let used = 0;
    for (let k = 0; k + 1 < length; k++) {
      const rank = rankOf[k]!;
      if (rank >= limit || this.bucketHead[rank] !== NO_ENTRY) continue;
      this.bucketHead[rank] = used;
      used += counts[rank]!;
      counts[rank] = this.bucketHead[rank]!; // now: the next free entry of this bucket
      this.ranks.push(rank);
    }
    for (let k = 0; k + 1 < length; k++) {
      const rank = rankOf[k]!;
      if (rank >= limit) continue;
      const entry = counts[rank]!;
      this.entryOffset[entry] = k;
      this.entryNext[entry] = entry + 1;
      counts[rank] = entry + 1;
    }
    // Close each bucket (the rank heap holds each rank once): its tail is the entry before its
    // next free one.
    for (let i = 0; i < this.ranks.size; i++) {
      const rank = this.ranks.at(i);
      const tail = counts[rank]! - 1;
      this.entryNext[tail] = NO_ENTRY;
      counts[rank] = tail;
    }
    this.entriesUsed = used;
    this.entrySteps += pairs;
  }

  /** Drops storage grown past `entries` (between pieces: one huge piece must not stay resident). */
  shrink(entries: number): void {
    if (this.entryOffset.length <= entries) return;
    this.entryOffset = new Int32Array(256);
    this.entryNext = new Int32Array(256);
    this.side.release();
  }

  /** Adds the pair starting at `offset`, of rank `rank` (not NONE). */
  add(offset: number, rank: number): void {
    this.entrySteps++;
    const tail = this.bucketTail[rank]!;
    if (tail === NO_ENTRY) {
      const entry = this.newEntry(offset);
      this.bucketHead[rank] = entry;
      this.bucketTail[rank] = entry;
      this.ranks.push(rank);
    } else if (this.entryOffset[tail]! < offset) {
      const entry = this.newEntry(offset);
      this.entryNext[tail] = entry;
      this.bucketTail[rank] = entry;
    } else {
      this.side.push(rank * OFFSET_SCALE + offset);
    }
  }

  /**
   * Removes and returns the offset of the lowest valid candidate (its rank in `takenRank`), or
   * -1 when none is left; on -1 the queue is empty and ready for the next piece.
   */
  take(rankOf: Int32Array): number {
    // The lowest bucket's first valid entry.
    let bucketRank = -1;
    let bucketOffset = -1;
    while (this.ranks.size > 0) {
      const rank = this.ranks.peek();
      let entry = this.bucketHead[rank]!;
      while (entry !== NO_ENTRY && rankOf[this.entryOffset[entry]!] !== rank) {
        const after = this.entryNext[entry]!;
        this.freeEntryAt(entry);
        entry = after;
      }
      if (entry === NO_ENTRY) {
        this.bucketHead[rank] = NO_ENTRY;
        this.bucketTail[rank] = NO_ENTRY;
        this.popRank();
        continue;
      }
      this.bucketHead[rank] = entry;
      bucketRank = rank;
      bucketOffset = this.entryOffset[entry]!;
      break;
    }
    // The side heap's first valid key.
    let sideKey = Infinity;
    while (this.side.size > 0) {
      const key = this.side.peek();
      const rank = Math.floor(key / OFFSET_SCALE);
      if (rankOf[key - rank * OFFSET_SCALE] === rank) {
        sideKey = key;
        break;
      }
      this.side.pop();
    }
    if (bucketRank < 0 && sideKey === Infinity) return -1;
    if (bucketRank >= 0 && bucketRank * OFFSET_SCALE + bucketOffset < sideKey) {
      this.entrySteps++;
      const entry = this.bucketHead[bucketRank]!;
      const after = this.entryNext[entry]!;
      this.freeEntryAt(entry);
      this.bucketHead[bucketRank] = after;
      if (after === NO_ENTRY) {
        this.bucketTail[bucketRank] = NO_ENTRY;
        this.popRank();
      }
      this.takenRank = bucketRank;
      return bucketOffset;
    }
    this.side.pop();
    const rank = Math.floor(sideKey / OFFSET_SCALE);
    this.takenRank = rank;
    return sideKey - rank * OFFSET_SCALE;
  }

  private newEntry(offset: number): number {
    let entry = this.freeEntry;
    if (entry !== NO_ENTRY) this.freeEntry = this.entryNext[entry]!;
    else {
      if (this.entriesUsed === this.entryOffset.length) this.growEntries(this.entriesUsed * 2);
      entry = this.entriesUsed++;
    }
    this.entryOffset[entry] = offset;
    this.entryNext[entry] = NO_ENTRY;
    return entry;
  }

  private freeEntryAt(entry: number): void {
    this.entryNext[entry] = this.freeEntry;
    this.freeEntry = entry;
  }

  private growEntries(entries: number): void {
    const offsets = new Int32Array(entries);
    const nexts = new Int32Array(entries);
    offsets.set(this.entryOffset.subarray(0, this.entriesUsed));
    nexts.set(this.entryNext.subarray(0, this.entriesUsed));
    this.entryOffset = offsets;
    this.entryNext = nexts;
  }

  /** The lowest rank's bucket is empty: its rank leaves the heap. */
  private popRank(): void {
    this.ranks.pop();
    if (this.ranks.size === 0) this.restartPool();
  }

  /** No bucket holds an entry any more: the pool's slots are all free, start again at slot 0. */
  private restartPool(): void {
    this.entriesUsed = 0;
    this.freeEntry = NO_ENTRY;
  }
}
