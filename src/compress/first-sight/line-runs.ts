// Near-repeats: a file viewed again after an edit, an overlapping range of the same file, a
// test run again with the same traceback, a file the model wrote itself and then printed. Runs
// of lines that the model has already seen, in an earlier output or in what it wrote into a
// call's arguments (a heredoc, an edit's new text), become one reference to them, which
// reconstructs the output exactly (line-references.ts).
//
// Numbered file views renumber every line after an edit; a run there matches by the text after
// the number, with one constant shift of the numbers, and the reference names both ranges. A
// numbered view of lines the model saw unnumbered (its own heredoc, `cat` before `nl -ba`)
// matches by the text after the number too. Error and failure lines, and of a stack trace its
// header, innermost frame and exception, always stay in the output itself (`pinnedMask`); only
// literal lines of earlier outputs are referenced (never a line hidden behind another reference).
import { pinnedMask } from '../filters/error-lines.js';
import {
  describeOwnRun,
  describeRun,
  PATCH_START,
  type IndexedOutput,
  type Run,
  type RunMode,
} from './line-references.js';
import { lineKey, renumber, type LineKey } from './numbered-lines.js';

/** What a reference has to save to be worth it (the marker itself is ~20 tokens). */
const MIN_LINES = 3;
const MIN_CHARS = 120;
/** Lines too common to start a run from ("", "}", "else:"): they only extend one. */
const MIN_ANCHOR_CHARS = 12;
/** Earlier positions tried per anchor line, newest first. */
const MAX_CANDIDATES = 12;

const plainKey = (line: string): LineKey => ({ key: line, number: undefined, prefix: 0 });

/** Every literal line of the outputs (and arguments) seen so far, by key: where it occurs. */
export class LineIndex {
  readonly outputs: IndexedOutput[] = [];
  /** Lines indexed so far, outputs and arguments: what the index costs beyond their text. */
  lineCount = 0;
  private readonly postings = new Map<string, { output: number; line: number }[]>();

  /** An output; `literal` tells marker lines (never referenced) from the output's own lines. */
  add(callId: string, text: string, literal: (line: string) => boolean): void {
    const lines = text.split('\n');
    this.insert({ callId, arg: undefined, lines, keys: lines.map(lineKey), literal: lines.map(literal) });
  }

  /**
   * A call's argument as the model wrote it: every line literal, none read as numbered. A patch's
   * lines are indexed without their first character: a file shows what a hunk added, not its `+`.
   */
  addArgument(callId: string, arg: string, text: string): void {
    const patch = PATCH_START.test(text);
    const lines = patch ? text.split('\n').map((line) => line.slice(1)) : text.split('\n');
    this.insert({
      callId,
      arg,
      lines,
      keys: lines.map(plainKey),
      literal: lines.map(() => true),
      ...(patch ? { patch } : {}),
    });
  }

  private insert(entry: IndexedOutput): void {
    const at = this.outputs.push(entry) - 1;
    this.lineCount += entry.lines.length;
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

/** Whether new line `k` continues a run of `mode` that started at `first` (n lines before). */
function continues(
  mode: RunMode,
  line: string,
  k: LineKey,
  first: LineKey,
  firstLine: string,
  n: number,
  oldLine: string,
  o: LineKey,
  oldFirst: LineKey,
): boolean {
  if (mode === 'plain') return line === oldLine;
  // Consecutive numbers (on both sides for numbered runs): a range of numbers then names exactly
  // these lines.
  if (k.number !== first.number! + n) return false;
  if (mode === 'numbered')
    // Renumbered, the old line must come out as this one, padding included: where the width of
    // the numbers changes on one side only ("10:" shown as "9:"), the run stops.
    return o.number === oldFirst.number! + n && k.key === o.key && renumber(oldLine, k.number) === line;
  if (o.number !== undefined || line.slice(k.prefix) !== oldLine) return false;
  // Written back from the first line's prefix: the padding must come out the same.
  return line.slice(0, k.prefix) === renumber(firstLine.slice(0, first.prefix), k.number);
}

/**
 * The run of lines from `from` matching the lines of `old` from `at` in `mode`; undefined when
 * shorter than a reference is worth.
 */
function extend(
  lines: string[],
  keys: LineKey[],
  pinned: boolean[],
  from: number,
  old: IndexedOutput,
  at: number,
  mode: RunMode,
): Run | undefined {
  const first = keys[from]!;
  const oldFirst = old.keys[at]!;
  let n = 0;
  let chars = 0;
  while (from + n < lines.length && at + n < old.lines.length) {
    if (pinned[from + n] || !old.literal[at + n]) break;
    const line = lines[from + n]!;
    if (
      !continues(mode, line, keys[from + n]!, first, lines[from]!, n, old.lines[at + n]!, old.keys[at + n]!, oldFirst)
    )
      break;
    chars += line.length + 1;
    n++;
  }
  if (n < MIN_LINES || chars < MIN_CHARS) return undefined;
  const shift = mode === 'numbered' ? first.number! - oldFirst.number! : 0;
  return { at: from, length: n, output: old, line: at, mode, shift };
}

/** The longer of two candidate runs; the first found on ties. */
const longer = (best: Run | undefined, run: Run | undefined) =>
  run && (!best || run.length > best.length) ? run : best;

/**
 * `text` with every long enough run of lines already seen in `index` replaced by a reference;
 * undefined when nothing was worth replacing. Greedy from the top, longest run first, newest
 * source on ties: deterministic for the same outputs in the same order.
 */
export function referenceSeenLines(text: string, index: LineIndex): string | undefined {
  const lines = text.split('\n');
  if (lines.length < MIN_LINES * 2 && index.outputs.length === 0) return undefined;
  const keys = lines.map(lineKey);
  const pinned = pinnedMask(lines, text);
  // The output itself, as written so far: a run may also repeat lines shown above in it (an
  // edit preview next to the original it replaces).
  const self: IndexedOutput = { callId: '', arg: undefined, lines: [], keys: [], literal: [] };
  const selfPostings = new Map<string, number[]>();
  const emit = (line: string, key: LineKey | undefined) => {
    const at = self.lines.push(line) - 1;
    self.keys.push(key ?? plainKey(line));
    self.literal.push(key !== undefined);
    if (key === undefined || key.key.trim().length < MIN_ANCHOR_CHARS) return;
    const list = selfPostings.get(key.key);
    if (list) list.push(at);
    else selfPostings.set(key.key, [at]);
  };
  let replaced = false;
  for (let i = 0; i < lines.length;) {
    let best: Run | undefined;
    const k = keys[i]!;
    if (!pinned[i] && k.key.trim().length >= MIN_ANCHOR_CHARS) {
      const mode: RunMode = k.number === undefined ? 'plain' : 'numbered';
      const found = index.candidates(k.key);
      for (let c = found.length - 1; c >= 0; c--)
        best = longer(best, extend(lines, keys, pinned, i, index.outputs[found[c]!.output]!, found[c]!.line, mode));
      const mine = selfPostings.get(k.key) ?? [];
      for (let c = mine.length - 1; c >= 0 && c >= mine.length - MAX_CANDIDATES; c--)
        best = longer(best, extend(lines, keys, pinned, i, self, mine[c]!, mode));
    }
    // A numbered line whose text the model saw unnumbered.
    const rest = k.number === undefined || pinned[i] ? '' : lines[i]!.slice(k.prefix);
    if (rest.length >= MIN_ANCHOR_CHARS && rest.trim().length >= MIN_ANCHOR_CHARS) {
      const found = index.candidates(rest);
      for (let c = found.length - 1; c >= 0; c--) {
        const old = index.outputs[found[c]!.output]!;
        best = longer(best, extend(lines, keys, pinned, i, old, found[c]!.line, 'from-plain'));
      }
    }
    const run = best;
    if (run) {
      emit(run.output === self ? describeOwnRun(run, lines) : describeRun(run, lines), undefined);
      replaced = true;
      i += run.length;
    } else {
      emit(lines[i]!, k);
      i++;
    }
  }
  return replaced ? self.lines.join('\n') : undefined;
}
