// Every piece of text the engine inserts, in one place. Each marker is recognisable so that a
// second pass leaves it alone (compressing twice must equal compressing once).

// Thousands separators as en-US writes them; toLocaleString builds an ICU formatter per call.
const n = (x: number) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// The model can only act on a cut if it knows how to undo it: the range, ready for `sed -n`.
export const omittedLines = (count: number, from: number, to: number, total: number) =>
  `[… ${n(count)} lines omitted (lines ${from}-${to} of ${total}); to see them: | sed -n '${from},${to}p' …]`;
export const OMITTED_RE = /^\[… [\d,]+ lines omitted/m;

// A run of CI log rows (filters/log-columns.ts): each of the next `count` rows, `[P][BOM]time text`,
// stands for `[P]job\tstep\t[BOM]dateTtime text` (P: a grep line prefix such as `1141-`).
export const logColumnsHeader = (count: number, job: string, step: string, date: string) =>
  `[… ${n(count)} rows of: ${job}\t${step}\t${date}T …]`;
export const LOG_COLUMNS_RE = /^\[… [\d,]+ rows of: /m;

// A JSON array of records as rows (filters/json.ts): record k is the keys zipped with row k.
export const jsonRowsHeader = (count: number, keys: string) =>
  `[… JSON array of ${n(count)} objects, one per line below as its values for the keys ${keys} …]`;

export const repeatedLine = (times: number) => `[… previous line repeated ${n(times)} more times]`;

export const removedRoutine = (what: string) => `[… removed ${what}]`;

export const lineNumbersRemoved = (first: number, last: number) => `[lines ${first}-${last}; line numbers removed]`;
export const LINE_NUMBERS_RE = /^\[lines \d+-\d+; line numbers removed\]$/m;

// A failed command's exit code outlives its output: the envelope that held it goes with it.
export const masked = (lines: number, chars: number, exitCode?: number) =>
  `[Earlier tool output removed to save context (${n(lines)} lines, ${n(chars)} chars${exitCode ? `; exit code ${exitCode}` : ''}); run the tool again if it is still needed.]`;
export const MASKED_RE = /^\[Earlier tool output removed to save context \(/;

// In what the model wrote (a Write's body, an old todo list): worded as a fact about the past, so
// the model has no template to copy into a new call.
export const supersededInput = (lines: number, chars: number) =>
  `[Earlier input removed to save context (${n(lines)} lines, ${n(chars)} chars): a later call read or replaced it.]`;

export const sameAs = (callId: string) => `[Identical to the output of tool call ${callId} above.]`;
export const supersededBy = (what: string, callId: string) =>
  `[Older ${what}; superseded by the later output of tool call ${callId}.]`;
// A short output equal to the previous output of the same tool (TodoWrite's acknowledgement on
// every call): too short for a pointer with a call id to pay, so it names the tool instead.
export const sameAsPrevious = (toolName: string) => `[Same as the previous ${toolName} output.]`;
export const POINTER_RE =
  /^\[(Identical to the output of tool call|Older .*; superseded by the later output of tool call|Same as the previous \S+ output\.\]$)/;

/** Results already replaced by a placeholder or pointer are final. */
export function isPlaceholder(text: string): boolean {
  return text.charCodeAt(0) === 91 /* [ */ && (MASKED_RE.test(text) || POINTER_RE.test(text));
}
