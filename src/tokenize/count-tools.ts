import { TOOL_DEFINITIONS_OVERHEAD } from './accounting.js';
import { countTextTokens } from './count-text.js';
import { countJsonTokens } from './json-fallback.js';
import { isRecord } from './json-fallback.js';
import {
  isMessagesStyleTool,
  renderAnthropicToolDefinitions,
  renderFunctionDefinitions,
  toFunctionDefinition,
  type FunctionDefinition,
} from './render-tool-definitions.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * Tokens of a request's tool definitions; 0 when there are none. Each kind is rendered the way
 * the provider that reads that shape shows it to the model: OpenAI-style function tools as
 * TypeScript, Anthropic-style client tools as JSON; anything else counts as its JSON.
 */
export function countToolDefinitions(tools: readonly unknown[], tokenizer: TokenizerName): number {
  if (tools.length === 0) return 0;
  const functions: FunctionDefinition[] = [];
  const anthropic: Record<string, unknown>[] = [];
  let total = TOOL_DEFINITIONS_OVERHEAD;
  for (const tool of tools) {
    if (isRecord(tool) && isMessagesStyleTool(tool)) {
      anthropic.push(tool);
      continue;
    }
    const fn = toFunctionDefinition(tool);
    if (fn) functions.push(fn);
    else total += countJsonTokens(tool, tokenizer);
  }
  // Tools are re-sent unchanged every turn, so the rendered text hits the text cache too.
  if (functions.length > 0) total += countTextTokens(renderFunctionDefinitions(functions), tokenizer);
  if (anthropic.length > 0) total += countTextTokens(renderAnthropicToolDefinitions(anthropic), tokenizer);
  return total;
}
