// What the model wrote into a call that its output may show again: a heredoc that creates a
// file (`cat <<'EOF' > f.py`), SWE-agent's `edit 10:20` block, the new text of Claude Code's
// Write / Edit, str_replace_editor's `file_text` / `new_str`, Codex's argv. Only multi-line
// strings long enough to hold a run worth a reference are kept.
import type { ToolCallInfo } from '../types.js';

const MIN_CHARS = 120;
/** Nesting followed into the arguments: `edits[0].new_string`, `command[2]`. */
const MAX_DEPTH = 3;
/** Names a reference can quote without ambiguity. */
const NAME = /^[\w.[\]-]+$/;

const NONE: readonly (readonly [string, string])[] = [];

function hasLines(text: string, count: number): boolean {
  let at = -1;
  for (let n = 1; n < count; n++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return false;
  }
  return true;
}

function walk(value: unknown, name: string, depth: number, out: [string, string][]): void {
  if (typeof value === 'string') {
    if (value.length >= MIN_CHARS && hasLines(value, 3) && NAME.test(name)) out.push([name, value]);
  } else if (depth < MAX_DEPTH && Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${name}[${i}]`, depth + 1, out));
  } else if (depth < MAX_DEPTH && value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) walk(v, name ? `${name}.${k}` : k, depth + 1, out);
  }
}

// Arguments parsed from a JSON string are memoised by the readers (the same object every
// request), and so are these lists.
const found = new WeakMap<object, readonly (readonly [string, string])[]>();

/** The call's multi-line string arguments by name, in the order the call lists them. */
export function callArguments(call: ToolCallInfo | undefined): readonly (readonly [string, string])[] {
  if (!call?.args) return NONE;
  const known = found.get(call.args);
  if (known !== undefined) return known;
  const out: [string, string][] = [];
  walk(call.args, '', 0, out);
  const list = out.length > 0 ? out : NONE;
  found.set(call.args, list);
  return list;
}
