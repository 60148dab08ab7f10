import type { ChatMessage, ContentPart } from '../../canonical/chat-request.js';
import type { AnthropicBlock, AnthropicImageSource, AnthropicMessage, CacheControl } from './wire.js';

type TextBlock = Extract<AnthropicBlock, { type: 'text' }>;

function imageSource(url: string): AnthropicImageSource {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { type: 'base64', media_type: match[1] as string, data: match[2] as string };
  return { type: 'url', url };
}

function partToBlock(part: ContentPart): AnthropicBlock | undefined {
  if (part.type === 'text') {
    // Anthropic rejects empty text blocks.
    if (part.text === '') return undefined;
    return part.cache_control
      ? { type: 'text', text: part.text, cache_control: part.cache_control }
      : { type: 'text', text: part.text };
  }
  const cache = (part as { cache_control?: CacheControl }).cache_control;
  return { type: 'image', source: imageSource(part.image_url.url), ...(cache ? { cache_control: cache } : {}) };
}

function contentBlocks(content: ChatMessage['content']): AnthropicBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map(partToBlock).filter((b): b is AnthropicBlock => b !== undefined);
}

function textBlocks(content: ChatMessage['content']): TextBlock[] {
  return contentBlocks(content).filter((b): b is TextBlock => b.type === 'text');
}

function parseArguments(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A message-level cache_control marks the end of that message, i.e. its last block. */
function withMessageCache(blocks: AnthropicBlock[], cache: CacheControl | undefined): AnthropicBlock[] {
  const last = blocks[blocks.length - 1];
  if (!cache || !last) return blocks;
  return [...blocks.slice(0, -1), { ...last, cache_control: cache }];
}

function toAnthropic(message: ChatMessage): AnthropicMessage | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: contentBlocks(message.content) };
    case 'assistant': {
      const blocks: AnthropicBlock[] = textBlocks(message.content);
      for (const call of message.tool_calls ?? []) {
        blocks.push({
          type: 'tool_use',
          id: call.id,
          name: call.function.name,
          input: parseArguments(call.function.arguments),
        });
      }
      return { role: 'assistant', content: blocks };
    }
    case 'tool': {
      const content = typeof message.content === 'string' ? message.content : textBlocks(message.content);
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content }] };
    }
    default:
      return undefined; // system and developer go to the top-level `system`
  }
}

/**
 * Chat messages → Anthropic turns. Anthropic requires user and assistant to alternate, so
 * consecutive turns of one role are merged; that also puts consecutive tool results (tool role
 * → user role) into one user message, as Anthropic expects for parallel tool calls.
 */
export function convertMessages(messages: ChatMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    const converted = toAnthropic(message);
    if (!converted) continue;
    const blocks = withMessageCache(converted.content, message.cache_control);
    if (blocks.length === 0) continue;
    const previous = out[out.length - 1];
    if (previous && previous.role === converted.role) previous.content.push(...blocks);
    else out.push({ role: converted.role, content: blocks });
  }
  return out;
}

/** system and developer messages, in order, as Anthropic's top-level system prompt. */
export function convertSystem(messages: ChatMessage[]): string | TextBlock[] | undefined {
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer');
  if (system.length === 0) return undefined;
  const blocks = system.flatMap((m) => withMessageCache(textBlocks(m.content), m.cache_control)) as TextBlock[];
  if (blocks.length === 0) return undefined;
  // The plain-string form is kept when nothing needs block-level cache control.
  if (blocks.every((b) => !b.cache_control)) return blocks.map((b) => b.text).join('\n\n');
  return blocks;
}
