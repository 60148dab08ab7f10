// Order matters: trimming first (later strategies compare trimmed text), then pointers, then
// masking of what is still big, and tool definitions last (independent of the rest).
import type { Bundle } from './bundles.js';
import { BoundedCache, registerCache } from './cache.js';
import { duplicateReadElision } from './strategies/duplicate-read-elision.js';
import { observationMasking } from './strategies/observation-masking.js';
import type { Strategy, StrategyContext } from './strategies/strategy.js';
import { statusLineDedup } from './strategies/status-line-dedup.js';
import { structuredOutputMinification } from './strategies/structured-output-minification.js';
import { toolResultTrimming } from './strategies/tool-result-trimming.js';
import { toolSurfaceReduction } from './strategies/tool-surface-reduction.js';
import type { Conversation } from './types.js';
import { frozenBefore } from './window.js';

export const STRATEGIES: readonly Strategy[] = [
  toolResultTrimming,
  structuredOutputMinification,
  duplicateReadElision,
  statusLineDedup,
  observationMasking,
  toolSurfaceReduction,
];
export const STRATEGY_NAMES = STRATEGIES.map((s) => s.name);

// Agents whose own tools edit by line number need the numbers in file views.
const LINE_ADDRESSING = /\b(?:start_line|end_line|line_number|lineno|line_start|line_end|start_line_number)\b/;

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
}

/** Runs the strategies in order; returns the names of those that changed something. */
export function runPipeline(conversation: Conversation, bundle: Bundle, opts: PipelineOptions = {}): string[] {
  const ctx: StrategyContext = {
    bundle,
    frozenBefore: frozenBefore(conversation.turnCount, bundle.window),
    stripLineNumbers: bundle.stripLineNumbers === 'auto' ? !keepsLineNumbers(conversation) : bundle.stripLineNumbers,
  };
  const applied: string[] = [];
  for (const strategy of STRATEGIES) {
    if (opts.only && !opts.only.includes(strategy.name)) continue;
    if (strategy.run(conversation, ctx)) applied.push(strategy.name);
  }
  return applied;
}
