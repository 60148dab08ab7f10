import type { Doorkeeper } from './doorkeeper.js';
import { TOKENIZERS, type TokenizerName } from './tokenizer-names.js';

/**
 * Exact memo of text → token count, one slot per tokenizer, bounded by the characters it
 * holds; what was used least recently goes first (by generations, see the class).
 *
 * Agents re-send the whole conversation on every turn, so nearly every message of a request was
 * counted before; a lookup costs one hash and one compare of the string, far less than a BPE
 * pass. Keys are the full text, never a hash of it, so a hit is exact by construction.
 *
 * The bound counts UTF-16 code units of the keys plus a fixed charge per entry (for the Map
 * entry and its slot array), so many tiny strings cannot grow it past the budget either.
 * V8 stores a string in one or two bytes per code unit, so `maxChars` of 32 Mi keeps the held
 * text under 64 MiB. Texts longer than `maxEntryChars` (at most half the budget) are not
 * stored: one outsize paste must not flush every other conversation's messages.
 */
export interface TextTokenCacheOptions {
  maxChars: number;
  maxEntryChars: number;
  /** When given, a text is stored on its second sight only (doorkeeper.ts). */
  doorkeeper?: Doorkeeper;
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
  private readonly doorkeeper: Doorkeeper | undefined;
  // Two generations instead of a strict LRU order: a hit in the young map costs one lookup (a
  // strict order re-inserted the text on every hit: two more lookups, each comparing the whole
  // text again). A hit in the old map moves the entry to the young one; when the young map
  // holds half the budget it becomes the old one and the old one is dropped, so what was used
  // since the last flip always survives the next one. Entries keep the string they were stored
  // with: each request's fresh copy of a text is not kept alive.
  private young = new Map<string, Entry>();
  private old = new Map<string, Entry>();
  private youngChars = 0;
  private oldChars = 0;
  private hits = 0;
  private misses = 0;

  constructor(options: TextTokenCacheOptions) {
    this.maxChars = options.maxChars;
    this.doorkeeper = options.doorkeeper;
    this.maxEntryChars = Math.min(options.maxEntryChars, Math.floor(options.maxChars / 2) - ENTRY_OVERHEAD_CHARS);
  }

  /** The cached count, or `compute(text, tokenizer)` stored for next time. */
  count(text: string, tokenizer: TokenizerName, compute: (text: string, tokenizer: TokenizerName) => number): number {
    if (text.length > this.maxEntryChars) return compute(text, tokenizer);
    const slot = SLOT[tokenizer];
    let entry = this.young.get(text);
    if (entry === undefined) {
      entry = this.old.get(text);
      if (entry !== undefined) {
        this.old.delete(entry.key);
        this.oldChars -= weight(entry.key);
        this.add(entry);
      }
    }
    if (entry) {
      const counts = entry.counts;
      const known = counts[slot];
      if (known !== undefined) {
        this.hits++;
        return known;
      }
      this.misses++;
      return (counts[slot] = compute(text, tokenizer));
    }
    this.misses++;
    if (this.doorkeeper && !this.doorkeeper.seenBefore(text)) return compute(text, tokenizer);
    const fresh = new Array<number | undefined>(TOKENIZERS.length);
    const result = (fresh[slot] = compute(text, tokenizer));
    this.add({ key: text, counts: fresh });
    return result;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.doorkeeper?.clear();
    this.youngChars = this.oldChars = 0;
    this.hits = 0;
    this.misses = 0;
  }

  stats(): TextTokenCacheStats {
    return {
      entries: this.young.size + this.old.size,
      chars: this.youngChars + this.oldChars,
      hits: this.hits,
      misses: this.misses,
    };
  }

  /** Into the young map; a full one becomes the old map first (each holds ≤ half the budget). */
  private add(entry: Entry): void {
    const cost = weight(entry.key);
    if (this.youngChars + cost > this.maxChars / 2) {
      this.old = this.young;
      this.oldChars = this.youngChars;
      this.young = new Map();
      this.youngChars = 0;
    }
    this.young.set(entry.key, entry);
    this.youngChars += cost;
  }
}

const weight = (text: string) => text.length + ENTRY_OVERHEAD_CHARS;
