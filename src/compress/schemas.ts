// Wire shapes the engine must understand, validated (not trusted) before conversion.
// Schemas are deliberately open (extra members pass through untouched); they pin only what
// the converters read, so that an error can name the exact parameter.
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { CompressionInputError } from './errors.js';

const Obj = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: true });
const Part = Obj({ type: Type.String() });
const Parts = Type.Array(Part);

// 2.1 chat request
const ChatToolCall = Obj({
  id: Type.String(),
  function: Obj({ name: Type.String(), arguments: Type.String() }),
});
const ChatMessage = Obj({
  role: Type.String(),
  content: Type.Optional(Type.Union([Type.String(), Type.Null(), Parts])),
  tool_calls: Type.Optional(Type.Array(ChatToolCall)),
  tool_call_id: Type.Optional(Type.String()),
});
const ChatTool = Obj({ function: Obj({ name: Type.String() }) });
const ChatBody = Obj({
  messages: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1 }),
  tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
});

// 2.2 messages-style request with Anthropic content blocks
const ToolUseBlock = Obj({ type: Type.Literal('tool_use'), id: Type.String(), name: Type.String() });
const ToolResultBlock = Obj({
  type: Type.Literal('tool_result'),
  tool_use_id: Type.String(),
  content: Type.Optional(Type.Union([Type.String(), Parts])),
  is_error: Type.Optional(Type.Boolean()),
});
const MessagesMessage = Obj({ role: Type.String(), content: Type.Union([Type.String(), Parts]) });
const MessagesTool = Obj({ name: Type.String() });
const MessagesBody = Obj({
  messages: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1 }),
  system: Type.Optional(Type.Union([Type.String(), Parts])),
  tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
});

// 2.3 responses-style request
const FunctionCallItem = Obj({
  type: Type.Literal('function_call'),
  call_id: Type.String(),
  name: Type.String(),
  arguments: Type.String(),
});
const FunctionCallOutputItem = Obj({
  type: Type.Literal('function_call_output'),
  call_id: Type.String(),
  output: Type.Union([Type.String(), Parts]),
});
const CustomToolCallItem = Obj({
  type: Type.Literal('custom_tool_call'),
  call_id: Type.String(),
  name: Type.String(),
  input: Type.String(),
});
const CustomToolCallOutputItem = Obj({
  type: Type.Literal('custom_tool_call_output'),
  call_id: Type.String(),
  output: Type.Union([Type.String(), Parts]),
});
const InputMessageItem = Obj({ role: Type.String(), content: Type.Union([Type.String(), Parts]) });
const ResponsesTool = Obj({ type: Type.String() });
const ResponsesNamedTool = Obj({
  type: Type.Union([Type.Literal('function'), Type.Literal('custom')]),
  name: Type.String(),
});
const ResponsesBody = Obj({
  input: Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))]),
  instructions: Type.Optional(Type.String()),
  tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
});

const compiled = {
  ChatBody: TypeCompiler.Compile(ChatBody),
  ChatMessage: TypeCompiler.Compile(ChatMessage),
  ChatTool: TypeCompiler.Compile(ChatTool),
  MessagesBody: TypeCompiler.Compile(MessagesBody),
  MessagesMessage: TypeCompiler.Compile(MessagesMessage),
  ToolUseBlock: TypeCompiler.Compile(ToolUseBlock),
  ToolResultBlock: TypeCompiler.Compile(ToolResultBlock),
  MessagesTool: TypeCompiler.Compile(MessagesTool),
  ResponsesBody: TypeCompiler.Compile(ResponsesBody),
  FunctionCallItem: TypeCompiler.Compile(FunctionCallItem),
  FunctionCallOutputItem: TypeCompiler.Compile(FunctionCallOutputItem),
  CustomToolCallItem: TypeCompiler.Compile(CustomToolCallItem),
  CustomToolCallOutputItem: TypeCompiler.Compile(CustomToolCallOutputItem),
  InputMessageItem: TypeCompiler.Compile(InputMessageItem),
  ResponsesTool: TypeCompiler.Compile(ResponsesTool),
  ResponsesNamedTool: TypeCompiler.Compile(ResponsesNamedTool),
};
export type SchemaName = keyof typeof compiled;

/** `/messages/3/tool_calls/0/id` under base `messages[3]` → `messages[3].tool_calls[0].id`. */
function paramPath(base: string, pointer: string): string {
  let out = base;
  for (const seg of pointer.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    out = /^\d+$/.test(key) ? `${out}[${key}]` : out ? `${out}.${key}` : key;
  }
  return out;
}

/** Throws CompressionInputError naming the first offending parameter. */
export function check(name: SchemaName, value: unknown, base = ''): void {
  const checker: TypeCheck<TSchema> = compiled[name];
  if (checker.Check(value)) return;
  const first = checker.Errors(value).First();
  const param = first ? paramPath(base, first.path) : base || null;
  const reason = first ? first.message.toLowerCase() : 'invalid value';
  throw new CompressionInputError(`Invalid ${param ?? 'request body'}: ${reason}.`, param || null);
}
