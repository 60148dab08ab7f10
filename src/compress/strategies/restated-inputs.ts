// First sight of what the model wrote: a call that restates a whole list every time (Claude Code's
// TodoWrite, Codex's update_plan) usually changes one or two statuses of the list before it, yet
// every restatement is written once and read on every later request (on the Claude Code sessions
// 5 % of the weighted prompt, the most of any tool input). Such a call is shown as its changes
// against the latest call of the same tool shown in full: every item that differs, field by field,
// and the new length, so the list can be rebuilt exactly from the two. Only when the changes are
// not shorter than the list is the call shown in full, and it becomes the base of the next ones:
// a list is always one full list plus one set of changes, never a chain.
//
// The call's input is new in the request that first carries it (the provider has never cached
// it), so this changes nothing cached; it depends only on the calls before it and on which of
// them a history rewrite elided, so it is the same in every request between two rewrites. A
// rewrite that elides the base (strategies/superseded-inputs.ts: a later restatement before the
// boundary) shows the latest one before the boundary in full again, and the later ones against
// it; everything it changes lies after the rewrite's first change, which the policy counts.
import { BoundedCache, registerCache } from '../cache.js';
import { countTextTokens, type TokenizerName } from '../../tokenize/index.js';
import { isRestating } from './superseded-inputs.js';
import type { ToolCallInfo, ToolResult } from '../types.js';

export const RESTATED_INPUT_AS_CHANGES = 'restated_input_as_changes';

/** Keys a change names bare: anything else is written as the whole item. */
const KEY = /^\w+$/;

/**
 * Argument objects this strategy made (applyRendering names the strategy by them), each with a
 * key naming what it shows: the call, its base and the markers. The gateway counts what such an
 * input saves once per key, not in every request (a body's arguments are new objects each time).
 */
const madeHere = new WeakMap<object, string>();

export function isRestatedAsChanges(args: object): boolean {
  return madeHere.has(args);
}

export function restatedKey(args: object): string | undefined {
  return madeHere.get(args);
}

/** The fewest characters `value` can take as JSON (escapes only add): a bound that needs no string. */
function minJsonLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + minJsonLength(v) + 1, 1);
  if (isRecord(value)) return Object.entries(value).reduce((n, [k, v]) => n + k.length + 4 + minJsonLength(v), 1);
  return 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Equal as JSON: strings and numbers compared directly (a todo item's fields), anything else as JSON. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `3 status "completed"`, or `3 {…}` for an item that is new, all new, or not a record like the old one. */
function itemChange(index: number, before: unknown, after: unknown): string | undefined {
  if (isRecord(before) && isRecord(after)) {
    const keys = Object.keys(after);
    const old = Object.keys(before);
    if (keys.length === old.length && keys.every((k, i) => k === old[i] && KEY.test(k))) {
      const changed = keys.filter((k) => !same(before[k], after[k]));
      if (changed.length === 0) return undefined;
      // Every field new: another item, written whole.
      if (changed.length < keys.length)
        return `${index + 1} ${changed.map((k) => `${k} ${JSON.stringify(after[k])}`).join(', ')}`;
    }
  } else if (before !== undefined && same(before, after)) return undefined;
  return `${index + 1} ${JSON.stringify(after)}`;
}

/** The marker standing for `after`, a list that restates `before` (the `arg` of call `baseId`). */
export function listChanges(
  arg: string,
  baseId: string,
  before: readonly unknown[],
  after: readonly unknown[],
): string {
  const changes: string[] = [];
  after.forEach((item, i) => {
    const change = itemChange(i, before[i], item);
    if (change !== undefined) changes.push(change);
  });
  const what = `the ${arg} of tool call ${baseId}`;
  if (changes.length === 0 && after.length === before.length) return `[Same as ${what}.]`;
  return `[As ${what}, ${after.length} items in all, with these changes: ${changes.join('; ')}]`;
}

// Per arguments object (the same object for every rendering of one request), per base call.
const known = new WeakMap<object, Map<string, Record<string, unknown> | null>>();

/** The call's arguments with each list shown as its changes to the base's; undefined when none is shorter. */
function asChanges(call: ToolCallInfo, base: ToolCallInfo): Record<string, unknown> | undefined {
  const args = call.args!;
  let byBase = known.get(args);
  if (!byBase) known.set(args, (byBase = new Map<string, Record<string, unknown> | null>()));
  let made = byBase.get(base.id);
  if (made === undefined) {
    made = null;
    const out: Record<string, unknown> = {};
    let key = `${call.id}\u0000${base.id}`;
    for (const [k, v] of Object.entries(args)) {
      const old = base.args![k];
      out[k] = v;
      if (!Array.isArray(v) || !Array.isArray(old)) continue;
      const marker = listChanges(k, base.id, old, v);
      // Compared as the writers send them: the marker's quotes are escaped in the JSON.
      const length = JSON.stringify(marker).length;
      if (length >= minJsonLength(v) && length >= JSON.stringify(v).length) continue;
      out[k] = marker;
      key += `\u0000${k}\u0000${marker}`;
    }
    if (key.length > call.id.length + base.id.length + 1) {
      madeHere.set(out, key);
      made = out;
    }
    byBase.set(base.id, made);
  }
  return made ?? undefined;
}

/**
 * The arguments every restating call shows, by call id: `elided` (what the rewrite replaced by a
 * placeholder) kept as is, and every other restatement as its changes to the latest call of the
 * same tool shown in full, where that is shorter.
 */
export function restatedInputPlan(
  results: readonly ToolResult[],
  elided: ReadonlyMap<string, Record<string, unknown>>,
): Map<string, Record<string, unknown>> {
  const plan = new Map(elided);
  const bases = new Map<string, ToolCallInfo>();
  for (const r of results) {
    const call = r.call;
    if (!isRestating(call) || !isRecord(call!.args) || elided.has(call!.id) || plan.has(call!.id)) continue;
    const base = bases.get(call!.name);
    const args = base ? asChanges(call!, base) : undefined;
    if (args) plan.set(call!.id, args);
    else bases.set(call!.name, call!);
  }
  return plan;
}

// What a restated list shown as its changes saves, by what it shows (restatedKey): counted once,
// not in every request of the conversation.
const restatedSavings = registerCache(new BoundedCache<number>(4 * 1024 * 1024));

/** Tokens `args` (a restatement's changes, or any other replacement) saves against the call's own arguments (0 for none). */
export function inputSaving(
  call: ToolCallInfo,
  args: Record<string, unknown> | undefined,
  tokenizer: TokenizerName,
): number {
  if (args === undefined) return 0;
  const count = () =>
    countTextTokens(JSON.stringify(call.args), tokenizer) - countTextTokens(JSON.stringify(args), tokenizer);
  const key = restatedKey(args);
  return key === undefined
    ? count()
    : restatedSavings.getOrCompute(`${tokenizer}\u0000${key}`, count, () => key.length + 16);
}
