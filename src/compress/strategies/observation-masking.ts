// History rewrite: outputs of old turns become a placeholder that states their size (masking
// halves SWE-agent cost at equal solve rate, arXiv 2508.21433). It changes what the provider
// has cached, so it runs only where the rewrite policy (rewrite-policy.ts) moved the boundary;
// between two moves every masked output is the same placeholder, byte for byte.
import { BoundedCache, registerCache } from '../cache.js';
import { footer } from '../filters/status-footer.js';
import { isPlaceholder, masked } from '../filters/markers.js';
import { envelopeExitCode } from '../formats/output-envelope.js';
import type { ToolResult } from '../types.js';

// Short outputs ("File updated.", exit codes) cost less than the placeholder and orient the model.
const MIN_SAVING = 200;

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

// Every request re-sends every masked result; its placeholder is built once. The status footer
// stays: a later output may have dropped its own copy of it at first sight.
const placeholders = registerCache(new BoundedCache<string>(4 * 1024 * 1024));
function placeholderFor(original: string, exitCode?: number): string {
  const kept = footer(original);
  const note = masked(countLines(original), original.length, exitCode);
  return kept.length > 0 ? `${note}\n${kept.join('\n')}` : note;
}

/** The placeholder `result` would get, or undefined when masking it would save too little. */
export function maskedText(result: ToolResult): string | undefined {
  if (!result.editable || isPlaceholder(result.text)) return undefined;
  // The placeholder stands for the envelope too (formats/content.ts): a failure's code stays.
  // Rare enough to be built each time; every other placeholder is built once.
  const exitCode = result.envelope ? envelopeExitCode(result.envelope) : undefined;
  const placeholder = exitCode
    ? placeholderFor(result.original, exitCode)
    : placeholders.getOrCompute(
        result.original,
        (original) => placeholderFor(original),
        (p) => p.length,
      );
  return result.text.length - placeholder.length >= MIN_SAVING ? placeholder : undefined;
}

/**
 * Which results are masked when every turn before `before` may be: all of them that save enough.
 * Depends on nothing after them, so it is the same in every request with this boundary.
 */
export function maskingPlan(results: readonly ToolResult[], before: number): Set<number> {
  const plan = new Set<number>();
  results.forEach((r, i) => {
    if (r.turn < before && maskedText(r) !== undefined) plan.add(i);
  });
  return plan;
}

export const OBSERVATION_MASKING = 'observation_masking';
