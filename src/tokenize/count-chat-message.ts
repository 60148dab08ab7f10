import {
  IMAGE_TOKENS_DEFAULT,
  IMAGE_TOKENS_LOW_DETAIL,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  TOKENS_PER_TOOL_CALL,
} from './accounting.js';
import { countTextTokens } from './count-text.js';
import { countJsonTokens, isRecord } from './json-fallback.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * One OpenAI chat message: framing + role + content + name, as in OpenAI's recipe.
 * `tool_call_id` is not counted: the id is routing metadata, not rendered into the prompt.
 */
export function countChatMessage(message: Record<string, unknown>, tokenizer: TokenizerName): number {
  let total = TOKENS_PER_MESSAGE;
  if (typeof message.role === 'string') total += countTextTokens(message.role, tokenizer);
  total += countChatContent(message.content, tokenizer);
  if (typeof message.name === 'string') total += TOKENS_PER_NAME + countTextTokens(message.name, tokenizer);
  if (typeof message.refusal === 'string') total += countTextTokens(message.refusal, tokenizer);
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) total += countToolCall(call, tokenizer);
  }
  if (message.function_call !== undefined && message.function_call !== null) {
    total += countFunctionCall(message.function_call, tokenizer);
  }
  return total;
}

function countChatContent(content: unknown, tokenizer: TokenizerName): number {
  if (typeof content === 'string') return countTextTokens(content, tokenizer);
  if (content === null || content === undefined) return 0;
  if (!Array.isArray(content)) return countJsonTokens(content, tokenizer);
  let total = 0;
  for (const part of content) total += countChatPart(part, tokenizer);
  return total;
}

function countChatPart(part: unknown, tokenizer: TokenizerName): number {
  if (typeof part === 'string') return countTextTokens(part, tokenizer);
  if (!isRecord(part)) return countJsonTokens(part, tokenizer);
  if (part.type === 'text' && typeof part.text === 'string') return countTextTokens(part.text, tokenizer);
  if (part.type === 'refusal' && typeof part.refusal === 'string') return countTextTokens(part.refusal, tokenizer);
  if (part.type === 'image_url') {
    const detail = isRecord(part.image_url) ? part.image_url.detail : undefined;
    return detail === 'low' ? IMAGE_TOKENS_LOW_DETAIL : IMAGE_TOKENS_DEFAULT;
  }
  return countJsonTokens(part, tokenizer);
}

function countToolCall(call: unknown, tokenizer: TokenizerName): number {
  if (isRecord(call) && isRecord(call.function)) return countFunctionCall(call.function, tokenizer);
  return TOKENS_PER_TOOL_CALL + countJsonTokens(call, tokenizer);
}

function countFunctionCall(fn: unknown, tokenizer: TokenizerName): number {
  if (!isRecord(fn)) return TOKENS_PER_TOOL_CALL + countJsonTokens(fn, tokenizer);
  let total = TOKENS_PER_TOOL_CALL;
  if (typeof fn.name === 'string') total += countTextTokens(fn.name, tokenizer);
  if (typeof fn.arguments === 'string') total += countTextTokens(fn.arguments, tokenizer);
  else if (fn.arguments !== undefined) total += countJsonTokens(fn.arguments, tokenizer);
  return total;
}
