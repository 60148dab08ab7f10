// First-sight transforms: everything decided about a tool output the first time the gateway
// sees it, from the output itself and the outputs BEFORE it (whose texts never change), so the
// same conversation compresses every earlier output to the same bytes on every later turn and
// the provider's prompt cache keeps hitting. In order, per output:
//
// 1. an exact copy of an earlier output → `[Identical to the output of tool call X above.]`;
// 2. the per-command filter (filters/), then pretty-printed JSON minified;
// 3. status footer lines equal to the previous output's footer dropped;
// 4. runs of lines the model has already seen, in an earlier output or in what it wrote into a
//    call's arguments → a reference (line-runs.ts);
// 5. kept only if it saves tokens, counted with the request's tokenizer (the count the report
//    makes anyway; a conversation that changes model family loses its cache regardless).
//
// Agents resend the whole conversation every turn, so the work is incremental: the state after
// the outputs of the previous request is kept (by the sequence of outputs that produced it) and
// only the new outputs are processed. The state is a cache, never a source of truth: computed
// from scratch, the result is the same.
import { toolKind } from '../bundles.js';
import { BoundedCache, registerCache } from '../cache.js';
import { commandText, outputKind, type OutputKind } from '../filters/classify.js';
import { trimOutput } from '../filters/index.js';
import { isPlaceholder, sameAs, sameAsPrevious } from '../filters/markers.js';
import { jsonRecordsAsRows, minifyJson } from '../filters/json.js';
import { footer, withoutFooter } from '../filters/status-footer.js';
import type { StrategyContext } from '../strategies/strategy.js';
import type { ToolResult } from '../types.js';
import { countTextTokens } from '../../tokenize/index.js';
import { heapShare } from '../../config/heap-share.js';
import { callArguments } from './call-arguments.js';
import { LineIndex, referenceSeenLines } from './line-runs.js';

export const FIRST_SIGHT_STRATEGIES = [
  'duplicate_read_elision',
  'tool_result_trimming',
  'structured_output_minification',
  'status_line_dedup',
  'near_duplicate_reference',
] as const;

/** Exact copies shorter than this stay: the pointer would save too little. */
const MIN_COPY_CHARS = 200;
/**
 * A shorter copy of the previous output of the same tool is named by the tool instead. Outputs
 * this short are never masked (masking saves ≥ 200 chars), so what it names is always visible.
 */
const MIN_ACK_CHARS = 60;

interface Decided {
  text: string;
  changedBy: string[];
  /** Calls whose output this one refers to (a pointer or a run reference). */
  refersTo: string[];
}

/** Everything known after some prefix of a conversation's outputs. */
interface State {
  decided: Decided[];
  index: LineIndex;
  /** First holder of each original text (exact copies point to it). */
  firstHolder: Map<string, string>;
  previousFooter: string[];
  /** The latest output of each tool, by tool name. */
  previousOfTool: Map<string, string>;
  chars: number;
}

const newState = (): State => ({
  decided: [],
  index: new LineIndex(),
  firstHolder: new Map(),
  previousFooter: [],
  previousOfTool: new Map(),
  chars: 0,
});

// Filter results per (output kind, line-number policy), keyed by the raw text.
const filterMemos = new Map<string, BoundedCache<string>>();
function filterMemo(kind: string, strip: boolean): BoundedCache<string> {
  const name = `${kind}|${strip ? 1 : 0}`;
  let memo = filterMemos.get(name);
  if (!memo) filterMemos.set(name, (memo = registerCache(new BoundedCache<string>(16 * 1024 * 1024))));
  return memo;
}

function filtered(text: string, kind: OutputKind, strip: boolean): string {
  return filterMemo(kind, strip).getOrCompute(
    text,
    (t) => {
      const out = trimOutput(t, kind, { stripLineNumbers: strip });
      return out.length < t.length ? out : t;
    },
    (s) => s.length,
  );
}

const minified = registerCache(new BoundedCache<string | null>(16 * 1024 * 1024));
/** Records as rows when the output is a list of them, else pretty-printed JSON minified. */
function structuredOrNull(text: string): string | null {
  const minimal = minifyJson(text);
  const rows = jsonRecordsAsRows(text);
  if (rows !== undefined && (minimal === undefined || rows.length < minimal.length)) return rows;
  return minimal ?? null;
}

const footers = registerCache(new BoundedCache<string[]>(8 * 1024 * 1024));
const footerOf = (text: string) => footers.getOrCompute(text, footer, (f) => 16 + f.join('').length);

function commandOf(result: ToolResult, ctx: StrategyContext): string | undefined {
  const args = result.call?.args;
  if (!args) return undefined;
  for (const name of ctx.bundle.commandArgs) {
    const text = commandText(args[name]);
    if (text !== undefined) return text;
  }
  return undefined;
}

function kindOf(result: ToolResult, ctx: StrategyContext): OutputKind {
  const tool = result.call ? toolKind(ctx.bundle, result.call.name) : 'other';
  return outputKind(tool, tool === 'shell' ? commandOf(result, ctx) : undefined);
}

/** Marker lines stand for other lines: a run reference never points into them. */
const literalLine = (line: string) => !(line.startsWith('[… ') || line.startsWith('[lines '));

const on = (ctx: StrategyContext, name: string) => !ctx.only || ctx.only.includes(name);

function decide(result: ToolResult, kind: OutputKind, ctx: StrategyContext, state: State): Decided {
  const original = result.original;
  const unchanged: Decided = { text: original, changedBy: [], refersTo: [] };
  if (!result.editable || isPlaceholder(original)) return unchanged;
  const holder =
    original.length >= MIN_COPY_CHARS && on(ctx, 'duplicate_read_elision')
      ? state.firstHolder.get(original)
      : undefined;
  if (holder !== undefined && holder !== result.callId)
    return { text: sameAs(holder), changedBy: ['duplicate_read_elision'], refersTo: [holder] };
  const tool = result.call?.name;
  if (
    tool !== undefined &&
    original.length >= MIN_ACK_CHARS &&
    original.length < MIN_COPY_CHARS &&
    /^\S+$/.test(tool) &&
    state.previousOfTool.get(tool) === original &&
    on(ctx, 'duplicate_read_elision')
  ) {
    const text = sameAsPrevious(tool);
    if (countTextTokens(text, ctx.tokenizer) < countTextTokens(original, ctx.tokenizer))
      return { text, changedBy: ['duplicate_read_elision'], refersTo: [] };
  }

  const changedBy: string[] = [];
  let text = original;
  if (text.length >= 40 && on(ctx, 'tool_result_trimming')) {
    const trimmed = filtered(text, kind, ctx.stripLineNumbers);
    if (trimmed !== text) changedBy.push('tool_result_trimming');
    text = trimmed;
  }
  // A file's own layout is what an edit must match: a JSON file read stays as printed.
  if (text.length >= 80 && kind !== 'read' && on(ctx, 'structured_output_minification')) {
    const json = minified.getOrCompute(text, structuredOrNull, (m) => (m === null ? 8 : m.length));
    if (json !== null && json.length < text.length) {
      text = json;
      changedBy.push('structured_output_minification');
    }
  }
  const mine = footerOf(original);
  const drop = mine.filter((line) => state.previousFooter.includes(line));
  if (drop.length > 0 && on(ctx, 'status_line_dedup')) {
    const without = withoutFooter(text, new Set(drop));
    if (without !== text) {
      text = without;
      changedBy.push('status_line_dedup');
    }
  }
  const refersTo: string[] = [];
  const referenced = on(ctx, 'near_duplicate_reference') ? referenceSeenLines(text, state.index) : undefined;
  if (referenced !== undefined) {
    text = referenced;
    changedBy.push('near_duplicate_reference');
    // Outputs and arguments alike: a history rewrite may replace either.
    for (const m of referenced.matchAll(/of tool call (\S+?)(?: \(its lines|, lines| …\])/g)) refersTo.push(m[1]!);
  }
  if (changedBy.length === 0) return unchanged;
  if (countTextTokens(text, ctx.tokenizer) >= countTextTokens(original, ctx.tokenizer)) return unchanged;
  return { text, changedBy, refersTo };
}

function advance(
  state: State,
  result: ToolResult,
  kind: OutputKind,
  args: readonly (readonly [string, string])[],
  ctx: StrategyContext,
): void {
  // The call came before its output: what the model wrote there may be referred to from now on.
  for (const [name, text] of args) state.index.addArgument(result.callId, name, text);
  const d = decide(result, kind, ctx, state);
  state.decided.push(d);
  if (result.editable) {
    if (!state.firstHolder.has(result.original)) state.firstHolder.set(result.original, result.callId);
    state.index.add(result.callId, d.text, literalLine);
    state.previousFooter = footerOf(result.original);
    if (result.call) state.previousOfTool.set(result.call.name, result.original);
  } else state.previousFooter = [];
  state.chars += result.original.length + d.text.length;
}

// States by the outputs that produced them; a conversation's next request finds its previous
// one and continues from there (a cache: a state not found is rebuilt from the outputs, with the
// same result). Bounded by an estimate of their heap: the characters they hold undercount it,
// since each indexed line also costs a key object, a slice, a posting and array slots (~180 bytes
// a line, from heap snapshots of bench/soak, where 64 Mi characters of states came to ~2.6 times
// that in heap, more than a 128 MB heap: bench/README.md, "soak"). At most a sixteenth of the heap
// V8 may grow to, so a capped heap (--max-old-space-size) caps the states with it: they are the
// old generation's main churn (each lives until evicted), and an eighth kept a 128 MB heap's
// committed size creeping up for ten minutes.
const BYTES_PER_INDEXED_LINE = 180;
const MAX_STATE_BYTES = heapShare(1 / 16, 64 * 1024 * 1024);
const states = new Map<string, { state: State; bytes: number }>();
let stateBytes = 0;

function remember(key: string, state: State): void {
  const bytes = state.chars + BYTES_PER_INDEXED_LINE * state.index.lineCount;
  states.set(key, { state, bytes });
  stateBytes += bytes;
  for (const [k, kept] of states) {
    if (stateBytes <= MAX_STATE_BYTES) break;
    states.delete(k);
    stateBytes -= kept.bytes;
  }
}

function takeState(key: string): State | undefined {
  const kept = states.get(key);
  if (kept === undefined) return undefined;
  states.delete(key);
  stateBytes -= kept.bytes;
  return kept.state;
}

// Short ids for output texts, so that a sequence of outputs has a short key.
const textIds = registerCache(new BoundedCache<number>(32 * 1024 * 1024));
let nextTextId = 1;
const textId = (text: string) =>
  textIds.getOrCompute(
    text,
    () => nextTextId++,
    () => 8,
  );

/** Outputs a new request may add after the previous request's (parallel calls, several turns). */
const MAX_NEW_OUTPUTS = 16;

/**
 * The first-sight text of every result, in order. Results keep `original`; `text` and
 * `changedBy` are set. Returns, per result, the call ids its text refers to.
 */
export function applyFirstSight(results: ToolResult[], ctx: StrategyContext): string[][] {
  const kinds = results.map((r) => kindOf(r, ctx));
  const args = results.map((r) => callArguments(r.call));
  const keys: string[] = new Array<string>(results.length);
  let key = `${ctx.bundle.name}|${ctx.tokenizer}|${ctx.stripLineNumbers ? 1 : 0}|${ctx.only?.join(',') ?? ''}`;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    key += `\u0001${r.callId}\u0002${kinds[i]}\u0002${r.editable ? textId(r.original) : 0}`;
    // Outputs are referred to by call id; what the call wrote must be the same too.
    for (const [name, text] of args[i]!) key += `\u0003${name}\u0002${textId(text)}`;
    keys[i] = key;
  }
  let from = results.length;
  let state: State | undefined;
  for (; from > 0 && from >= results.length - MAX_NEW_OUTPUTS; from--) {
    state = takeState(keys[from - 1]!);
    if (state) break;
  }
  if (!state) {
    state = newState();
    from = 0;
  }
  for (let i = from; i < results.length; i++) advance(state, results[i]!, kinds[i]!, args[i]!, ctx);
  if (results.length > 0) remember(keys[results.length - 1]!, state);

  const refs: string[][] = [];
  results.forEach((r, i) => {
    const d = state.decided[i]!;
    r.text = d.text;
    r.changedBy.clear();
    for (const name of d.changedBy) r.changedBy.add(name);
    refs.push(d.refersTo);
  });
  return refs;
}

/** The kept states' estimated bytes and their bound (tests). */
export function firstSightStatesHeld(): { count: number; bytes: number; limit: number } {
  return { count: states.size, bytes: stateBytes, limit: MAX_STATE_BYTES };
}

/** Forgets every kept state (tests and the cold benchmark). */
export function clearFirstSightStates(): void {
  states.clear();
  stateBytes = 0;
}
