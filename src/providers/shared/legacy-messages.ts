import type { ChatMessage, ContentPart, ToolCall } from '../../canonical/chat-request.js';
import { UpstreamError } from '../types.js';

/**
 * Chat messages as the translating adapters (Anthropic, Gemini) read them. OpenAI gets the
 * client's messages as they are; for the others the deprecated `function_call` of an assistant
 * and the `function` message answering it become a tool call and its tool result (paired by
 * name, most recent call first), and an assistant's refusal (`refusal`, refusal parts) becomes
 * its text. Members only OpenAI reads (`audio`, `annotations`, `index`) are left unread.
 * Messages that need none of this are returned as they are (no copy).
 */
export function forTranslation(messages: ChatMessage[]): ChatMessage[] {
  if (!messages.some(needsRewrite)) return messages;
  const open: Array<{ name: string; id: string }> = [];
  let counter = 0;
  return messages.map((message): ChatMessage => {
    if (message.role === 'function') {
      const at = findLastIndex(open, (call) => call.name === message.name);
      const call = at >= 0 ? open.splice(at, 1)[0]! : undefined;
      if (!call) {
        // A result without its call: kept as what it says, not as a dangling tool result.
        return { role: 'user', content: `Result of function ${message.name ?? 'call'}: ${textOf(message.content)}` };
      }
      return { role: 'tool', tool_call_id: call.id, content: textOf(message.content) };
    }
    if (message.role !== 'assistant') return message;
    const { function_call: legacy, refusal, ...rest } = message;
    const out: ChatMessage = { ...rest };
    if (Array.isArray(out.content)) out.content = out.content.map(refusalAsText);
    if (refusal && (out.content === null || out.content === undefined || out.content === '')) out.content = refusal;
    if (legacy) {
      const id = `call_function_${counter++}`;
      open.push({ name: legacy.name, id });
      const call: ToolCall = { id, type: 'function', function: { name: legacy.name, arguments: legacy.arguments } };
      out.tool_calls = [...(out.tool_calls ?? []), call];
    }
    return out;
  });
}

function needsRewrite(message: ChatMessage): boolean {
  if (message.role === 'function') return true;
  if (message.role !== 'assistant') return false;
  return (
    Boolean(message.function_call) ||
    Boolean(message.refusal) ||
    (Array.isArray(message.content) && message.content.some((part) => part.type === 'refusal'))
  );
}

function refusalAsText(part: ContentPart): ContentPart {
  return part.type === 'refusal' ? { type: 'text', text: part.refusal } : part;
}

function textOf(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function findLastIndex<T>(items: T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

/**
 * Input the provider has no way to take (audio for Anthropic, a file by id): a final 400, as the
 * provider itself would answer; the router tries no other attempt of the same request.
 */
export function unsupportedInput(provider: string, what: string): UpstreamError {
  return new UpstreamError(`${provider} cannot take ${what}; send it to a model that accepts it`, {
    status: 400,
    retryable: false,
    kind: 'http',
  });
}

/** `data:<mime>;base64,<data>` → its parts; undefined for anything else. */
export function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mimeType: match[1]!, data: match[2]! } : undefined;
}
