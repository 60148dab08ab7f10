import { codePointPieceEnd } from './code-point-scanner.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * tiktoken's pre-tokenization, in JavaScript: the regex split that comes before byte-pair
 * encoding. BPE never merges across two pieces, so a text's token count is the sum of its
 * pieces' counts, and the same pieces (words, indentation, punctuation runs) recur endlessly
 * in code and tool output; counting them once each is what makes counting fast.
 *
 * The patterns are tiktoken's own (`pat_str` of each encoding), rewritten for JavaScript:
 * - `\s` / `\S` become `\p{White_Space}` / `\P{White_Space}`: tiktoken's Rust regex uses the
 *   Unicode property, while JavaScript's `\s` also matches U+FEFF and misses U+0085;
 * - the inline-flag group `(?i:'s|'t|'re|'ve|'m|'ll|'d)` (not available in Node 20) is spelled
 *   out with Unicode simple case folding, which also folds `ſ` (U+017F) to `s`.
 *
 * Most text is ASCII, and a regex with Unicode property classes is slow there, so a scanner
 * written against the same alternation (tried in order, each branch greedy with the same
 * backtracking) handles every position whose decision only looks at ASCII characters. When it
 * would have to look at a non-ASCII character, it hands that one position to the regex: a
 * match depends only on the text from its start onwards, so both can take turns.
 */

const WS = '\\p{White_Space}';
const NOT_WS = '\\P{White_Space}';
const CONTRACTION = "'(?:[sS\\u017F]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])";

const PATTERNS: Record<TokenizerName, string> = {
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  cl100k_base: [
    CONTRACTION,
    '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+',
    '\\p{N}{1,3}',
    ` ?[^${WS}\\p{L}\\p{N}]+[\\r\\n]*`,
    `[${WS}]*[\\r\\n]+`,
    `[${WS}]+(?!${NOT_WS})`,
    `[${WS}]+`,
  ].join('|'),
  // [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|…)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|…)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
  o200k_base: [
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:${CONTRACTION})?`,
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:${CONTRACTION})?`,
    '\\p{N}{1,3}',
    ` ?[^${WS}\\p{L}\\p{N}]+[\\r\\n/]*`,
    `[${WS}]*[\\r\\n]+`,
    `[${WS}]+(?!${NOT_WS})`,
    `[${WS}]+`,
  ].join('|'),
};

/** The whole pattern as a sticky regex: the reference, and the scanner's fallback. */
export function pieceRegex(name: TokenizerName): RegExp {
  return new RegExp(PATTERNS[name], 'uy');
}

// Character classes of the scanner, as bits so that a set of classes is one mask. Characters
// ≥ 0x80 have no class: the scanner never decides on them.
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const NEWLINE = 8; // \r \n
const SPACE = 16; // U+0020, the only character ` ?` accepts
const BLANK = 32; // \t \v \f: white space, but neither a newline nor U+0020
const PUNCT = 64; // every other ASCII character, controls included: [^\s\p{L}\p{N}]
const APOSTROPHE = 128 | PUNCT; // may open a contraction
const SLASH_BIT = 256; // o200k's `[\r\n/]*` after a punctuation run
const SLASH = SLASH_BIT | PUNCT;

const LETTER = UPPER | LOWER;
const WHITE = NEWLINE | SPACE | BLANK;
/** `[^\r\n\p{L}\p{N}]`, the optional character before a word. */
const PREFIX = SPACE | BLANK | PUNCT;

const CLASS = new Uint16Array(128).fill(PUNCT);
for (let c = 65; c <= 90; c++) CLASS[c] = UPPER;
for (let c = 97; c <= 122; c++) CLASS[c] = LOWER;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
CLASS[10] = NEWLINE;
CLASS[13] = NEWLINE;
CLASS[32] = SPACE;
CLASS[9] = BLANK;
CLASS[11] = BLANK;
CLASS[12] = BLANK;
CLASS[39] = APOSTROPHE;
CLASS[47] = SLASH;

/** Returned by a scanner that would have to classify a non-ASCII character. */
const UNDECIDED = -1;
/** Class of the character at `i`: 0 past the end, UNDECIDED for non-ASCII. */
function classAt(text: string, i: number): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  return c < 128 ? CLASS[c]! : UNDECIDED;
}

/** End of the run of characters in `mask` starting at `i`, or UNDECIDED. */
function runEnd(text: string, i: number, mask: number): number {
  const length = text.length;
  for (; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return UNDECIDED;
    if ((CLASS[c]! & mask) === 0) return i;
  }
  return i;
}

/** Length of `'s`, `'re`… at `i` (an apostrophe), 0 if none, UNDECIDED if it cannot tell. */
function contractionAt(text: string, i: number): number {
  const c1 = text.charCodeAt(i + 1);
  if (c1 >= 128) return UNDECIDED; // ſ folds to s
  const a = c1 | 0x20; // ASCII letters to lower case (NaN past the end gives 0x20)
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return 2; // s t m d
  if (a !== 0x72 && a !== 0x76 && a !== 0x6c) return 0;
  const c2 = text.charCodeAt(i + 2);
  if (c2 >= 128) return 0; // no other character folds to e or l
  const b = c2 | 0x20;
  return (a === 0x6c ? b === 0x6c : b === 0x65) ? 3 : 0; // ll, re, ve
}

/** Branches 5–7, shared by both encodings: `\s*[\r\n]+|\s+(?!\S)|\s+` at a white-space character. */
function whitespacePiece(text: string, i: number): number {
  const length = text.length;
  let lastNewline = -1;
  let j = i;
  for (; j < length; j++) {
    const c = text.charCodeAt(j);
    if (c >= 128) return UNDECIDED; // U+00A0, U+2028… are white space too
    const k = CLASS[c]!;
    if ((k & WHITE) === 0) break;
    if (k === NEWLINE) lastNewline = j;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (j >= length) return j;
  return j - i >= 2 ? j - 1 : i + 1;
}

/** Branch ` ?[^\s\p{L}\p{N}]+[tail]*` from `start` (the first punctuation character). */
function punctuationPiece(text: string, start: number, tail: number): number {
  const end = runEnd(text, start, PUNCT);
  return end === UNDECIDED ? UNDECIDED : runEnd(text, end, tail);
}

/** `\p{N}{1,3}` at a digit. */
function digitsPiece(text: string, i: number): number {
  const limit = Math.min(i + 3, text.length);
  let j = i + 1;
  for (; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c >= 128) return UNDECIDED;
    if (CLASS[c] !== DIGIT) break;
  }
  return j;
}

/** End of the piece starting at `i` for cl100k_base, or UNDECIDED. */
function cl100kPieceEnd(text: string, i: number): number {
  const k0 = classAt(text, i);
  if (k0 === UNDECIDED) return UNDECIDED;
  if (k0 === APOSTROPHE) {
    const n = contractionAt(text, i);
    if (n !== 0) return n === UNDECIDED ? UNDECIDED : i + n;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (k0 & LETTER) return runEnd(text, i, LETTER);
  if (k0 === DIGIT) return digitsPiece(text, i);
  const k1 = classAt(text, i + 1);
  if (k0 & PREFIX) {
    if (k1 === UNDECIDED) return UNDECIDED;
    if (k1 & LETTER) return runEnd(text, i + 1, LETTER);
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
  if (k0 === SPACE && k1 & PUNCT) return punctuationPiece(text, i + 1, NEWLINE);
  if (k0 & PUNCT) return punctuationPiece(text, i, NEWLINE);
  return whitespacePiece(text, i);
}

/** Optional `'s`… after a word piece ending at `end` (o200k), or UNDECIDED. */
function withContraction(text: string, end: number): number {
  if (text.charCodeAt(end) !== 39) return end;
  const n = contractionAt(text, end);
  return n === UNDECIDED ? UNDECIDED : end + n;
}

/**
 * o200k's two word branches from `start` (after an optional prefix character):
 * `[Upper-ish]*[lower-ish]+'s?` then `[Upper-ish]+[lower-ish]*'s?`. In ASCII the two sets are
 * disjoint (A–Z, a–z), so the backtracking of the first `*` never finds another split, and
 * together they match an upper-case run then a lower-case run, at least one of them non-empty.
 */
function o200kWord(text: string, start: number): number {
  const upperEnd = runEnd(text, start, UPPER);
  if (upperEnd === UNDECIDED) return UNDECIDED;
  const lowerEnd = runEnd(text, upperEnd, LOWER);
  if (lowerEnd === UNDECIDED) return UNDECIDED;
  return withContraction(text, lowerEnd);
}

/** End of the piece starting at `i` for o200k_base, or UNDECIDED. */
function o200kPieceEnd(text: string, i: number): number {
  const k0 = classAt(text, i);
  if (k0 === UNDECIDED) return UNDECIDED;
  if (k0 & LETTER) return o200kWord(text, i);
  if (k0 === DIGIT) return digitsPiece(text, i);
  const k1 = classAt(text, i + 1);
  if (k0 & PREFIX) {
    // The prefix character is tried first (greedy `?`); without it the word would have to
    // start at a non-letter, which cannot match.
    if (k1 === UNDECIDED) return UNDECIDED; // a mark or a non-ASCII letter may follow
    if (k1 & LETTER) return o200kWord(text, i + 1);
  }
  if (k0 === SPACE && k1 & PUNCT) return punctuationPiece(text, i + 1, NEWLINE | SLASH_BIT);
  if (k0 & PUNCT) return punctuationPiece(text, i, NEWLINE | SLASH_BIT);
  return whitespacePiece(text, i);
}

const REGEXES: Record<TokenizerName, RegExp> = {
  cl100k_base: pieceRegex('cl100k_base'),
  o200k_base: pieceRegex('o200k_base'),
};

/**
 * The regex's piece at `i`, for a position the scanner could not decide. A piece of millions of
 * non-ASCII letters or marks exhausts the regex engine's backtracking stack (RangeError); the
 * same branches written over code points (code-point-scanner.ts) decide that one instead.
 */
function regexPieceEnd(regex: RegExp, text: string, i: number, name: TokenizerName): number {
  regex.lastIndex = i;
  try {
    // Every character is matched by some branch (white space by the last one, anything else by
    // the punctuation or word branches); the fallback only guards the caller's loop.
    return regex.test(text) ? regex.lastIndex : i + 1;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return codePointPieceEnd(text, i, name);
  }
}

// One function per encoding, so that a counter calls the same one for every piece (a lookup
// by name per piece and a call site shared by both scanners cost more than the scan).
const PIECE_ENDS: Record<TokenizerName, (text: string, i: number) => number> = {
  cl100k_base: (text, i) => {
    const end = cl100kPieceEnd(text, i);
    return end !== UNDECIDED ? end : regexPieceEnd(REGEXES.cl100k_base, text, i, 'cl100k_base');
  },
  o200k_base: (text, i) => {
    const end = o200kPieceEnd(text, i);
    return end !== UNDECIDED ? end : regexPieceEnd(REGEXES.o200k_base, text, i, 'o200k_base');
  },
};

/** `(text, i) =>` the end of the piece of `text` that starts at `i` (< text.length), for `name`. */
export function pieceEndFor(name: TokenizerName): (text: string, i: number) => number {
  return PIECE_ENDS[name];
}

/** End of the pre-tokenization piece of `text` that starts at `i` (< text.length). */
export function pieceEnd(text: string, i: number, name: TokenizerName): number {
  return PIECE_ENDS[name](text, i);
}

/** The pieces of `text`, in order (tests compare them with the regex's). */
export function splitPieces(text: string, name: TokenizerName): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length;) {
    const end = pieceEnd(text, i, name);
    pieces.push(text.slice(i, end));
    i = end;
  }
  return pieces;
}
