import type { ChatMessage, ChatRequest, ContentPart, Tool, ToolChoice } from '../../canonical/chat-request.js';
import { checkValue } from '../schemas/check-value.js';
import { GatewayError } from '../../pipeline/errors.js';
import { copyGatewayFields } from '../../canonical/gateway-fields.js';
import {
  CustomToolCallItemSchema,
  CustomToolCallOutputItemSchema,
  CustomToolSchema,
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
import { declaredTools, FlatTools, type DeclaredTool } from './flat-tools.js';

type Part = { type: string; [key: string]: unknown };

/**
 * OpenAI Responses request → the gateway's canonical chat request, for providers that do not
 * speak Responses. Codex's tool declarations become flat function tools (flat-tools.ts):
 * `namespace` tools and the `additional_tools` input item are flattened, a `custom` tool
 * becomes a function taking `{input: string}`, and `custom_tool_call` / `custom_tool_call_output`
 * items become the matching tool call and result. Reasoning items are dropped: they are opaque
 * to every provider but the one that wrote them.
 *
 * What only OpenAI's own API can do is reported as `nativeOnly` (OpenAI's error type and
 * wording), not thrown: server-side state (`previous_response_id`, `store: true`), hosted tools
 * (`web_search`, `file_search`, `code_interpreter`, …) and their input items. A route that
 * forwards the body to OpenAI as it is never needs the chat request; one that translates
 * refuses with that error.
 */
export interface ResponsesConversion {
  chat: ChatRequest;
  nativeOnly: GatewayError | undefined;
}

export function convertResponsesRequest(body: ResponsesRequest, modelId: string): ResponsesConversion {
  const state: Deferred = { first: undefined };
  if (body.previous_response_id)
    defer(
      state,
      unsupported(
        'previous_response_id',
        'previous_response_id is not supported: the gateway stores no responses. Send the whole conversation in input.',
      ),
    );
  if (body.store === true)
    defer(
      state,
      unsupported(
        'store',
        'store: true is not supported: the gateway stores no responses. Omit store or send store: false.',
      ),
    );

  const names = FlatTools.of(body);
  const messages: ChatMessage[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else messages.push(...convertItems(body.input, names, state));
  // Only OpenAI-side items (item_reference, …): the native-only refusal says more than "empty".
  if (messages.length === 0 && !state.first) throw unsupported('input', 'input must hold at least one message.');

  const chat: ChatRequest = { model: modelId, messages };
  if (body.stream) chat.stream = true;
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  const tools = convertTools(declaredTools(body), names, state);
  if (tools) chat.tools = tools;
  if (body.tool_choice !== undefined) {
    const choice = convertToolChoice(body.tool_choice, names, tools);
    if (choice !== undefined) chat.tool_choice = choice;
  }
  if (typeof body.parallel_tool_calls === 'boolean' && tools) chat.parallel_tool_calls = body.parallel_tool_calls;
  if (typeof body.reasoning?.effort === 'string') chat.reasoning_effort = body.reasoning.effort;
  const responseFormat = convertTextFormat(body.text?.format);
  if (responseFormat) chat.response_format = responseFormat;
  if (body.user) chat.user = body.user;
  copyGatewayFields(body, chat);
  return { chat, nativeOnly: state.first };
}

/** The translated path's view: the chat request, or the refusal of what it cannot carry. */
export function responsesToChat(body: ResponsesRequest, modelId: string): ChatRequest {
  const { chat, nativeOnly } = convertResponsesRequest(body, modelId);
  if (nativeOnly) throw nativeOnly;
  return chat;
}

interface Deferred {
  first: GatewayError | undefined;
}

function defer(state: Deferred, error: GatewayError): void {
  state.first ??= error;
}

const INPUT_ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'additional_tools',
];

/**
 * Items in order. Consecutive tool-call items join the assistant message before them (one turn
 * with parallel calls); their outputs become tool messages. Images returned by a function go to
 * a user message after the run of outputs (chat tool messages are text).
 */
function convertItems(items: Array<Record<string, unknown>>, names: FlatTools, state: Deferred): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pendingImages: ContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  const addCall = (id: string, name: string, args: string) => {
    const call = { id, type: 'function' as const, function: { name, arguments: args } };
    const last = out[out.length - 1];
    if (last?.role === 'assistant' && last.tool_calls) last.tool_calls = [...last.tool_calls, call];
    else if (last?.role === 'assistant' && !last.tool_calls) last.tool_calls = [call];
    else out.push({ role: 'assistant', content: null, tool_calls: [call] });
  };
  const outputText = (output: string | Part[], at: string, what: string): string => {
    if (typeof output === 'string') return output;
    const texts: string[] = [];
    output.forEach((part, k) => {
      const partAt = `${at}.output[${k}]`;
      if (part.type === 'input_text' || part.type === 'output_text')
        texts.push(String(checkValue(InputTextPartSchema, { ...part, type: 'input_text' }, partAt, 'text part').text));
      else if (part.type === 'input_image') pendingImages.push(imagePart(part, partAt));
      else
        throw unsupported(
          `${partAt}.type`,
          `Invalid value: '${part.type.slice(0, 60)}'. Supported values in ${what} are: 'input_text', 'output_text' and 'input_image'.`,
        );
    });
    return texts.join('\n');
  };
  items.forEach((raw, i) => {
    const at = `input[${i}]`;
    const type = raw.type ?? 'message';
    if (type !== 'function_call_output' && type !== 'custom_tool_call_output') flushImages();
    switch (type) {
      case 'message': {
        const item = checkValue(MessageItemSchema, raw, at, 'message item');
        out.push(convertMessage(item.role, item.content, at));
        break;
      }
      case 'function_call': {
        const item = checkValue(FunctionCallItemSchema, raw, at, 'function_call item');
        addCall(item.call_id, names.flatName(item.name, item.namespace), item.arguments);
        break;
      }
      case 'custom_tool_call': {
        const item = checkValue(CustomToolCallItemSchema, raw, at, 'custom_tool_call item');
        addCall(item.call_id, names.flatName(item.name, item.namespace), JSON.stringify({ input: item.input }));
        break;
      }
      case 'function_call_output': {
        const item = checkValue(FunctionCallOutputItemSchema, raw, at, 'function_call_output item');
        out.push({
          role: 'tool',
          tool_call_id: item.call_id,
          content: outputText(item.output, at, 'function_call_output'),
        });
        break;
      }
      case 'custom_tool_call_output': {
        const item = checkValue(CustomToolCallOutputItemSchema, raw, at, 'custom_tool_call_output item');
        out.push({
          role: 'tool',
          tool_call_id: item.call_id,
          content: outputText(item.output, at, 'custom_tool_call_output'),
        });
        break;
      }
      // Tools declared as an input item: read with the others (flat-tools.ts).
      case 'additional_tools':
      case 'reasoning':
        break;
      default:
        // Items of hosted tools and server state (web_search_call, item_reference, …): OpenAI's own.
        defer(
          state,
          unsupported(
            `${at}.type`,
            `Invalid value: '${String(type).slice(0, 60)}'. Supported values are: ${quoteList(INPUT_ITEM_TYPES)} (other item types need an OpenAI model).`,
          ),
        );
    }
  });
  flushImages();
  return out;
}

function quoteList(values: string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
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

/**
 * Function and custom tools, namespaces flattened. Hosted tools (`web_search`, `file_search`,
 * `code_interpreter`, `computer_use_preview`, `image_generation`, `mcp`, `local_shell`, …) run on
 * OpenAI's side: native only.
 */
function convertTools(declared: DeclaredTool[], names: FlatTools, state: Deferred): Tool[] | undefined {
  const out: Tool[] = [];
  for (const { tool: raw, param, namespace } of declared) {
    if (raw.type === 'function') {
      const tool = checkValue(FunctionToolSchema, raw, param, 'function tool');
      const fn: Tool['function'] = {
        name: names.flatName(tool.name, namespace),
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      };
      if (typeof tool.description === 'string') fn.description = tool.description;
      if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
      out.push({ type: 'function', function: fn });
    } else if (raw.type === 'custom') {
      const tool = checkValue(CustomToolSchema, raw, param, 'custom tool');
      out.push(customAsFunction(tool, names.flatName(tool.name, namespace)));
    } else {
      defer(
        state,
        unsupported(
          `${param}.type`,
          `Invalid value: '${String(raw.type).slice(0, 60)}'. Supported values are: 'function', 'custom' and 'namespace' (tools OpenAI runs itself need an OpenAI model).`,
        ),
      );
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * A custom tool as a function taking one string, `input`: what the model writes is the tool's
 * free-form input. A grammar the provider cannot enforce is shown to the model instead.
 */
function customAsFunction(
  tool: { name: string; description?: string | null; format?: Record<string, unknown> | null },
  flatName: string,
): Tool {
  const format = tool.format;
  let input = 'The raw input of the tool, as free-form text (not JSON).';
  if (format && format.type === 'grammar' && typeof format.definition === 'string')
    input += ` It must match this ${String(format.syntax ?? '')} grammar:\n${format.definition}`;
  const fn: Tool['function'] = {
    name: flatName,
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: input } },
      required: ['input'],
      additionalProperties: false,
    },
  };
  if (tool.description) fn.description = tool.description;
  return { type: 'function', function: fn };
}

function convertToolChoice(
  choice: NonNullable<ResponsesRequest['tool_choice']>,
  names: FlatTools,
  tools: Tool[] | undefined,
): ToolChoice | undefined {
  if (typeof choice === 'string') return choice === 'required' && !tools ? undefined : choice;
  if (choice.type === 'auto' || choice.type === 'none' || choice.type === 'required') return { type: choice.type };
  if (choice.type === 'function' || choice.type === 'custom') {
    if (!choice.name) throw unsupported('tool_choice.name', `tool_choice of type "${choice.type}" needs a name.`);
    const named = (choice as { namespace?: unknown }).namespace;
    const namespace = typeof named === 'string' ? named : undefined;
    return { type: 'function', function: { name: names.flatName(choice.name, namespace) } };
  }
  // A hosted tool (web_search, …): the tool itself is refused on this path.
  return undefined;
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
