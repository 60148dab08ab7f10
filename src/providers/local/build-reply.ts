import { createHash } from 'node:crypto';
import type { ChatRequest, ToolCall } from '../../canonical/chat-request.js';
import { countTextTokens, type TokenizerName } from '../../tokenize/index.js';
import type { FinishReason } from '../../canonical/completion.js';
import { textOf } from '../shared/text-content.js';

export interface LocalReply {
  content: string | null;
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
}

const TOOL_COMMAND = /^\/tool\s+(\S+)\s*([\s\S]*)$/;

function lastOf<T>(items: T[], predicate: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i] as T)) return items[i];
  return undefined;
}

/** Stable ids keep the echo model deterministic: same request, same answer. */
function toolCallId(name: string, args: string): string {
  return `call_local_${createHash('sha256').update(`${name}\0${args}`).digest('hex').slice(0, 16)}`;
}

/** Drops trailing words until the text fits in maxTokens. */
function truncateToTokens(text: string, maxTokens: number, tokenizer: TokenizerName): string {
  if (countTextTokens(text, tokenizer) <= maxTokens) return text;
  const words = text.split(/(?<=\s)/);
  let low = 0;
  let high = words.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countTextTokens(words.slice(0, mid).join(''), tokenizer) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  return words.slice(0, low).join('').trimEnd();
}

/**
 * The echo model's rules, in order:
 * 1. The conversation ends with tool results → `Tool result: <text of the results>`.
 * 2. The request has tools and the last user message is `/tool <name> <json-args>` naming one of
 *    them → a tool call to it (arguments passed through verbatim, `{}` when omitted).
 * 3. Otherwise → `Echo: <text of the last user message>`.
 * max_tokens (or max_completion_tokens) truncates the text on a word boundary, finish `length`.
 */
export function buildLocalReply(request: ChatRequest, tokenizer: TokenizerName): LocalReply {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  let text: string;
  if (last?.role === 'tool') {
    const trailing: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--)
      trailing.unshift(textOf(messages[i]?.content));
    text = `Tool result: ${trailing.join('\n')}`;
  } else {
    const userText = textOf(lastOf(messages, (m) => m.role === 'user')?.content).trim();
    const command = TOOL_COMMAND.exec(userText);
    const tool = command && request.tools?.find((t) => t.function.name === command[1]);
    if (command && tool) {
      const args = command[2]?.trim() || '{}';
      const call: ToolCall = {
        id: toolCallId(tool.function.name, args),
        type: 'function',
        function: { name: tool.function.name, arguments: args },
      };
      return { content: null, toolCalls: [call], finishReason: 'tool_calls' };
    }
    text = `Echo: ${userText}`;
  }
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens !== undefined) {
    const truncated = truncateToTokens(text, maxTokens, tokenizer);
    if (truncated !== text) return { content: truncated, finishReason: 'length' };
  }
  return { content: text, finishReason: 'stop' };
}

/** Splits text on word boundaries into 3–8 pieces (fewer when there are fewer words). */
export function splitIntoChunks(text: string): string[] {
  const words = text.split(/(?<=\s)/).filter((w) => w !== '');
  if (words.length === 0) return [];
  const pieces = Math.min(words.length, Math.max(3, Math.min(8, Math.ceil(words.length / 2))));
  const per = Math.ceil(words.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}
