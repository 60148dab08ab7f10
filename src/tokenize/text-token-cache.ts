import { TOKENIZERS, type TokenizerName } from './tokenizer-names.js';

/**
 * Exact LRU memo of text → token count, one slot per tokenizer, bounded by the characters it
 * holds.
 *
 * Agents re-send the whole conversation on every turn, so nearly every message of a request was
 * counted before; a lookup costs one hash and one compare of the string, far less than a BPE
 * pass. Keys are the full text, never a hash of it, so a hit is exact by construction.
 *
 * The bound counts UTF-16 code units of the keys plus a fixed charge per entry (for the Map
 * entry and its slot array), so many tiny strings cannot grow it past the budget either.
 * V8 stores a string in one or two bytes per code unit, so `maxChars` of 32 Mi keeps the held
 * text under 64 MiB. Texts longer than `maxEntryChars` are not stored: one outsize paste must
 * not flush every other conversation's messages.
 */
export interface TextTokenCacheOptions {
  maxChars: number;
  maxEntryChars: number;
}

export interface TextTokenCacheStats {
  entries: number;
  chars: number;
  hits: number;
  misses: number;
}

const ENTRY_OVERHEAD_CHARS = 64;

interface Entry {
  readonly key: string;
  readonly counts: (number | undefined)[];
}
const SLOT: Record<TokenizerName, number> = { cl100k_base: 0, o200k_base: 1 };

export class TextTokenCache {
  readonly maxChars: number;
  readonly maxEntryChars: number;
  // Map iteration order is insertion order: re-inserting on a hit makes the first key the
  // least recently used one.
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private hits = 0;
  private misses = 0;

  constructor(options: TextTokenCacheOptions) {
    this.maxChars = options.maxChars;
    this.maxEntryChars = Math.min(options.maxEntryChars, options.maxChars - ENTRY_OVERHEAD_CHARS);
  }

  /** The cached count, or `compute(text)` stored for next time. */
  count(text: string, tokenizer: TokenizerName, compute: (text: string) => number): number {
    if (text.length > this.maxEntryChars) return compute(text);
    const slot = SLOT[tokenizer];
    const entry = this.entries.get(text);
    if (entry) {
      // Re-inserted under the string it was stored with: the caller's copy (a fresh string of
      // each request) is then not kept alive, and the young generation does not copy it.
      this.entries.delete(text);
      this.entries.set(entry.key, entry);
      const counts = entry.counts;
      const known = counts[slot];
      if (known !== undefined) {
        this.hits++;
        return known;
      }
      this.misses++;
      return (counts[slot] = compute(text));
    }
    this.misses++;
    const fresh = new Array<number | undefined>(TOKENIZERS.length);
    const result = (fresh[slot] = compute(text));
    this.entries.set(text, { key: text, counts: fresh });
    this.chars += text.length + ENTRY_OVERHEAD_CHARS;
    this.evict();
    return result;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
    this.hits = 0;
    this.misses = 0;
  }

  stats(): TextTokenCacheStats {
    return { entries: this.entries.size, chars: this.chars, hits: this.hits, misses: this.misses };
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.chars <= this.maxChars) return;
      this.entries.delete(key);
      this.chars -= key.length + ENTRY_OVERHEAD_CHARS;
    }
  }
}
