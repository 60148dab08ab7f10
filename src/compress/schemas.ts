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

/**
 * The wire shapes by name, each compiled on its first check: TypeBox's generated checkers (code,
 * closures and their sources) for all 16 cost the idle process ~0.3 MB, and a deployment without
 * compression, or with one API only, never checks most of them (bench/README.md, "Issue 29: idle
 * memory after issue 30").
 */
const schemas = {
  ChatBody,
  ChatMessage,
  ChatTool,
  MessagesBody,
  MessagesMessage,
  ToolUseBlock,
  ToolResultBlock,
  MessagesTool,
  ResponsesBody,
  FunctionCallItem,
  FunctionCallOutputItem,
  CustomToolCallItem,
  CustomToolCallOutputItem,
  InputMessageItem,
  ResponsesTool,
  ResponsesNamedTool,
};
export type SchemaName = keyof typeof schemas;
const compiled: Partial<Record<SchemaName, TypeCheck<TSchema>>> = {};

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
  const checker = (compiled[name] ??= TypeCompiler.Compile<TSchema>(schemas[name]));
  if (checker.Check(value)) return;
  const first = checker.Errors(value).First();
  const param = first ? paramPath(base, first.path) : base || null;
  const reason = first ? first.message.toLowerCase() : 'invalid value';
  throw new CompressionInputError(`Invalid ${param ?? 'request body'}: ${reason}.`, param || null);
}
