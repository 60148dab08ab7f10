import { TOOL_DEFINITIONS_OVERHEAD } from './accounting.js';
import { countTextTokens } from './count-text.js';
import { countJsonTokens } from './json-fallback.js';
import { renderFunctionDefinitions, toFunctionDefinition, type FunctionDefinition } from './render-tool-definitions.js';
import type { TokenizerName } from './tokenizer-names.js';

/** Tokens of a request's tool definitions; 0 when there are none. */
export function countToolDefinitions(tools: readonly unknown[], tokenizer: TokenizerName): number {
  if (tools.length === 0) return 0;
  const functions: FunctionDefinition[] = [];
  let total = TOOL_DEFINITIONS_OVERHEAD;
  for (const tool of tools) {
    const fn = toFunctionDefinition(tool);
    if (fn) functions.push(fn);
    else total += countJsonTokens(tool, tokenizer);
  }
  // Tools are re-sent unchanged every turn, so the rendered text hits the text cache too.
  if (functions.length > 0) total += countTextTokens(renderFunctionDefinitions(functions), tokenizer);
  return total;
}
