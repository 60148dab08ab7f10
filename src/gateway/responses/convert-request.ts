import type { ChatMessage, ChatRequest, ContentPart, Tool, ToolChoice } from '../../canonical/chat-request.js';
import { checkValue } from '../schemas/check-value.js';
import { GatewayError } from '../errors.js';
import {
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  FunctionToolSchema,
  InputImagePartSchema,
  InputTextPartSchema,
  MessageItemSchema,
  OutputTextPartSchema,
  RefusalPartSchema,
  type ResponsesRequest,
} from './responses-schema.js';

type Part = { type: string; [key: string]: unknown };

/**
 * OpenAI Responses request → the gateway's canonical chat request. The Responses API keeps
 * conversation state on the server (`previous_response_id`, `store: true`); the gateway stores
 * nothing, so those are refused with a 400 naming the parameter. Reasoning items are dropped:
 * they are opaque to every provider but the one that wrote them.
 */
export function responsesToChat(body: ResponsesRequest, modelId: string): ChatRequest {
  if (body.previous_response_id)
    throw unsupported(
      'previous_response_id',
      'previous_response_id is not supported: the gateway stores no responses. Send the whole conversation in input.',
    );
  if (body.store === true)
    throw unsupported(
      'store',
      'store: true is not supported: the gateway stores no responses. Omit store or send store: false.',
    );

  const messages: ChatMessage[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else messages.push(...convertItems(body.input));
  if (messages.length === 0) throw unsupported('input', 'input must hold at least one message.');

  const chat: ChatRequest = { model: modelId, messages };
  if (body.stream) chat.stream = true;
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  const tools = convertTools(body.tools);
  if (tools) chat.tools = tools;
  if (body.tool_choice !== undefined) chat.tool_choice = convertToolChoice(body.tool_choice);
  if (typeof body.parallel_tool_calls === 'boolean' && tools) chat.parallel_tool_calls = body.parallel_tool_calls;
  if (typeof body.reasoning?.effort === 'string') chat.reasoning_effort = body.reasoning.effort;
  const responseFormat = convertTextFormat(body.text?.format);
  if (responseFormat) chat.response_format = responseFormat;
  if (body.user) chat.user = body.user;
  if (body.tags !== undefined) chat.tags = body.tags;
  if (body.enable_debug !== undefined) chat.enable_debug = body.enable_debug;
  if (body.gateway_tool_ids !== undefined) chat.gateway_tool_ids = body.gateway_tool_ids;
  if (body.gateway_pending_id !== undefined) chat.gateway_pending_id = body.gateway_pending_id;
  if (body.compression_model !== undefined) chat.compression_model = body.compression_model;
  return chat;
}

/**
 * Items in order. Consecutive function_call items join the assistant message before them (one
 * turn with parallel calls); function_call_output items become tool messages. Images returned
 * by a function go to a user message after the run of outputs (chat tool messages are text).
 */
function convertItems(items: Array<Record<string, unknown>>): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pendingImages: ContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  items.forEach((raw, i) => {
    const at = `input[${i}]`;
    const type = raw.type ?? 'message';
    if (type !== 'function_call_output') flushImages();
    switch (type) {
      case 'message': {
        const item = checkValue(MessageItemSchema, raw, at, 'message item');
        out.push(convertMessage(item.role, item.content, at));
        break;
      }
      case 'function_call': {
        const item = checkValue(FunctionCallItemSchema, raw, at, 'function_call item');
        const call = {
          id: item.call_id,
          type: 'function' as const,
          function: { name: item.name, arguments: item.arguments },
        };
        const last = out[out.length - 1];
        if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
        else out.push({ role: 'assistant', content: null, tool_calls: [call] });
        break;
      }
      case 'function_call_output': {
        const item = checkValue(FunctionCallOutputItemSchema, raw, at, 'function_call_output item');
        let text: string;
        if (typeof item.output === 'string') text = item.output;
        else {
          const texts: string[] = [];
          item.output.forEach((part, k) => {
            const partAt = `${at}.output[${k}]`;
            if (part.type === 'input_text' || part.type === 'output_text')
              texts.push(
                String(checkValue(InputTextPartSchema, { ...part, type: 'input_text' }, partAt, 'text part').text),
              );
            else if (part.type === 'input_image') pendingImages.push(imagePart(part, partAt));
            else
              throw unsupported(
                `${partAt}.type`,
                `Content part type "${part.type.slice(0, 60)}" is not supported in function_call_output.`,
              );
          });
          text = texts.join('\n');
        }
        out.push({ role: 'tool', tool_call_id: item.call_id, content: text });
        break;
      }
      case 'reasoning':
        break;
      default:
        throw unsupported(
          `${at}.type`,
          `Input item type "${String(type).slice(0, 60)}" is not supported; use message, function_call and function_call_output items.`,
        );
    }
  });
  flushImages();
  return out;
}

function convertMessage(
  role: 'user' | 'assistant' | 'system' | 'developer',
  content: string | Part[],
  at: string,
): ChatMessage {
  // `developer` is OpenAI's newer name for system; every adapter understands system.
  const chatRole = role === 'developer' ? 'system' : role;
  if (typeof content === 'string') return { role: chatRole, content };
  if (chatRole === 'assistant') {
    let text = '';
    let refusal = '';
    content.forEach((part, k) => {
      const partAt = `${at}.content[${k}]`;
      if (part.type === 'output_text' || part.type === 'input_text')
        text += checkValue(OutputTextPartSchema, { ...part, type: 'output_text' }, partAt, 'text part').text;
      else if (part.type === 'refusal') refusal += checkValue(RefusalPartSchema, part, partAt, 'refusal part').refusal;
      else
        throw unsupported(
          `${partAt}.type`,
          `Content part type "${part.type.slice(0, 60)}" is not supported in assistant messages.`,
        );
    });
    return refusal ? { role: 'assistant', content: text || null, refusal } : { role: 'assistant', content: text };
  }
  const parts: ContentPart[] = content.map((part, k) => {
    const partAt = `${at}.content[${k}]`;
    if (part.type === 'input_text' || part.type === 'output_text') {
      return {
        type: 'text' as const,
        text: checkValue(InputTextPartSchema, { ...part, type: 'input_text' }, partAt, 'text part').text,
      };
    }
    if (part.type === 'input_image' && chatRole === 'user') return imagePart(part, partAt);
    throw unsupported(
      `${partAt}.type`,
      `Content part type "${part.type.slice(0, 60)}" is not supported in ${role} messages.`,
    );
  });
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text') return { role: chatRole, content: only.text };
  return { role: chatRole, content: parts };
}

function imagePart(part: Part, at: string): ContentPart {
  if (part.image_url === undefined && part.file_id !== undefined)
    throw unsupported(`${at}.file_id`, 'Images by file_id are not supported; send image_url (a URL or a data: URL).');
  const image = checkValue(InputImagePartSchema, part, at, 'input_image part');
  return {
    type: 'image_url',
    image_url: {
      url: image.image_url,
      ...(image.detail && image.detail !== 'original' ? { detail: image.detail } : {}),
    },
  };
}

function convertTools(tools: ResponsesRequest['tools']): Tool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((raw, i) => {
    if (raw.type !== 'function') {
      throw unsupported(
        `tools[${i}].type`,
        `Tool type "${raw.type.slice(0, 60)}" is not supported; only function tools are.`,
      );
    }
    const tool = checkValue(FunctionToolSchema, raw, `tools[${i}]`, 'function tool');
    const fn: Tool['function'] = { name: tool.name, parameters: tool.parameters ?? { type: 'object', properties: {} } };
    if (typeof tool.description === 'string') fn.description = tool.description;
    if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
}

function convertToolChoice(choice: NonNullable<ResponsesRequest['tool_choice']>): ToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'auto' || choice.type === 'none' || choice.type === 'required') return { type: choice.type };
  if (choice.type === 'function') {
    if (!choice.name) throw unsupported('tool_choice.name', 'tool_choice of type "function" needs a name.');
    return { type: 'function', function: { name: choice.name } };
  }
  throw unsupported('tool_choice.type', `tool_choice type "${choice.type.slice(0, 60)}" is not supported.`);
}

/** Responses' `text.format` → chat's `response_format` (json_schema moves its members under `json_schema`). */
function convertTextFormat(
  format: NonNullable<ResponsesRequest['text']>['format'],
): Record<string, unknown> | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const { type: _type, ...schema } = format;
    return { type: 'json_schema', json_schema: schema };
  }
  throw unsupported('text.format.type', `text.format type "${format.type.slice(0, 60)}" is not supported.`);
}

function unsupported(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}
