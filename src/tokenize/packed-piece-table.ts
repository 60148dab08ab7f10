/**
 * Token counts of short ASCII pieces (2 to 12 characters: 99 % of the pieces of code and logs),
 * held in one flat Int32Array whose slots carry the piece itself, packed four characters per
 * integer, next to its length and count.
 *
 * Why not a table of strings: a lookup there touched four places in memory (a hash array, a
 * key array, the key string, a count array), and between two requests the rest of the gateway
 * evicts them all from the CPU caches, so each piece cost several cache misses: counting
 * slowed from ~13 to ~50 ns per character. A slot here is 16 bytes, one cache line holds four
 * of them (linear probing stays inside it), and comparing a key is comparing three integers.
 *
 * Exact by construction: ASCII characters fit in 8 bits, the length is stored, so two pieces
 * share a slot's contents only if they are the same characters.
 */
export const MAX_PACKED_CHARS = 12;

const SLOT_INTS = 4; // chars 0–3, chars 4–7, chars 8–11, length | count << 8 (0 = empty)

/** Hash of a key packed as three integers and a length (also used by the merge-rank table). */
export function hashOf(a: number, b: number, c: number, length: number): number {
  let h = Math.imul(a ^ length, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}

export class PackedPieceTable {
  private capacity: number;
  private slots: Int32Array;
  private size = 0;

  /** `maxCapacity` (a power of two) bounds the slots; the table is emptied when it is full. */
  constructor(
    private readonly initialCapacity: number,
    private readonly maxCapacity: number,
  ) {
    this.capacity = initialCapacity;
    this.slots = new Int32Array(initialCapacity * SLOT_INTS);
  }

  get entries(): number {
    return this.size;
  }

  /**
   * The count of `text[start, end)` (2 to 12 characters), `encode` of it stored on a miss;
   * -1 if a character is not ASCII (the caller counts such pieces another way).
   */
  count(text: string, start: number, end: number, encode: (piece: string) => number): number {
    let a = 0;
    let b = 0;
    let c = 0;
    for (let k = start, shift = 0; k < end; k++, shift += 8) {
      const ch = text.charCodeAt(k);
      if (ch >= 128) return -1;
      if (shift < 32) a |= ch << shift;
      else if (shift < 64) b |= ch << (shift - 32);
      else c |= ch << (shift - 64);
    }
    const length = end - start;
    const mask = this.capacity - 1;
    const slots = this.slots;
    for (let slot = hashOf(a, b, c, length) & mask; ; slot = (slot + 1) & mask) {
      const at = slot * SLOT_INTS;
      const meta = slots[at + 3]!;
      if (meta === 0) break;
      if ((meta & 0xff) === length && slots[at] === a && slots[at + 1] === b && slots[at + 2] === c) return meta >>> 8;
    }
    const count = encode(text.slice(start, end));
    this.insert(a, b, c, length | (count << 8));
    return count;
  }

  clear(): void {
    this.reset(this.initialCapacity);
  }

  private insert(a: number, b: number, c: number, meta: number): void {
    if ((this.size + 1) * 2 > this.capacity) {
      if (this.capacity < this.maxCapacity) this.grow();
      else this.reset(this.capacity);
    }
    const mask = this.capacity - 1;
    const slots = this.slots;
    let at = (hashOf(a, b, c, meta & 0xff) & mask) * SLOT_INTS;
    while (slots[at + 3] !== 0) at = (at + SLOT_INTS) & (mask * SLOT_INTS + SLOT_INTS - 1);
    slots[at] = a;
    slots[at + 1] = b;
    slots[at + 2] = c;
    slots[at + 3] = meta;
    this.size++;
  }

  private grow(): void {
    const old = this.slots;
    this.reset(this.capacity * 2);
    for (let at = 0; at < old.length; at += SLOT_INTS) {
      if (old[at + 3] !== 0) this.insert(old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!);
    }
  }

  private reset(capacity: number): void {
    this.capacity = capacity;
    this.slots = new Int32Array(capacity * SLOT_INTS);
    this.size = 0;
  }
}
