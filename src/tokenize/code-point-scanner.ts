import type { TokenizerName } from './tokenizer-names.js';

/**
 * tiktoken's pre-tokenization patterns (pre-tokenize.ts) written out as code over code points,
 * for the pieces V8's regex engine cannot match: a greedy loop over a class that holds astral
 * characters (`\p{L}`, `\p{M}`…) pushes one backtrack entry per character, and past ~4 million
 * characters (12 MB of one CJK letter, 8 MB of one combining mark) the engine throws
 * "Maximum call stack size exceeded" instead of matching. pre-tokenize.ts calls this only then.
 *
 * Each branch is tried in the pattern's order with the backtracking the engine would do; the
 * property tests in test/tokenize/ hold it to the regex on random text. Characters are
 * classified by the same Unicode properties through small regexes, once per code point.
 */

const LETTER = 1; // \p{L}
const NUMBER = 2; // \p{N}
const WHITE = 4; // \p{White_Space}
const NEWLINE = 8; // \r \n
const UPPERISH = 16; // o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const LOWERISH = 32; // o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const KNOWN = 64;

const probes: [RegExp, number][] = [
  [/^\p{L}$/u, LETTER],
  [/^\p{N}$/u, NUMBER],
  [/^\p{White_Space}$/u, WHITE],
  [/^[\r\n]$/u, NEWLINE],
  [/^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$/u, UPPERISH],
  [/^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$/u, LOWERISH],
];
/** Classes by code point, filled on first sight (allocated on first use: 1.1 MB). */
let classes: Uint8Array | undefined;

function classOf(cp: number): number {
  classes ??= new Uint8Array(0x110000);
  let bits = classes[cp]!;
  if (bits !== 0) return bits;
  bits = KNOWN;
  const char = String.fromCodePoint(cp);
  for (const [probe, bit] of probes) if (probe.test(char)) bits |= bit;
  classes[cp] = bits;
  return bits;
}

/** `[^\r\n\p{L}\p{N}]`: the optional character before a word. */
const isPrefix = (bits: number) => (bits & (NEWLINE | LETTER | NUMBER)) === 0;
/** `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls. */
const isPunct = (bits: number) => (bits & (WHITE | LETTER | NUMBER)) === 0;

const width = (cp: number) => (cp > 0xffff ? 2 : 1);

/** End of the run of code points whose class has a bit of `mask`, from `i`. */
function runEnd(text: string, i: number, mask: number): number {
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    if ((classOf(cp) & mask) === 0) break;
    i += width(cp);
  }
  return i;
}

function classAt(text: string, i: number): number {
  return i < text.length ? classOf(text.codePointAt(i)!) : 0;
}

const CONTRACTION = /'(?:[sS\u017F]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])/y;
/** Length of `'s`, `'re`… at `i`, 0 if none. */
function contractionAt(text: string, i: number): number {
  if (text.charCodeAt(i) !== 39) return 0;
  CONTRACTION.lastIndex = i;
  return CONTRACTION.test(text) ? CONTRACTION.lastIndex - i : 0;
}

/** `\p{N}{1,3}` at `i` (a number). */
function digitsEnd(text: string, i: number): number {
  for (let n = 0; n < 3 && i < text.length; n++) {
    const cp = text.codePointAt(i)!;
    if ((classOf(cp) & NUMBER) === 0) break;
    i += width(cp);
  }
  return i;
}

/** ` ?[^\s\p{L}\p{N}]+` then a run of `tail` characters, or -1. */
function punctuationEnd(text: string, i: number, tail: (code: number) => boolean): number {
  let start = i;
  if (text.charCodeAt(i) === 32 && isPunct(classAt(text, i + 1))) start = i + 1;
  else if (!isPunct(classAt(text, i))) return -1;
  let end = runEndBy(text, start, isPunct);
  while (end < text.length && tail(text.charCodeAt(end))) end++;
  return end;
}

function runEndBy(text: string, i: number, test: (bits: number) => boolean): number {
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    if (!test(classOf(cp))) break;
    i += width(cp);
  }
  return i;
}

/** `\s*[\r\n]+|\s+(?!\S)|\s+` at `i` (white space; every white-space character is in the BMP). */
function whitespaceEnd(text: string, i: number): number {
  let lastNewline = -1;
  let j = i;
  for (; j < text.length; j++) {
    const bits = classOf(text.charCodeAt(j));
    if ((bits & WHITE) === 0) break;
    if (bits & NEWLINE) lastNewline = j;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (j >= text.length) return j;
  return j - i >= 2 ? j - 1 : i + 1;
}

const isNewline = (code: number) => code === 10 || code === 13;
const isNewlineOrSlash = (code: number) => code === 10 || code === 13 || code === 47;

function cl100kEnd(text: string, i: number): number {
  const n = contractionAt(text, i);
  if (n > 0) return i + n;
  const cp = text.codePointAt(i)!;
  const bits = classOf(cp);
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (isPrefix(bits) && classAt(text, i + width(cp)) & LETTER) return runEnd(text, i + width(cp), LETTER);
  if (bits & LETTER) return runEnd(text, i, LETTER);
  if (bits & NUMBER) return digitsEnd(text, i);
  const punctuation = punctuationEnd(text, i, isNewline);
  if (punctuation >= 0) return punctuation;
  if (bits & WHITE) return whitespaceEnd(text, i);
  return i + width(cp);
}

/**
 * `[Upper-ish]*[lower-ish]+` from `s`, or -1. The star takes the whole upper-ish run first; if no
 * lower-ish character follows, it gives back characters until the one after it is lower-ish
 * (the classes share Lm, Lo and marks), and the plus then stops right after that character.
 */
function lowerWordEnd(text: string, s: number): number {
  const upperEnd = runEnd(text, s, UPPERISH);
  if (classAt(text, upperEnd) & LOWERISH) return runEnd(text, upperEnd, LOWERISH);
  let last = -1;
  for (let j = s; j < upperEnd;) {
    const cp = text.codePointAt(j)!;
    if (classOf(cp) & LOWERISH) last = j + width(cp);
    j += width(cp);
  }
  return last;
}

/** `[Upper-ish]+[lower-ish]*` from `s`, or -1. */
function upperWordEnd(text: string, s: number): number {
  if ((classAt(text, s) & UPPERISH) === 0) return -1;
  return runEnd(text, runEnd(text, s, UPPERISH), LOWERISH);
}

function o200kEnd(text: string, i: number): number {
  const cp = text.codePointAt(i)!;
  const bits = classOf(cp);
  // The optional prefix is tried first, then the word without it, for each word branch.
  const starts = isPrefix(bits) ? [i + width(cp), i] : [i];
  for (const word of [lowerWordEnd, upperWordEnd]) {
    for (const s of starts) {
      const end = word(text, s);
      if (end > s) return end + contractionAt(text, end);
    }
  }
  if (bits & NUMBER) return digitsEnd(text, i);
  const punctuation = punctuationEnd(text, i, isNewlineOrSlash);
  if (punctuation >= 0) return punctuation;
  if (bits & WHITE) return whitespaceEnd(text, i);
  return i + width(cp);
}

/** End of the piece of `text` that starts at `i` (< text.length), without the regex engine. */
export function codePointPieceEnd(text: string, i: number, name: TokenizerName): number {
  return name === 'cl100k_base' ? cl100kEnd(text, i) : o200kEnd(text, i);
}
