import { IMAGE_TOKENS_MESSAGES_STYLE, TOKENS_PER_MESSAGE, TOKENS_PER_TOOL_CALL } from './accounting.js';
import { countTextTokens } from './count-text.js';
import { countJsonTokens, isRecord } from './json-fallback.js';
import type { TokenizerName } from './tokenizer-names.js';

/**
 * One messages-style (Anthropic) message. Anthropic publishes no framing costs, so the chat
 * framing is reused: the counts of both formats then agree for the same conversation.
 */
export function countMessagesStyleMessage(message: Record<string, unknown>, tokenizer: TokenizerName): number {
  let total = TOKENS_PER_MESSAGE;
  if (typeof message.role === 'string') total += countTextTokens(message.role, tokenizer);
  return total + countBlocks(message.content, tokenizer);
}

/** Content as a string or an array of blocks; also the shape of `system` and of tool results. */
export function countBlocks(content: unknown, tokenizer: TokenizerName): number {
  if (typeof content === 'string') return countTextTokens(content, tokenizer);
  if (content === null || content === undefined) return 0;
  if (!Array.isArray(content)) return countJsonTokens(content, tokenizer);
  let total = 0;
  for (const block of content) total += countBlock(block, tokenizer);
  return total;
}

function countBlock(block: unknown, tokenizer: TokenizerName): number {
  if (!isRecord(block)) return countJsonTokens(block, tokenizer);
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string') return countTextTokens(block.text, tokenizer);
      break;
    case 'thinking':
      // The signature is an opaque integrity check, not text the model reads.
      if (typeof block.thinking === 'string') return countTextTokens(block.thinking, tokenizer);
      break;
    case 'tool_use': {
      let total = TOKENS_PER_TOOL_CALL + countJsonTokens(block.input ?? {}, tokenizer);
      if (typeof block.name === 'string') total += countTextTokens(block.name, tokenizer);
      return total;
    }
    case 'tool_result':
      return countBlocks(block.content, tokenizer);
    case 'image':
      return IMAGE_TOKENS_MESSAGES_STYLE;
  }
  return countJsonTokens(block, tokenizer);
}
