/**
 * Whether a text was offered recently: a memo of texts admits one on its second sight, so a stream
 * of texts each seen once (a prompt carrying a request number, a one-off tool output) cannot fill
 * it. Without this, such texts filled the token-count memos slowly up to their bound, and a
 * capped gateway's memory rose for ten minutes and more (bench/README.md, "soak"); texts agents
 * resend every turn are admitted on the second turn. TinyLFU's "doorkeeper", kept as a fixed table of
 * hashes (4 bytes a slot, allocated once): a slot overwritten only delays an admission, and two
 * texts with one hash only admit the second early; neither changes a count, only what is held.
 */
export class Doorkeeper {
  private readonly slots: Int32Array;
  private readonly shift: number;

  /** `slotCount`: a power of two, about the number of distinct texts remembered at once. */
  constructor(slotCount = 1 << 16) {
    if (!Number.isInteger(Math.log2(slotCount)) || slotCount < 2) throw new Error('slotCount must be a power of two');
    this.slots = new Int32Array(slotCount);
    this.shift = 32 - Math.log2(slotCount);
  }

  /** True when `text` was offered before (and its slot not taken since); else remembers it. */
  seenBefore(text: string): boolean {
    const hash = mixed(sampledHash(text)) | 1; // 0 marks an empty slot
    const slot = hash >>> this.shift;
    if (this.slots[slot] === hash) return true;
    this.slots[slot] = hash;
    return false;
  }

  clear(): void {
    this.slots.fill(0);
  }
}

/** MurmurHash3's finalizer: FNV's high bits, which pick the slot, depend on every input bit. */
function mixed(hash: number): number {
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

const WHOLE_UP_TO = 512;
const SAMPLED = 128;

/**
 * FNV-1a over the length and the characters: all of a text up to 512 characters, else its first
 * and last 128 and 128 spread between, so a long text costs no more to check than a short one
 * (long texts differing only between the samples are taken for one another: admitted early).
 */
function sampledHash(text: string): number {
  let hash = Math.imul(0x811c9dc5 ^ text.length, 0x01000193);
  const length = text.length;
  if (length <= WHOLE_UP_TO) {
    for (let i = 0; i < length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    return hash;
  }
  for (let i = 0; i < SAMPLED; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  const step = Math.floor((length - 2 * SAMPLED) / SAMPLED);
  for (let i = 0, at = SAMPLED; i < SAMPLED; i++, at += step) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  for (let i = length - SAMPLED; i < length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}
