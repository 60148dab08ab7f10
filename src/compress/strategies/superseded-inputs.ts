// History rewrite of what the model wrote: the body of a Write or Edit whose file was read or
// written again later, and a todo list a later call replaced, are dead weight the conversation
// resends on every turn (on Claude Code sessions, tool-call inputs are a fifth of the input).
// Like masking it changes what the provider has cached, so it runs only under the rewrite
// boundary the policy moved (rewrite-policy.ts), and it depends only on the calls of turns before
// that boundary: between two moves every such call is the same bytes in every request.
import { toolKind, type Bundle } from '../bundles.js';
import { classifyCommand, commandText } from '../filters/classify.js';
import { supersededInput } from '../filters/markers.js';
import type { ToolCallInfo, ToolResult } from '../types.js';

export const SUPERSEDED_INPUT_ELISION = 'superseded_input_elision';

/** Calls that restate the whole of something each time: only the latest one matters. */
const RESTATING_TOOLS = new Set(['TodoWrite', 'todowrite', 'todo_write', 'update_plan']);

/** A string argument shorter than this stays: the placeholder would save too little. */
const MIN_CHARS = 200;
/** Nesting followed into the arguments (MultiEdit's `edits[0].new_string`). */
const MAX_DEPTH = 3;

function pathOf(call: ToolCallInfo, bundle: Bundle): string | undefined {
  for (const name of bundle.pathArgs) {
    const value = call.args?.[name];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/** The shell command a call runs, with the name of the argument holding it (a string only). */
function shellCommand(call: ToolCallInfo, bundle: Bundle): { arg: string; command: string } | undefined {
  for (const arg of bundle.commandArgs) {
    const value = call.args?.[arg];
    if (typeof value === 'string') return { arg, command: value };
  }
  return undefined;
}

// `cat <<'EOF' > path` and `cat > path <<EOF`: a file written from the command's own text (what
// shell agents such as mini-swe-agent do instead of a Write tool).
const HEREDOC_WRITE = /^(?:cd\s+\S+\s*&&\s*)?cat\s*(?:<<-?\s*['"]?\w+['"]?\s*>\s*([^\s;&|<>]+)|>\s*([^\s;&|<>]+)\s*<<)/;
// A later command that shows or changes a file it names: a read, another heredoc, an in-place edit.
const TOUCHES_FILE = /\bsed\s+-i|\bcat\s*(?:<<|>)/;

/** What a call did to files: the file it writes from its own text, and whether it reads or changes the files it names. */
interface Touch {
  /** The file whose whole text the call's input holds (a Write, an Edit, a heredoc). */
  written: string | undefined;
  /** A path argument, read or written. */
  path: string | undefined;
  /** A shell command that reads or changes the files it names. */
  command: string | undefined;
}

// apply_patch (Codex): the file is named inside the patch, not in an argument of its own.
const PATCH_FILE = /^\*\*\* (?:Add|Update) File: (.+)$/gm;

/** The patch text of an apply_patch-style call and the one file it writes (several files: none). */
function patchOf(call: ToolCallInfo): { arg: string; patch: string; path: string } | undefined {
  for (const [arg, value] of Object.entries(call.args ?? {})) {
    if (typeof value !== 'string' || !value.startsWith('*** Begin Patch')) continue;
    const files = [...value.matchAll(PATCH_FILE)].map((m) => m[1]!.trim());
    return files.length === 1 ? { arg, patch: value, path: files[0]! } : undefined;
  }
  return undefined;
}

function touchOf(call: ToolCallInfo, bundle: Bundle): Touch | undefined {
  const kind = toolKind(bundle, call.name);
  if (kind === 'edit' || kind === 'read') {
    const path = pathOf(call, bundle) ?? (kind === 'edit' ? patchOf(call)?.path : undefined);
    return path === undefined ? undefined : { written: kind === 'edit' ? path : undefined, path, command: undefined };
  }
  if (kind !== 'shell') return undefined;
  const shell = shellCommand(call, bundle);
  if (!shell) return undefined;
  const command = commandText(shell.command) ?? '';
  const heredoc = HEREDOC_WRITE.exec(command);
  const written = heredoc ? (heredoc[1] ?? heredoc[2]) : undefined;
  const touches = written !== undefined || TOUCHES_FILE.test(command) || classifyCommand(command) === 'read';
  return touches ? { written, path: written, command } : undefined;
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** `value` with every long string (every long member, for a restating call) replaced; `saved` counts chars. */
function elide(
  value: unknown,
  depth: number,
  keep: ReadonlySet<string>,
  whole: boolean,
  saved: { chars: number },
): unknown {
  if (typeof value === 'string') {
    if (value.length < MIN_CHARS) return value;
    const placeholder = supersededInput(lineCount(value), value.length);
    saved.chars += value.length - placeholder.length;
    return placeholder;
  }
  if (whole && value !== null && typeof value === 'object') {
    const json = JSON.stringify(value);
    if (json.length < MIN_CHARS) return value;
    const placeholder = supersededInput(Array.isArray(value) ? value.length : lineCount(json), json.length);
    saved.chars += json.length - placeholder.length;
    return placeholder;
  }
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => elide(v, depth + 1, keep, false, saved));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = keep.has(k) ? v : elide(v, depth + 1, keep, false, saved);
  return out;
}

// Every request with the same boundary rebuilds the same replacement: kept by the arguments object
// (the readers memoise parsed arguments, so it is the same object from one request to the next),
// per bundle (its path arguments are kept).
const elidedByBundle = new Map<string, WeakMap<object, Record<string, unknown> | null>>();

function elidedArgs(call: ToolCallInfo, bundle: Bundle): Record<string, unknown> | undefined {
  const args = call.args!;
  let elided = elidedByBundle.get(bundle.name);
  if (!elided) elidedByBundle.set(bundle.name, (elided = new WeakMap()));
  let known = elided.get(args);
  if (known === undefined) {
    const saved = { chars: 0 };
    const whole = RESTATING_TOOLS.has(call.name);
    const keep = new Set(bundle.pathArgs);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) out[k] = keep.has(k) ? v : elide(v, 1, keep, whole, saved);
    known = saved.chars >= MIN_CHARS ? out : null;
    elided.set(args, known);
  }
  return known ?? undefined;
}

/** A patch keeps its header (which file, added or updated); its hunks go. */
function elidedPatch(call: ToolCallInfo): Record<string, unknown> | undefined {
  const { arg, patch } = patchOf(call)!;
  const header = /^\*\*\* Begin Patch\n\*\*\* (?:Add|Update) File: .+\n/.exec(patch)?.[0];
  if (header === undefined) return undefined;
  const body = patch.slice(header.length);
  const placeholder = supersededInput(lineCount(body), body.length);
  if (body.length - placeholder.length < MIN_CHARS) return undefined;
  return { ...call.args, [arg]: `${header}${placeholder}` };
}

/** A heredoc's command keeps its first line (what it wrote, and where); the body goes. */
function elidedHeredoc(call: ToolCallInfo, bundle: Bundle): Record<string, unknown> | undefined {
  const shell = shellCommand(call, bundle)!;
  const firstLine = shell.command.slice(0, Math.max(0, shell.command.indexOf('\n')));
  const body = shell.command.slice(firstLine.length);
  const placeholder = supersededInput(lineCount(body), body.length);
  if (firstLine.length === 0 || body.length - placeholder.length < MIN_CHARS) return undefined;
  return { ...call.args, [shell.arg]: `${firstLine}\n${placeholder}` };
}

/** A call that restates the whole of something (a todo list): the next such call supersedes it. */
export function isRestating(call: ToolCallInfo | undefined): boolean {
  return call?.args !== undefined && call.argsItem !== undefined && RESTATING_TOOLS.has(call.name);
}

/**
 * Whether a later rewrite could ever elide this call's input: a restating call, or one that writes
 * a file from its own text. Depends on the call alone, so it is the same in every request.
 */
export function mayBeSuperseded(call: ToolCallInfo | undefined, bundle: Bundle): boolean {
  if (!call?.args || call.argsItem === undefined) return false;
  return RESTATING_TOOLS.has(call.name) || touchOf(call, bundle)?.written !== undefined;
}

/**
 * The replacement arguments of every call before turn `before` whose input a later call before
 * that turn superseded: the text of a file (Write, Edit, a heredoc) that a later call read or
 * wrote again, a restating call (a todo list) made again. Only calls the format can write back
 * (`argsItem`) are planned.
 */
export function supersededInputPlan(
  results: readonly ToolResult[],
  before: number,
  bundle: Bundle,
): Map<string, Record<string, unknown>> {
  const plan = new Map<string, Record<string, unknown>>();
  if (before <= 0) return plan;
  const laterPaths = new Set<string>();
  const laterCommands: string[] = [];
  const restated = new Set<string>();
  const touchedLater = (path: string) => laterPaths.has(path) || laterCommands.some((c) => c.includes(path));
  // From the newest call back: a call is superseded when a later one touched the same.
  for (let i = results.length - 1; i >= 0; i--) {
    const r = results[i]!;
    const call = r.call;
    if (r.turn >= before || !call?.args) continue;
    if (RESTATING_TOOLS.has(call.name)) {
      if (restated.has(call.name) && call.argsItem !== undefined) {
        const args = elidedArgs(call, bundle);
        if (args) plan.set(call.id, args);
      }
      restated.add(call.name);
      continue;
    }
    const touch = touchOf(call, bundle);
    if (!touch) continue;
    if (touch.written !== undefined && call.argsItem !== undefined && touchedLater(touch.written)) {
      const args =
        touch.command !== undefined
          ? elidedHeredoc(call, bundle)
          : pathOf(call, bundle) === undefined
            ? elidedPatch(call)
            : elidedArgs(call, bundle);
      if (args) plan.set(call.id, args);
    }
    if (touch.path !== undefined) laterPaths.add(touch.path);
    if (touch.command !== undefined) laterCommands.push(touch.command);
  }
  return plan;
}
