import type { PieceCounter } from './piece-counter.js';

/**
 * Exact token count of a text as the sum of its lines' counts, each line's count memoised.
 *
 * Agents see the same lines again and again within one conversation: a file viewed after each
 * edit, a test run repeated, and above all the compressed version of every tool result, which
 * is its original minus some lines plus a marker. Counting such a text costs one lookup per
 * known line instead of a scan of every character.
 *
 * A text may be cut only where tiktoken's pre-tokenization ends a piece whatever follows, or
 * the pieces (and so the counts) of the two halves could differ from the whole's. Right after a
 * `\n` is such a place when the white space that follows (spaces and tabs) holds no further
 * line break and ends at an ASCII character that is not white space: every piece that can hold
 * a `\n` (a white-space run `\s*[\r\n]+`, or punctuation with its trailing `[\r\n]*`) then ends
 * right after it. o200k's punctuation piece also takes a `/` right after the line break
 * (`[\r\n/]*`), so a line starting with `/` is not cut off. Any other line is counted together
 * with the one before it, which is still exact.
 */
export interface LineCounterOptions {
  /** Characters of memoised lines held per generation. */
  maxChars: number;
  /** Lines shorter than this are counted directly: a lookup would cost as much. */
  minLineChars: number;
  /** Longer lines are counted without being held. */
  maxLineChars: number;
}

const LINE_FEED = 10;
const SLASH = 47;

/** Start of the next line that can be counted on its own, after `from`; -1 if none. */
export function nextCut(text: string, from: number): number {
  const length = text.length;
  for (let newline = text.indexOf('\n', from); newline >= 0; newline = text.indexOf('\n', newline + 1)) {
    let q = newline + 1;
    while (q < length) {
      const c = text.charCodeAt(q);
      if (c !== 32 && c !== 9) break;
      q++;
    }
    if (q >= length) return -1;
    const c = text.charCodeAt(q);
    // \n \v \f \r (9–13 without the tab) and non-ASCII characters (which may be white space)
    // could extend the white-space piece; a slash could extend o200k's punctuation piece.
    if ((c >= LINE_FEED && c <= 13) || c >= 128 || (c === SLASH && q === newline + 1)) continue;
    return newline + 1;
  }
  return -1;
}

export class LineCounter {
  private young = new Map<string, number>();
  private old = new Map<string, number>();
  private youngChars = 0;

  constructor(
    private readonly pieces: PieceCounter,
    private readonly options: LineCounterOptions,
  ) {}

  count(text: string): number {
    let total = 0;
    for (let start = 0; ;) {
      const cut = nextCut(text, start);
      const end = cut < 0 ? text.length : cut;
      // A text of one line is the text cache's to hold (count-text.ts, behind its doorkeeper);
      // holding it here too would keep each one-off prompt twice.
      if (start === 0 && cut < 0) return this.pieces.count(text);
      total += this.lineCount(text.slice(start, end));
      if (cut < 0) return total;
      start = cut;
    }
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.youngChars = 0;
  }

  private lineCount(line: string): number {
    if (line.length < this.options.minLineChars || line.length > this.options.maxLineChars)
      return this.pieces.count(line);
    const young = this.young.get(line);
    if (young !== undefined) return young;
    const count = this.old.get(line) ?? this.pieces.count(line);
    if (this.youngChars + line.length > this.options.maxChars) {
      this.old = this.young;
      this.young = new Map();
      this.youngChars = 0;
    }
    this.young.set(line, count);
    this.youngChars += line.length;
    return count;
  }
}
