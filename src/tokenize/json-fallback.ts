import { countTextTokens } from './count-text.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * Counts a structure we do not model (a new part type, a server tool) as its JSON text. The
 * model sees something at least that long in most renderings, so the estimate errs high
 * rather than silently dropping content from a budget.
 */
export function countJsonTokens(value: unknown, tokenizer: TokenizerName): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : countTextTokens(json, tokenizer);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
