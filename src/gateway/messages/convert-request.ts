import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  Tool,
  ToolCall,
  ToolChoice,
} from '../../canonical/chat-request.js';
import { checkValue } from '../schemas/check-value.js';
import { GatewayError } from '../errors.js';
import {
  ImageBlockSchema,
  RedactedThinkingBlockSchema,
  TextBlockSchema,
  ThinkingBlockSchema,
  ToolResultBlockSchema,
  ToolUseBlockSchema,
  type AnthropicCacheControl,
  type ImageBlock,
  type MessagesMessage,
  type MessagesRequest,
  type TextBlock,
} from './messages-schema.js';

/**
 * Anthropic Messages request → the gateway's canonical chat request, which every provider
 * adapter reads. What the chat shape cannot carry is listed in docs/agent-endpoints.md:
 * thinking blocks and the `thinking` setting, `top_k`, cache_control on tool definitions, and
 * `is_error` on tool results (kept as an "Error: " prefix on the result text).
 */
export function messagesToChat(body: MessagesRequest, modelId: string): ChatRequest {
  const chat: ChatRequest = {
    model: modelId,
    max_tokens: body.max_tokens,
    messages: [...systemMessages(body.system), ...conversation(body.messages)],
  };
  if (body.stream) chat.stream = true;
  const tools = convertTools(body.tools);
  if (tools) chat.tools = tools;
  if (body.tool_choice) {
    const choice = convertToolChoice(body.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (body.tool_choice.disable_parallel_tool_use === true && tools) chat.parallel_tool_calls = false;
  }
  const stop = (body.stop_sequences ?? []).filter((s) => s !== '');
  if (stop.length > 0) chat.stop = stop;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (typeof body.metadata?.user_id === 'string' && body.metadata.user_id) chat.user = body.metadata.user_id;
  if (body.tags !== undefined) chat.tags = body.tags;
  if (body.enable_debug !== undefined) chat.enable_debug = body.enable_debug;
  if (body.gateway_tool_ids !== undefined) chat.gateway_tool_ids = body.gateway_tool_ids;
  if (body.gateway_pending_id !== undefined) chat.gateway_pending_id = body.gateway_pending_id;
  if (body.compression_model !== undefined) chat.compression_model = body.compression_model;
  return chat;
}

function cacheOf(cache: AnthropicCacheControl | null | undefined): { cache_control?: { type: 'ephemeral' } } {
  return cache ? { cache_control: { type: 'ephemeral' } } : {};
}

function textPart(block: TextBlock): ContentPart {
  return { type: 'text', text: block.text, ...cacheOf(block.cache_control) };
}

function imagePart(block: ImageBlock): ContentPart {
  const url =
    block.source.type === 'base64' ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;
  return { type: 'image_url', image_url: { url }, ...cacheOf(block.cache_control) };
}

/** Plain string when that loses nothing (one text part, no cache hint), else the parts. */
function compact(parts: ContentPart[]): string | ContentPart[] {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text' && !only.cache_control) return only.text;
  return parts;
}

function systemMessages(system: MessagesRequest['system']): ChatMessage[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ role: 'system', content: system }];
  const parts = system.map((block, i) => textPart(checkValue(TextBlockSchema, block, `system[${i}]`, 'system block')));
  return parts.length === 0 ? [] : [{ role: 'system', content: compact(parts) }];
}

function conversation(messages: MessagesMessage[]): ChatMessage[] {
  return messages.flatMap((message, i) =>
    message.role === 'user' ? userTurn(message, i) : [assistantTurn(message, i)],
  );
}

/**
 * One Anthropic user turn can hold tool results and new input; in the chat shape tool results
 * are `tool` messages that must come straight after the assistant's calls, so they go first and
 * the rest follows as a user message. Images inside tool results move to that user message
 * (chat tool messages carry text only).
 */
function userTurn(message: MessagesMessage, i: number): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const toolMessages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  message.content.forEach((raw, j) => {
    const at = `messages[${i}].content[${j}]`;
    switch (raw.type) {
      case 'text':
        parts.push(textPart(checkValue(TextBlockSchema, raw, at, 'text block')));
        break;
      case 'image':
        parts.push(imagePart(checkValue(ImageBlockSchema, raw, at, 'image block')));
        break;
      case 'tool_result': {
        const block = checkValue(ToolResultBlockSchema, raw, at, 'tool_result block');
        const texts: string[] = [];
        if (typeof block.content === 'string') texts.push(block.content);
        else {
          (block.content ?? []).forEach((inner, k) => {
            const innerAt = `${at}.content[${k}]`;
            if (inner.type === 'text') texts.push(checkValue(TextBlockSchema, inner, innerAt, 'text block').text);
            else if (inner.type === 'image')
              parts.push(imagePart(checkValue(ImageBlockSchema, inner, innerAt, 'image block')));
            else throw unsupportedBlock(inner.type, innerAt);
          });
        }
        const text = texts.join('\n');
        toolMessages.push({
          role: 'tool',
          tool_call_id: block.tool_use_id,
          content: block.is_error ? `Error: ${text}` : text,
          ...cacheOf(block.cache_control),
        });
        break;
      }
      default:
        throw unsupportedBlock(raw.type, at, 'user');
    }
  });
  if (parts.length === 0) return toolMessages.length > 0 ? toolMessages : [{ role: 'user', content: '' }];
  return [...toolMessages, { role: 'user', content: compact(parts) }];
}

function assistantTurn(message: MessagesMessage, i: number): ChatMessage {
  if (typeof message.content === 'string') return { role: 'assistant', content: message.content };
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  let lastCache: AnthropicCacheControl | null | undefined;
  message.content.forEach((raw, j) => {
    const at = `messages[${i}].content[${j}]`;
    switch (raw.type) {
      case 'text': {
        const block = checkValue(TextBlockSchema, raw, at, 'text block');
        if (block.text !== '') parts.push(textPart(block));
        lastCache = block.cache_control;
        break;
      }
      case 'tool_use': {
        const block = checkValue(ToolUseBlockSchema, raw, at, 'tool_use block');
        calls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input) },
        });
        lastCache = block.cache_control;
        break;
      }
      // Reasoning of an earlier turn: no chat-shaped provider accepts it back.
      case 'thinking':
        checkValue(ThinkingBlockSchema, raw, at, 'thinking block');
        break;
      case 'redacted_thinking':
        checkValue(RedactedThinkingBlockSchema, raw, at, 'redacted_thinking block');
        break;
      default:
        throw unsupportedBlock(raw.type, at, 'assistant');
    }
  });
  const out: ChatMessage = {
    role: 'assistant',
    content: parts.length === 0 ? (calls.length > 0 ? null : '') : compactAssistant(parts),
  };
  if (calls.length > 0) {
    out.tool_calls = calls;
    // A cache breakpoint on the last tool_use marks the end of the turn: a message-level hint.
    if (lastCache) out.cache_control = { type: 'ephemeral' };
  }
  return out;
}

function compactAssistant(parts: ContentPart[]): string | ContentPart[] {
  if (parts.some((p) => p.type === 'text' && p.cache_control)) return parts;
  return parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

function convertTools(tools: MessagesRequest['tools']): Tool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool, i) => {
    if (tool.type !== undefined && tool.type !== 'custom') {
      throw new GatewayError('invalid_request', {
        message: `Server tool "${tool.type.slice(0, 60)}" is not supported by the gateway; only client tools {name, description, input_schema} are.`,
        param: `tools[${i}].type`,
      });
    }
    if (tool.input_schema === undefined)
      throw new GatewayError('invalid_request', {
        message: 'A tool needs input_schema.',
        param: `tools[${i}].input_schema`,
      });
    const fn: Tool['function'] = { name: tool.name, parameters: tool.input_schema };
    if (tool.description !== undefined) fn.description = tool.description;
    return { type: 'function', function: fn };
  });
}

function convertToolChoice(choice: NonNullable<MessagesRequest['tool_choice']>): ToolChoice | undefined {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      if (!choice.name)
        throw new GatewayError('invalid_request', {
          message: 'tool_choice of type "tool" needs a name.',
          param: 'tool_choice.name',
        });
      return { type: 'function', function: { name: choice.name } };
  }
}

function unsupportedBlock(type: string, at: string, role?: string): GatewayError {
  const where = role ? ` in ${role} messages` : ' here';
  return new GatewayError('invalid_request', {
    message: `Content block type "${type.slice(0, 60)}" is not supported${where}.`,
    param: `${at}.type`,
  });
}
