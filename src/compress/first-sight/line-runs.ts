// Near-repeats: a file viewed again after an edit, an overlapping range of the same file, a
// test run again with one line changed. Runs of lines that the model has already seen in an
// earlier output become one reference to them, which reconstructs the output exactly:
//
//   [… 40 lines as in the output of tool call X (its lines 12-51) …]
//   [… lines numbered 45-98 as numbered 43-96 in the output of tool call X …]
//
// Numbered file views (`nl -ba`, `cat -n`, SWE-agent's `12:`, Claude Code's `12→`) renumber
// every line after an edit; a run there matches by the text after the number, with one constant
// shift of the numbers, and the reference names both ranges. Error, failure and traceback lines
// always stay in the output itself, and only literal lines of earlier outputs are referenced
// (never a line hidden behind another reference).
import { errorMask } from '../filters/error-lines.js';

/** One line split into its number prefix (when it has one) and the rest. */
interface LineKey {
  /** What has to be equal: the whole line, or style + text after the number. */
  key: string;
  number: number | undefined;
}

// Number prefixes whose shift is exact to describe: `   583\t` (nl -ba, cat -n), `583:`
// (SWE-agent, grep -n), `   12→` (Claude Code), `00012| ` (OpenCode), `   12|` (Cursor).
const NUMBERED = /^( *)(\d{1,7})(\t|:|→|\| ?)/;

function lineKey(line: string): LineKey {
  const m = NUMBERED.exec(line);
  if (!m) return { key: line, number: undefined };
  // The padding before the number changes with its width; the separator style must match.
  return { key: `\u0000${m[3]}\u0000${line.slice(m[0].length)}`, number: Number(m[2]) };
}

/** What a reference has to save to be worth it (the marker itself is ~20 tokens). */
const MIN_LINES = 3;
const MIN_CHARS = 120;
/** Lines too common to start a run from ("", "}", "else:"): they only extend one. */
const MIN_ANCHOR_CHARS = 12;
/** Earlier positions tried per anchor line, newest first. */
const MAX_CANDIDATES = 12;

export interface IndexedOutput {
  callId: string;
  lines: string[];
  keys: LineKey[];
  /** False for marker lines: they stand for other lines and are never referenced. */
  literal: boolean[];
}

/** Every literal line of the outputs seen so far, by key: where it occurs. */
export class LineIndex {
  readonly outputs: IndexedOutput[] = [];
  private readonly postings = new Map<string, { output: number; line: number }[]>();

  add(callId: string, text: string, literal: (line: string) => boolean): void {
    const lines = text.split('\n');
    const entry: IndexedOutput = { callId, lines, keys: lines.map(lineKey), literal: lines.map(literal) };
    const at = this.outputs.push(entry) - 1;
    entry.keys.forEach((k, i) => {
      if (!entry.literal[i] || k.key.trim().length < MIN_ANCHOR_CHARS) return;
      const list = this.postings.get(k.key);
      if (list) {
        list.push({ output: at, line: i });
        if (list.length > MAX_CANDIDATES) list.shift();
      } else this.postings.set(k.key, [{ output: at, line: i }]);
    });
  }

  candidates(key: string): readonly { output: number; line: number }[] {
    return this.postings.get(key) ?? [];
  }
}

export interface Run {
  /** First line of the run in the new output, and its length. */
  at: number;
  length: number;
  output: IndexedOutput;
  line: number;
  /** New number minus old number, for numbered lines; undefined when unnumbered. */
  shift: number | undefined;
}

/**
 * The run of lines from `from` equal to the lines of `old` from `at`. A run that starts on a
 * numbered line is a numbered run: every line numbered in the same style, the same text after
 * the number, and one constant shift of the numbers. Any other run is of identical lines.
 */
function extend(
  lines: string[],
  keys: LineKey[],
  errors: boolean[],
  from: number,
  old: IndexedOutput,
  at: number,
): Run | undefined {
  const first = keys[from]!;
  const shift = first.number === undefined ? undefined : first.number - old.keys[at]!.number!;
  let n = 0;
  let chars = 0;
  while (from + n < lines.length && at + n < old.lines.length) {
    if (errors[from + n] || !old.literal[at + n]) break;
    if (shift === undefined) {
      if (lines[from + n] !== old.lines[at + n]) break;
    } else {
      const k = keys[from + n]!;
      const o = old.keys[at + n]!;
      // Consecutive numbers on both sides: a range of numbers then names exactly these lines.
      if (k.number !== first.number! + n || o.number !== old.keys[at]!.number! + n || k.key !== o.key) break;
    }
    chars += old.lines[at + n]!.length + 1;
    n++;
  }
  if (n < MIN_LINES || chars < MIN_CHARS) return undefined;
  return { at: from, length: n, output: old, line: at, shift };
}

export function describeRun(run: Run, lines: string[]): string {
  const id = run.output.callId;
  if (run.shift === undefined) {
    return `[… ${run.length} lines as in the output of tool call ${id} (its lines ${run.line + 1}-${run.line + run.length}) …]`;
  }
  const newFirst = lineKey(lines[run.at]!).number!;
  const newLast = newFirst + run.length - 1;
  const oldFirst = newFirst - run.shift;
  // Numbers name the lines only if the target shows them once (an edit preview shows a range twice).
  const ambiguous = run.output.keys.filter((k) => k.number === oldFirst).length > 1;
  if (ambiguous)
    return `[… lines numbered ${newFirst}-${newLast} as its lines ${run.line + 1}-${run.line + run.length} in the output of tool call ${id} …]`;
  if (run.shift === 0) return `[… lines numbered ${newFirst}-${newLast} as in the output of tool call ${id} …]`;
  return `[… lines numbered ${newFirst}-${newLast} as numbered ${oldFirst}-${oldFirst + run.length - 1} in the output of tool call ${id} …]`;
}

/**
 * `text` with every long enough run of lines already seen in `index` replaced by a reference;
 * undefined when nothing was worth replacing. Greedy from the top, longest run first, newest
 * output on ties: deterministic for the same outputs in the same order.
 */
export function referenceSeenLines(text: string, index: LineIndex): string | undefined {
  const lines = text.split('\n');
  if (lines.length < MIN_LINES * 2 && index.outputs.length === 0) return undefined;
  const keys = lines.map(lineKey);
  const errors = errorMask(lines);
  // The output itself, as written so far: a run may also repeat lines shown above in it (an
  // edit preview next to the original it replaces).
  const self: IndexedOutput = { callId: '', lines: [], keys: [], literal: [] };
  const selfPostings = new Map<string, number[]>();
  const emit = (line: string, key: LineKey | undefined) => {
    const at = self.lines.push(line) - 1;
    self.keys.push(key ?? { key: line, number: undefined });
    self.literal.push(key !== undefined);
    if (key === undefined || key.key.trim().length < MIN_ANCHOR_CHARS) return;
    const list = selfPostings.get(key.key);
    if (list) list.push(at);
    else selfPostings.set(key.key, [at]);
  };
  let replaced = false;
  for (let i = 0; i < lines.length;) {
    let best: Run | undefined;
    if (!errors[i] && keys[i]!.key.trim().length >= MIN_ANCHOR_CHARS) {
      const found = index.candidates(keys[i]!.key);
      for (let c = found.length - 1; c >= 0; c--) {
        const run = extend(lines, keys, errors, i, index.outputs[found[c]!.output]!, found[c]!.line);
        if (run && (!best || run.length > best.length)) best = run;
      }
      const mine = selfPostings.get(keys[i]!.key) ?? [];
      for (let c = mine.length - 1; c >= 0 && c >= mine.length - MAX_CANDIDATES; c--) {
        const run = extend(lines, keys, errors, i, self, mine[c]!);
        if (run && (!best || run.length > best.length)) best = run;
      }
    }
    if (best) {
      emit(best.output === self ? describeOwnRun(best, lines) : describeRun(best, lines), undefined);
      replaced = true;
      i += best.length;
    } else {
      emit(lines[i]!, keys[i]!);
      i++;
    }
  }
  return replaced ? self.lines.join('\n') : undefined;
}

/** A run of lines shown above in the same output, by their positions there. */
function describeOwnRun(run: Run, lines: string[]): string {
  const span = `${run.line + 1}-${run.line + run.length}`;
  if (run.shift === undefined) return `[… ${run.length} lines as its own lines ${span} above …]`;
  const newFirst = lineKey(lines[run.at]!).number!;
  return `[… lines numbered ${newFirst}-${newFirst + run.length - 1} as its own lines ${span} above …]`;
}

const PLAIN_REF = /^\[… (\d+) lines as in the output of tool call (\S+) \(its lines (\d+)-(\d+)\) …\]$/;
const OWN_REF = /^\[… (?:\d+ lines|lines numbered (\d+)-(\d+)) as its own lines (\d+)-(\d+) above …\]$/;
const NUMBERED_REF =
  /^\[… lines numbered (\d+)-(\d+) as (?:numbered (\d+)-(\d+) |its lines (\d+)-(\d+) )?in the output of tool call (\S+) …\]$/;

/** The first and last line (0-based) of `lines` numbered `first`..`last`, in order. */
function numberedSpan(lines: string[], first: number, last: number): [number, number] | undefined {
  for (let i = 0; i < lines.length; i++) {
    if (lineKey(lines[i]!).number !== first) continue;
    const end = i + (last - first);
    if (end < lines.length && lineKey(lines[end]!).number === last) return [i, end];
  }
  return undefined;
}

/** Renumbers a numbered line, keeping its right-aligned padding width. */
function renumber(line: string, to: number): string {
  const m = NUMBERED.exec(line)!;
  const width = m[1]!.length + m[2]!.length;
  const digits = m[2]!.length > 1 && m[2]![0] === '0' ? String(to).padStart(m[2]!.length, '0') : String(to);
  return `${digits.padStart(width)}${line.slice(m[0].length - m[3]!.length)}`;
}

/**
 * `text` with the references to the outputs `source` knows written out in full again (the lines
 * they stand for, renumbered where the reference says so). A history rewrite that masks an
 * output expands the references later outputs make to it, so nothing points into a placeholder.
 */
export function expandReferences(text: string, source: (callId: string) => string | undefined): string {
  if (!text.includes('[… ')) return text;
  let changed = false;
  const out: string[] = [];
  const own = text.split('\n');
  for (const line of own) {
    const mine = line.startsWith('[… ') ? OWN_REF.exec(line) : null;
    if (mine) {
      // Positions in this output's own text: literal lines written above this reference.
      const from = Number(mine[3]) - 1;
      for (let i = from; i < Number(mine[4]); i++) {
        const to = mine[1] === undefined ? undefined : Number(mine[1]) + (i - from);
        out.push(to === undefined || lineKey(own[i]!).number === to ? own[i]! : renumber(own[i]!, to));
      }
      changed = true;
      continue;
    }
    const plain = line.startsWith('[… ') ? PLAIN_REF.exec(line) : null;
    const numbered = plain || !line.startsWith('[… ') ? null : NUMBERED_REF.exec(line);
    const target = plain ? source(plain[2]!) : numbered ? source(numbered[7]!) : undefined;
    if (target === undefined) {
      out.push(line);
      continue;
    }
    const old = target.split('\n');
    if (plain) {
      out.push(...old.slice(Number(plain[3]) - 1, Number(plain[4])));
    } else {
      const first = Number(numbered![1]);
      const last = Number(numbered![2]);
      const span: [number, number] | undefined =
        numbered![5] !== undefined
          ? [Number(numbered![5]) - 1, Number(numbered![6]) - 1]
          : numberedSpan(
              old,
              numbered![3] === undefined ? first : Number(numbered![3]),
              numbered![3] === undefined ? last : Number(numbered![4]),
            );
      for (let i = span![0]; i <= span![1]; i++) {
        const to = first + (i - span![0]);
        out.push(lineKey(old[i]!).number === to ? old[i]! : renumber(old[i]!, to));
      }
    }
    changed = true;
  }
  return changed ? out.join('\n') : text;
}
