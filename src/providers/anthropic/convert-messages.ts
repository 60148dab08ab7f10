import type { ChatMessage, ContentPart } from '../../canonical/chat-request.js';
import type { AnthropicBlock, AnthropicImageSource, AnthropicMessage, CacheControl } from './wire.js';
import { forTranslation, parseDataUrl, unsupportedInput } from '../shared/legacy-messages.js';

type TextBlock = Extract<AnthropicBlock, { type: 'text' }>;

function imageSource(url: string): AnthropicImageSource {
  const inline = parseDataUrl(url);
  if (inline) return { type: 'base64', media_type: inline.mimeType, data: inline.data };
  return { type: 'url', url };
}

function partToBlock(part: ContentPart): AnthropicBlock | undefined {
  const cache = (part as { cache_control?: CacheControl }).cache_control;
  const withCache = <T extends AnthropicBlock>(block: T): T => (cache ? { ...block, cache_control: cache } : block);
  switch (part.type) {
    case 'text':
      // Anthropic rejects empty text blocks.
      return part.text === '' ? undefined : withCache({ type: 'text', text: part.text });
    case 'refusal':
      return part.refusal === '' ? undefined : withCache({ type: 'text', text: part.refusal });
    case 'image_url':
      return withCache({ type: 'image', source: imageSource(part.image_url.url) });
    case 'file': {
      // PDFs and images inline are Anthropic document and image blocks; a file by id is OpenAI's.
      const inline = part.file.file_data ? parseDataUrl(part.file.file_data) : undefined;
      if (inline?.mimeType === 'application/pdf')
        return withCache({
          type: 'document',
          source: { type: 'base64', media_type: inline.mimeType, data: inline.data },
        });
      if (inline?.mimeType.startsWith('image/'))
        return withCache({ type: 'image', source: { type: 'base64', media_type: inline.mimeType, data: inline.data } });
      throw unsupportedInput('anthropic', inline ? `a file of type ${inline.mimeType}` : 'a file by file_id');
    }
    case 'input_audio':
      throw unsupportedInput('anthropic', 'audio input');
  }
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
  for (const message of forTranslation(messages)) {
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
