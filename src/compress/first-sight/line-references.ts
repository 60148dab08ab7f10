// What a reference to lines seen before looks like, and how it is written out again. Every
// reference names exactly the lines it stands for, so the output it sits in can be rebuilt byte
// for byte from the texts it points to:
//
//   [… 40 lines as in the output of tool call X (its lines 12-51) …]
//   [… lines numbered 45-98 as numbered 43-96 in the output of tool call X …]
//   [… 12 lines as in the command argument of tool call X, lines 2-13 …]
//   [… lines numbered 288-297 ("288:") as in the command argument of tool call X, lines 2-11 …]
//   [… 9 lines as in the input argument of tool call X, lines 4-12, each without its first character …]
//   [… 5 lines as its own lines 3-7 above …]
//
// The fifth points into a patch (Codex's apply_patch): a file shows the lines the model added
// without the `+` (or the context line's space) its hunk put before each.
// The third and fourth kind point into what the model itself wrote (a heredoc, an edit's new
// text) and a numbered view showing it: the quoted prefix is the first line's number prefix,
// the padding every line of the run keeps. A reference into an argument never needs writing
// out when outputs are masked: arguments are part of the assistant's message and never change.
import { lineKey, numbered, renumber, type LineKey } from './numbered-lines.js';

/** An earlier output, or a multi-line argument of a call, as the line index holds it. */
export interface IndexedOutput {
  callId: string;
  /** The argument's name (`command`, `edits[0].new_string`); undefined for the call's output. */
  arg: string | undefined;
  lines: string[];
  keys: LineKey[];
  /** False for marker lines: they stand for other lines and are never referenced. */
  literal: boolean[];
  /** An apply_patch patch: `lines` are its lines without their first character (`+`, `-`, space). */
  patch?: boolean;
}

/** What a reference into a patch adds after the lines it names. */
export const PATCH_LINES = ', each without its first character';
/** A patch as apply_patch takes it, alone or after the shell line that runs it. */
export const PATCH_START = /^(?:[^\n]*\n)?\*\*\* Begin Patch\n/;

/**
 * How the new lines match the old ones: `plain` equal lines; `numbered` the same text after
 * numbers in the same style, shifted by one constant; `from-plain` new lines numbered
 * consecutively whose text after the number is the old (unnumbered) line.
 */
export type RunMode = 'plain' | 'numbered' | 'from-plain';

export interface Run {
  /** First line of the run in the new output, and its length. */
  at: number;
  length: number;
  output: IndexedOutput;
  line: number;
  mode: RunMode;
  /** New number minus old number, for `numbered` runs. */
  shift: number;
}

export function describeRun(run: Run, lines: string[]): string {
  const id = run.output.callId;
  const span = `${run.line + 1}-${run.line + run.length}`;
  const where =
    run.output.arg === undefined
      ? `the output of tool call ${id} (its lines ${span})`
      : `the ${run.output.arg} argument of tool call ${id}, lines ${span}${run.output.patch ? PATCH_LINES : ''}`;
  if (run.mode === 'plain') return `[… ${run.length} lines as in ${where} …]`;
  const first = lineKey(lines[run.at]!);
  const newFirst = first.number!;
  const newLast = newFirst + run.length - 1;
  if (run.mode === 'from-plain') {
    const prefix = JSON.stringify(lines[run.at]!.slice(0, first.prefix));
    return `[… lines numbered ${newFirst}-${newLast} (${prefix}) as in ${where} …]`;
  }
  const oldFirst = newFirst - run.shift;
  // Numbers name the lines only if the target shows them once (an edit preview shows a range twice).
  const ambiguous = run.output.keys.filter((k) => k.number === oldFirst).length > 1;
  if (ambiguous)
    return `[… lines numbered ${newFirst}-${newLast} as its lines ${span} in the output of tool call ${id} …]`;
  if (run.shift === 0) return `[… lines numbered ${newFirst}-${newLast} as in the output of tool call ${id} …]`;
  return `[… lines numbered ${newFirst}-${newLast} as numbered ${oldFirst}-${oldFirst + run.length - 1} in the output of tool call ${id} …]`;
}

/** A run of lines shown above in the same output, by their positions there. */
export function describeOwnRun(run: Run, lines: string[]): string {
  const span = `${run.line + 1}-${run.line + run.length}`;
  if (run.mode === 'plain') return `[… ${run.length} lines as its own lines ${span} above …]`;
  const newFirst = lineKey(lines[run.at]!).number!;
  return `[… lines numbered ${newFirst}-${newFirst + run.length - 1} as its own lines ${span} above …]`;
}

const PLAIN_REF = /^\[… (\d+) lines as in the output of tool call (\S+) \(its lines (\d+)-(\d+)\) …\]$/;
const OWN_REF = /^\[… (?:\d+ lines|lines numbered (\d+)-(\d+)) as its own lines (\d+)-(\d+) above …\]$/;
const NUMBERED_REF =
  /^\[… lines numbered (\d+)-(\d+) as (?:numbered (\d+)-(\d+) |its lines (\d+)-(\d+) )?in the output of tool call (\S+) …\]$/;
// Runs into an argument, and numbered runs of unnumbered lines (output or argument).
const ARG_REF =
  /^\[… \d+ lines as in the (\S+) argument of tool call (\S+), lines (\d+)-(\d+)(, each without its first character)? …\]$/;
const FROM_PLAIN_REF =
  /^\[… lines numbered (\d+)-\d+ \(("(?:[^"\\]|\\.)*")\) as in (?:the output of tool call (\S+) \(its lines (\d+)-(\d+)\)|the (\S+) argument of tool call (\S+), lines (\d+)-(\d+)(, each without its first character)?) …\]$/;
const withoutFirst = (line: string) => line.slice(1);

/** The first and last line (0-based) of `lines` numbered `first`..`last`, in order. */
function numberedSpan(lines: string[], first: number, last: number): [number, number] | undefined {
  for (let i = 0; i < lines.length; i++) {
    if (lineKey(lines[i]!).number !== first) continue;
    const end = i + (last - first);
    if (end < lines.length && lineKey(lines[end]!).number === last) return [i, end];
  }
  return undefined;
}

/** The text a reference points into: a call's output (`arg` undefined) or one of its arguments. */
export type ReferenceSource = (callId: string, arg?: string) => string | undefined;

/** The lines one reference stands for, or undefined when `source` does not know its target. */
function linesOf(line: string, own: string[], source: ReferenceSource): string[] | undefined {
  const mine = OWN_REF.exec(line);
  if (mine) {
    // Positions in this output's own text: literal lines written above this reference.
    const from = Number(mine[3]) - 1;
    const out: string[] = [];
    for (let i = from; i < Number(mine[4]); i++) {
      const to = mine[1] === undefined ? undefined : Number(mine[1]) + (i - from);
      out.push(to === undefined || lineKey(own[i]!).number === to ? own[i]! : renumber(own[i]!, to));
    }
    return out;
  }
  const plain = PLAIN_REF.exec(line);
  if (plain)
    return source(plain[2]!)
      ?.split('\n')
      .slice(Number(plain[3]) - 1, Number(plain[4]));
  const arg = ARG_REF.exec(line);
  if (arg)
    return source(arg[2]!, arg[1]!)
      ?.split('\n')
      .slice(Number(arg[3]) - 1, Number(arg[4]))
      .map(arg[5] ? withoutFirst : (line) => line);
  const fromPlain = FROM_PLAIN_REF.exec(line);
  if (fromPlain) {
    const onOutput = fromPlain[3] !== undefined;
    const target = onOutput ? source(fromPlain[3]!) : source(fromPlain[7]!, fromPlain[6]!);
    if (target === undefined) return undefined;
    const prefix = JSON.parse(fromPlain[2]!) as string;
    const first = Number(fromPlain[1]);
    const [a, b] = onOutput ? [fromPlain[4]!, fromPlain[5]!] : [fromPlain[8]!, fromPlain[9]!];
    return target
      .split('\n')
      .slice(Number(a) - 1, Number(b))
      .map((text, k) => numbered(prefix, first + k, fromPlain[10] ? withoutFirst(text) : text));
  }
  const ref = NUMBERED_REF.exec(line);
  const target = ref ? source(ref[7]!) : undefined;
  if (target === undefined) return undefined;
  const old = target.split('\n');
  const first = Number(ref![1]);
  const last = Number(ref![2]);
  const span: [number, number] | undefined =
    ref![5] !== undefined
      ? [Number(ref![5]) - 1, Number(ref![6]) - 1]
      : numberedSpan(
          old,
          ref![3] === undefined ? first : Number(ref![3]),
          ref![3] === undefined ? last : Number(ref![4]),
        );
  const out: string[] = [];
  for (let i = span![0]; i <= span![1]; i++) {
    const to = first + (i - span![0]);
    out.push(lineKey(old[i]!).number === to ? old[i]! : renumber(old[i]!, to));
  }
  return out;
}

/**
 * `text` with the references to the texts `source` knows written out in full again (the lines
 * they stand for, renumbered where the reference says so). A history rewrite that masks an
 * output expands the references later outputs make to it, so nothing points into a placeholder.
 */
export function expandReferences(text: string, source: ReferenceSource): string {
  if (!text.includes('[… ')) return text;
  let changed = false;
  const out: string[] = [];
  const own = text.split('\n');
  for (const line of own) {
    const lines = line.startsWith('[… ') ? linesOf(line, own, source) : undefined;
    if (lines === undefined) out.push(line);
    else {
      out.push(...lines);
      changed = true;
    }
  }
  return changed ? out.join('\n') : text;
}
