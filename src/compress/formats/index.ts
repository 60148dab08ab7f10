import { CompressionInputError } from '../errors.js';
import type { RequestFormat } from '../types.js';
import { readChat } from './chat.js';
import { readMessages } from './messages.js';
import { readResponses } from './responses.js';
import type { FormatAdapter } from './shared.js';

export type { FormatAdapter } from './shared.js';

/** Rule 1 of 4.1: `system` → messages style, else `input` → responses style, else chat. */
export function detectFormat(body: Record<string, unknown>): RequestFormat {
  if ('system' in body) return 'messages';
  if ('input' in body) return 'responses';
  return 'chat';
}

export function readRequest(body: unknown): FormatAdapter {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new CompressionInputError('The request body must be a JSON object.', null);
  }
  const obj = body as Record<string, unknown>;
  const format = detectFormat(obj);
  if (format === 'messages') return readMessages(obj);
  if (format === 'responses') return readResponses(obj);
  // A body without `system` is chat by rule 1, but clients also send Anthropic blocks that way.
  if (hasAnthropicToolBlocks(obj.messages)) return readMessages(obj);
  return readChat(obj);
}

function hasAnthropicToolBlocks(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (m) =>
      m &&
      typeof m === 'object' &&
      Array.isArray((m as { content?: unknown }).content) &&
      (m as { content: unknown[] }).content.some((b) => {
        const type = b && typeof b === 'object' ? (b as { type?: unknown }).type : undefined;
        return type === 'tool_use' || type === 'tool_result';
      }),
  );
}
