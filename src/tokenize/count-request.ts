import { REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE } from './accounting.js';
import { countChatMessage } from './count-chat-message.js';
import { countBlocks, countMessagesStyleMessage } from './count-messages-style-message.js';
import { countTextTokens } from './count-text.js';
import { countToolDefinitions } from './count-tools.js';
import { countJsonTokens, isRecord } from './json-fallback.js';
import { detectMessageFormat } from './message-format.js';
import type { TokenizerName } from './tokenizer-names.js';

export interface CountableRequest {
  messages?: unknown[];
  system?: unknown;
  tools?: unknown[];
}

/**
 * Prompt tokens of a chat or messages-style body, format detected per message; a top-level
 * `system` (messages-style) counts as one more system message. Never throws on odd shapes:
 * what it does not model is counted as JSON text.
 */
export function countRequestTokens(body: CountableRequest, tokenizer: TokenizerName): number {
  let total = REPLY_PRIMING_TOKENS;
  if (body.system !== undefined && body.system !== null) {
    total += TOKENS_PER_MESSAGE + countTextTokens('system', tokenizer) + countBlocks(body.system, tokenizer);
  }
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) total += countMessageTokens(message, tokenizer);
  }
  if (Array.isArray(body.tools)) total += countToolDefinitions(body.tools, tokenizer);
  return total;
}

/**
 * One message of `messages`, framing included: a request's count is the sum of these plus its
 * system, tools and reply priming, so callers may count messages one at a time.
 */
export function countMessageTokens(message: unknown, tokenizer: TokenizerName): number {
  if (!isRecord(message)) return TOKENS_PER_MESSAGE + countJsonTokens(message, tokenizer);
  return detectMessageFormat(message) === 'messages'
    ? countMessagesStyleMessage(message, tokenizer)
    : countChatMessage(message, tokenizer);
}
