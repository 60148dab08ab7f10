// Order matters: first-sight transforms decide every output from itself and the outputs before
// it; the history rewrite (masking) then applies where the rewrite boundary allows; tool
// definitions are independent of both.
import type { Bundle } from './bundles.js';
import { BoundedCache, registerCache } from './cache.js';
import { applyFirstSight, clearFirstSightStates, FIRST_SIGHT_STRATEGIES } from './first-sight/first-sight.js';
import { expandReferences } from './first-sight/line-references.js';
import { POINTER_RE } from './filters/markers.js';
import { callArguments } from './first-sight/call-arguments.js';
import { maskedText, maskingPlan, OBSERVATION_MASKING } from './strategies/observation-masking.js';
import {
  isRestating,
  mayBeSuperseded,
  SUPERSEDED_INPUT_ELISION,
  supersededInputPlan,
} from './strategies/superseded-inputs.js';
import { isRestatedAsChanges, RESTATED_INPUT_AS_CHANGES, restatedInputPlan } from './strategies/restated-inputs.js';
import type { ToolResult } from './types.js';
import type { StrategyContext } from './strategies/strategy.js';
import { toolSurfaceReduction } from './strategies/tool-surface-reduction.js';
import { TOOL_SURFACE_DECISION } from './tool-surface.js';
import type { Conversation } from './types.js';
import type { TokenizerName } from '../tokenize/index.js';

export const STRATEGY_NAMES: readonly string[] = [
  ...FIRST_SIGHT_STRATEGIES,
  OBSERVATION_MASKING,
  SUPERSEDED_INPUT_ELISION,
  RESTATED_INPUT_AS_CHANGES,
  toolSurfaceReduction.name,
  TOOL_SURFACE_DECISION,
];

registerCache({ clear: clearFirstSightStates });

// Agents whose own tools edit by line number (`edit 10:20`, `start_line`) need the numbers in
// file views. A citation format (`file_path:line_number`: Claude Code's system prompt asks the
// model to cite code so in its answers) names a line for the reader and edits nothing, so it
// does not keep them (issue 28: every Claude Code Read kept its `   12→` prefixes without a bundle).
const LINE_ADDRESSING = /(?<!\w:)\b(?:start_line|end_line|line_number|lineno|line_start|line_end|start_line_number)\b/;

// The same system prompt comes with every request of a conversation.
const addressesLines = registerCache(new BoundedCache<boolean>(1024 * 1024));
const mentionsLineAddressing = (text: string) => LINE_ADDRESSING.test(text);

function keepsLineNumbers(conversation: Conversation): boolean {
  if (addressesLines.getOrCompute(conversation.systemText, mentionsLineAddressing, () => 8)) return true;
  return conversation.tools.some((t) => LINE_ADDRESSING.test(JSON.stringify(t.parameters ?? {})));
}

export interface PipelineOptions {
  /** Run only these strategies (benchmarks measure each one alone). */
  only?: readonly string[];
  /**
   * The history-rewrite boundary: outputs of assistant turns before it may be masked (never the
   * latest `bundle.keepTurns` turns). 0 or absent: no history is rewritten.
   */
  maskBefore?: number;
}

/**
 * The item after which no later history rewrite can change anything: before the first output of
 * turn `maskBefore` or later that masking would replace, and before the first call from there on
 * whose input could be elided (the turns before it are masked already; an output too short to
 * mask, and the call that issued it, stay as they are). The gateway puts a cache breakpoint there
 * and every request refreshes it, so the next rewrite re-reads everything up to it. Without
 * either, the assistant message that issued the first calls of turn `maskBefore`; -1 when there
 * is no tool result at or after that turn.
 */
export function boundaryAnchorItem(conversation: Conversation, maskBefore: number, bundle: Bundle): number {
  // The latest restating call (a todo list) before the boundary is not elided yet, and the next
  // one will supersede it: the next rewrite changes it, so the breakpoint goes before it.
  const restated = new Map<string, number>();
  let anchor = -1;
  for (const r of conversation.results) {
    if (r.turn < maskBefore) {
      if (isRestating(r.call)) restated.set(r.call!.name, r.call!.argsItem! - 1);
      continue;
    }
    if (anchor < 0) anchor = r.item - 1;
    if (mayBeSuperseded(r.call, bundle)) {
      anchor = Math.min(r.call!.argsItem!, r.item) - 1;
      break;
    }
    if (maskedText(r) !== undefined) {
      anchor = r.item - 1;
      break;
    }
  }
  for (const item of restated.values()) if (anchor < 0 || item < anchor) anchor = item;
  return anchor;
}

/** The masking boundary actually used: the latest `keep` turns always stay whole. */
export function effectiveMaskBefore(conversation: Conversation, bundle: Bundle, requested: number | undefined): number {
  return Math.max(0, Math.min(requested ?? 0, conversation.turnCount - bundle.keepTurns));
}

export function strategyContext(conversation: Conversation, bundle: Bundle, tokenizer: TokenizerName): StrategyContext {
  return {
    bundle,
    stripLineNumbers: bundle.stripLineNumbers === 'auto' ? !keepsLineNumbers(conversation) : bundle.stripLineNumbers,
    only: undefined,
    tokenizer,
  };
}

/** The first-sight phase: every result gets its first-sight text; tool definitions are reduced. */
export function runFirstSight(
  conversation: Conversation,
  bundle: Bundle,
  tokenizer: TokenizerName,
  opts: PipelineOptions = {},
): string[][] {
  const ctx: StrategyContext = { ...strategyContext(conversation, bundle, tokenizer), only: opts.only };
  const refs = applyFirstSight(conversation.results, ctx);
  if (!opts.only || opts.only.includes(toolSurfaceReduction.name)) toolSurfaceReduction.run(conversation, ctx);
  return refs;
}

/** What every result shows under a rewrite boundary, computed without changing anything. */
export interface Rendering {
  texts: string[];
  masked: ReadonlySet<number>;
  /**
   * New arguments of the calls whose input the rewrite elides, and of the restating calls shown
   * as their changes to an earlier one (strategies/restated-inputs.ts), by call id.
   */
  inputs: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * The results as they look with every turn before `before` masked and the superseded inputs of
 * those turns' calls elided (first-sight texts in `results`; references into masked outputs
 * and elided inputs written out). Pure: the policy compares renderings.
 */
export function renderRewrite(
  results: readonly ToolResult[],
  refs: string[][],
  before: number,
  bundle: Bundle,
  restate = true,
): Rendering {
  const masked = before > 0 ? maskingPlan(results, before) : new Set<number>();
  const elided = supersededInputPlan(results, before, bundle);
  const inputs = restate ? restatedInputPlan(results, elided) : elided;
  const texts = results.map((r) => r.text);
  if (masked.size === 0 && elided.size === 0) return { texts, masked, inputs };
  expandReferencesToRewritten(results, refs, masked, elided, texts);
  for (const i of masked) texts[i] = maskedText(results[i]!)!;
  return { texts, masked, inputs };
}

/** Puts a rendering in place; results (and calls) it changed name the rewrite. */
export function applyRendering(results: ToolResult[], rendering: Rendering): void {
  results.forEach((r, i) => {
    const args = r.call ? rendering.inputs.get(r.call.id) : undefined;
    if (args && r.call) {
      r.call.rewrittenArgs = args;
      r.changedBy.add(isRestatedAsChanges(args) ? RESTATED_INPUT_AS_CHANGES : SUPERSEDED_INPUT_ELISION);
    }
    const text = rendering.texts[i]!;
    if (text === r.text) return;
    r.text = text;
    if (rendering.masked.has(i)) r.changedBy.clear();
    r.changedBy.add(OBSERVATION_MASKING);
  });
}

/**
 * A visible output whose first-sight text refers to an output the rewrite masks, or to an input
 * it elides, gets those references written out again (a pointer becomes the whole text it
 * pointed to), so the model never has to look into a placeholder. Only targets and outputs
 * before the reference matter, so this too is the same in every request with the same boundary.
 */
function expandReferencesToRewritten(
  results: readonly ToolResult[],
  refs: string[][],
  masked: ReadonlySet<number>,
  inputs: ReadonlyMap<string, Record<string, unknown>>,
  texts: string[],
): void {
  const byId = new Map<string, number>();
  results.forEach((r, i) => byId.set(r.callId, i));
  const maskedIds = new Set([...masked].map((i) => results[i]!.callId));
  // The argument as the model wrote it: first-sight references name the original arguments.
  const elidedArgument = (id: string, arg: string) =>
    inputs.has(id) ? callArguments(results[byId.get(id)!]!.call).find(([name]) => name === arg)?.[1] : undefined;
  const firstSight = results.map((r) => r.text);
  const expanded = new Map<number, string>();
  // The text an output shows with every reference into the masked ones written out.
  const full = (i: number): string => {
    const known = expanded.get(i);
    if (known !== undefined) return known;
    let text = firstSight[i]!;
    if ((refs[i] ?? []).some((id) => maskedIds.has(id) || inputs.has(id))) {
      const pointer = POINTER_RE.test(text) ? /tool call (\S+) above\.\]$/.exec(text) : null;
      if (pointer && maskedIds.has(pointer[1]!)) text = full(byId.get(pointer[1]!)!);
      // A run names lines of its target's own first-sight text, which are literal there.
      else
        text = expandReferences(text, (id, arg) =>
          arg === undefined ? (maskedIds.has(id) ? firstSight[byId.get(id)!] : undefined) : elidedArgument(id, arg),
        );
    }
    expanded.set(i, text);
    return text;
  };
  results.forEach((_, i) => {
    if (!masked.has(i)) texts[i] = full(i);
  });
}
