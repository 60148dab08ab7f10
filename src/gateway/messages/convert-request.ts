import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  Tool,
  ToolCall,
  ToolChoice,
} from '../../canonical/chat-request.js';
import { checkValue } from '../schemas/check-value.js';
import { GatewayError } from '../../pipeline/errors.js';
import { copyGatewayFields } from '../../canonical/gateway-fields.js';
import { anthropicPath } from './anthropic-errors.js';
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
 *
 * What only Anthropic's own API can run (server tools such as `web_search_20250305`, block
 * types with no chat equivalent: `document`, `server_tool_use`, `web_search_tool_result`, …,
 * images by `file_id`) is left out of the chat request and reported as `nativeOnly`: the
 * native path forwards the client's body untouched and never needs the chat request, the
 * translated path refuses with that error (Anthropic's type and wording).
 */
export interface MessagesConversion {
  chat: ChatRequest;
  /** The first part of the request the translation cannot carry; undefined when everything translates. */
  nativeOnly: GatewayError | undefined;
}

export function convertMessagesRequest(body: MessagesRequest, modelId: string): MessagesConversion {
  const state: Deferred = { first: undefined };
  const chat: ChatRequest = {
    model: modelId,
    max_tokens: body.max_tokens,
    messages: [...systemMessages(body.system), ...conversation(body.messages, state)],
  };
  if (body.stream) chat.stream = true;
  const tools = convertTools(body.tools, state);
  if (tools) chat.tools = tools;
  if (body.tool_choice && !choiceOfDroppedTool(body.tool_choice, tools, state)) {
    const choice = convertToolChoice(body.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (body.tool_choice.disable_parallel_tool_use === true && tools) chat.parallel_tool_calls = false;
  }
  const stop = (body.stop_sequences ?? []).filter((s) => s !== '');
  if (stop.length > 0) chat.stop = stop;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (typeof body.metadata?.user_id === 'string' && body.metadata.user_id) chat.user = body.metadata.user_id;
  copyGatewayFields(body, chat);
  return { chat, nativeOnly: state.first };
}

/** The translated path's view: the chat request, or the refusal of what it cannot carry. */
export function messagesToChat(body: MessagesRequest, modelId: string): ChatRequest {
  const { chat, nativeOnly } = convertMessagesRequest(body, modelId);
  if (nativeOnly) throw nativeOnly;
  return chat;
}

/** Collects the first native-only feature met while converting. */
interface Deferred {
  first: GatewayError | undefined;
}

function defer(state: Deferred, error: GatewayError): void {
  state.first ??= error;
}

/**
 * A refusal worded like Anthropic's own (`messages.1.content.0.type: …`: Anthropic writes the
 * path with dots), with the gateway's param alongside.
 */
function notTranslatable(param: string, what: string): GatewayError {
  return new GatewayError('invalid_request', {
    message: `${anthropicPath(param)}: ${what} is not supported when the request is translated for a provider other than Anthropic (or runs gateway tools); only Anthropic's own API runs it.`,
    param,
  });
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

function conversation(messages: MessagesMessage[], state: Deferred): ChatMessage[] {
  return messages.flatMap((message, i) => {
    switch (message.role) {
      case 'user':
        return userTurn(message, i, state);
      case 'assistant':
        return [assistantTurn(message, i, state)];
      case 'system':
        return systemTurn(message, i);
    }
  });
}

/**
 * A system message inside the conversation (beta `mid-conversation-system-2026-04-07`) stays a
 * system message at its place: OpenAI-style providers take it there, the Anthropic and Gemini
 * adapters join every system message into their system prompt (docs/agent-endpoints.md).
 * Text only, as Anthropic accepts; the refusal of anything else is worded so that Claude Code's
 * fallback (the same text as a `<system-reminder>` in the user turn) takes over.
 */
function systemTurn(message: MessagesMessage, i: number): ChatMessage[] {
  if (typeof message.content === 'string')
    return message.content === '' ? [] : [{ role: 'system', content: message.content }];
  const parts = message.content.map((raw, j) => {
    const at = `messages[${i}].content[${j}]`;
    if (raw.type !== 'text')
      throw new GatewayError('invalid_request', {
        message: `${anthropicPath(at)}.type: role "system" with content of type "${raw.type.slice(0, 60)}" is not supported; system messages hold text blocks only.`,
        param: `${at}.type`,
      });
    return textPart(checkValue(TextBlockSchema, raw, at, 'text block'));
  });
  return parts.length === 0 ? [] : [{ role: 'system', content: compact(parts) }];
}

/** An image block the chat shape can carry (base64 or URL source); others are native-only. */
function imageOf(raw: { type: string; [key: string]: unknown }, at: string, state: Deferred): ContentPart | undefined {
  const source = raw.source as { type?: unknown } | undefined;
  if (source && typeof source === 'object' && source.type !== 'base64' && source.type !== 'url') {
    defer(state, notTranslatable(`${at}.source.type`, `an image source of type "${String(source.type).slice(0, 60)}"`));
    return undefined;
  }
  return imagePart(checkValue(ImageBlockSchema, raw, at, 'image block'));
}

/**
 * One Anthropic user turn can hold tool results and new input; in the chat shape tool results
 * are `tool` messages that must come straight after the assistant's calls, so they go first and
 * the rest follows as a user message. Images inside tool results move to that user message
 * (chat tool messages carry text only).
 */
function userTurn(message: MessagesMessage, i: number, state: Deferred): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const toolMessages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  const push = (part: ContentPart | undefined) => {
    if (part) parts.push(part);
  };
  message.content.forEach((raw, j) => {
    const at = `messages[${i}].content[${j}]`;
    switch (raw.type) {
      case 'text':
        parts.push(textPart(checkValue(TextBlockSchema, raw, at, 'text block')));
        break;
      case 'image':
        push(imageOf(raw, at, state));
        break;
      case 'tool_result': {
        const block = checkValue(ToolResultBlockSchema, raw, at, 'tool_result block');
        const texts: string[] = [];
        if (typeof block.content === 'string') texts.push(block.content);
        else {
          (block.content ?? []).forEach((inner, k) => {
            const innerAt = `${at}.content[${k}]`;
            if (inner.type === 'text') texts.push(checkValue(TextBlockSchema, inner, innerAt, 'text block').text);
            else if (inner.type === 'image') push(imageOf(inner, innerAt, state));
            else
              defer(state, notTranslatable(`${innerAt}.type`, `a "${inner.type.slice(0, 60)}" block in a tool_result`));
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
        defer(state, notTranslatable(`${at}.type`, `content of type "${raw.type.slice(0, 60)}" in user messages`));
    }
  });
  if (parts.length === 0) return toolMessages.length > 0 ? toolMessages : [{ role: 'user', content: '' }];
  return [...toolMessages, { role: 'user', content: compact(parts) }];
}

function assistantTurn(message: MessagesMessage, i: number, state: Deferred): ChatMessage {
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
        defer(state, notTranslatable(`${at}.type`, `content of type "${raw.type.slice(0, 60)}" in assistant messages`));
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

/**
 * Client tools become function tools. A tool with another `type` is one Anthropic defines and
 * runs or prompts for itself (server tools: `web_search_…`, `web_fetch_…`, `code_execution_…`;
 * Anthropic-schema client tools: `bash_…`, `text_editor_…`, `computer_…`, `memory_…`): native only.
 */
function convertTools(tools: MessagesRequest['tools'], state: Deferred): Tool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  const out: Tool[] = [];
  tools.forEach((tool, i) => {
    if (tool.type !== undefined && tool.type !== 'custom') {
      defer(state, notTranslatable(`tools[${i}].type`, `the Anthropic-defined tool "${tool.type.slice(0, 60)}"`));
      return;
    }
    if (tool.input_schema === undefined)
      throw new GatewayError('invalid_request', {
        message: `tools.${i}.input_schema: Field required`,
        param: `tools[${i}].input_schema`,
      });
    const fn: Tool['function'] = { name: tool.name, parameters: tool.input_schema };
    if (tool.description !== undefined) fn.description = tool.description;
    out.push({ type: 'function', function: fn });
  });
  return out.length > 0 ? out : undefined;
}

/**
 * A tool_choice that names a native-only tool (or asks for any tool when only those were
 * offered) is left out of the chat request: the native path does not read it, the translated
 * one refuses the tool anyway.
 */
function choiceOfDroppedTool(
  choice: NonNullable<MessagesRequest['tool_choice']>,
  tools: Tool[] | undefined,
  state: Deferred,
): boolean {
  if (!state.first) return false;
  if (choice.type === 'any') return !tools;
  if (choice.type === 'tool') return !tools?.some((tool) => tool.function.name === choice.name);
  return false;
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
          message: 'tool_choice.name: Field required when tool_choice.type is "tool".',
          param: 'tool_choice.name',
        });
      return { type: 'function', function: { name: choice.name } };
  }
}
