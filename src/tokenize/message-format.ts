import { isRecord } from './json-fallback.js';

export type MessageFormat = 'chat' | 'messages';

// Block types that exist in only one of the two formats. `text` exists in both, and a string
// content means the same in both, so such messages need no decision: they count alike.
const MESSAGES_ONLY_BLOCKS = new Set(['tool_use', 'tool_result', 'image', 'thinking', 'redacted_thinking', 'document']);
const CHAT_ONLY_ROLES = new Set(['system', 'developer', 'tool', 'function']);

/**
 * Which wire format one message is written in, from its structure alone: a messages-style
 * (Anthropic) message is recognized by its content blocks; anything else is read as chat.
 * Decided per message because clients and the compressor may hand us mixed histories.
 */
export function detectMessageFormat(message: unknown): MessageFormat {
  if (!isRecord(message)) return 'chat';
  if ('tool_calls' in message || 'tool_call_id' in message || 'name' in message) return 'chat';
  if (typeof message.role === 'string' && CHAT_ONLY_ROLES.has(message.role)) return 'chat';
  if (!Array.isArray(message.content)) return 'chat';
  for (const block of message.content) {
    if (isRecord(block) && typeof block.type === 'string' && MESSAGES_ONLY_BLOCKS.has(block.type)) return 'messages';
  }
  return 'chat';
}
