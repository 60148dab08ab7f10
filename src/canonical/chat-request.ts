import { Type, type Static } from '@sinclair/typebox';
import { EdgeeFieldsSchema, GatewayMembersSchema } from './gateway-fields.js';

/**
 * The OpenAI-compatible chat request (spec 2.1). Unknown top-level fields that OpenAI accepts
 * (temperature, top_p, stop, seed, response_format, user, …) are allowed and passed through to
 * adapters that understand them; the fields the gateway itself reads are typed here.
 */

/**
 * Bounds of every numeric field the gateway reads (docs/errors.md, "Numeric bounds"). The body
 * parser already refuses literals that overflow a double (`1e400`); these keep the rest in a
 * range where the budget arithmetic (tokens × micro-USD per token) stays exact. Ten million
 * tokens is ten times the largest context window offered today, so no real request reaches it.
 */
export const MAX_TOKEN_COUNT = 10_000_000;
/** A token budget the client sets (`max_tokens`, `max_output_tokens`, …): a whole number from 1 to MAX_TOKEN_COUNT. */
export const TokenLimitSchema = () => Type.Integer({ minimum: 1, maximum: MAX_TOKEN_COUNT });
/** Integers the gateway forwards but does not compute with (`seed`): any a double holds exactly. */
export const SafeIntegerSchema = () =>
  Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });

export const TextPartSchema = Type.Object(
  {
    type: Type.Literal('text'),
    text: Type.String(),
    cache_control: Type.Optional(Type.Object({ type: Type.Literal('ephemeral') })),
  },
  { additionalProperties: true },
);
export const ImagePartSchema = Type.Object(
  {
    type: Type.Literal('image_url'),
    image_url: Type.Object(
      { url: Type.String(), detail: Type.Optional(Type.String()) },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
/** Audio in a user message: base64 data and its format (`wav`, `mp3`). */
export const InputAudioPartSchema = Type.Object(
  {
    type: Type.Literal('input_audio'),
    input_audio: Type.Object({ data: Type.String(), format: Type.String() }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);
/** A file in a user message: inline `file_data` (a data: URL), or an uploaded `file_id`. */
export const FilePartSchema = Type.Object(
  {
    type: Type.Literal('file'),
    file: Type.Object(
      {
        file_data: Type.Optional(Type.String()),
        file_id: Type.Optional(Type.String()),
        filename: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
/** An assistant's refusal, as OpenAI returns it and clients send it back. */
export const RefusalPartSchema = Type.Object(
  { type: Type.Literal('refusal'), refusal: Type.String() },
  { additionalProperties: true },
);
export const ContentPartSchema = Type.Union([
  TextPartSchema,
  ImagePartSchema,
  InputAudioPartSchema,
  FilePartSchema,
  RefusalPartSchema,
]);
export type ContentPart = Static<typeof ContentPartSchema>;

/** `index` is what a streamed call carried; clients that rebuild messages from deltas send it back. */
export const ToolCallSchema = Type.Object(
  {
    id: Type.String({ maxLength: 512 }),
    type: Type.Literal('function'),
    function: Type.Object(
      { name: Type.String({ minLength: 1, maxLength: 256 }), arguments: Type.String() },
      { additionalProperties: true },
    ),
    index: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type ToolCall = Static<typeof ToolCallSchema>;

/** The deprecated single function call of an assistant message (before `tool_calls`). */
export const FunctionCallSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 256 }), arguments: Type.String() },
  { additionalProperties: true },
);

/**
 * Every member OpenAI accepts on a message, including what clients echo back from a response
 * (`refusal: null`, `annotations`, `audio: {id}`, `tool_calls: null`) and the deprecated
 * `function_call` / role `function` pair.
 */
export const MessageSchema = Type.Object(
  {
    role: Type.Union([
      Type.Literal('system'),
      Type.Literal('developer'),
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('tool'),
      Type.Literal('function'),
    ]),
    content: Type.Optional(Type.Union([Type.String(), Type.Array(ContentPartSchema), Type.Null()])),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    tool_call_id: Type.Optional(Type.String({ maxLength: 512 })),
    refusal: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    tool_calls: Type.Optional(Type.Union([Type.Array(ToolCallSchema), Type.Null()])),
    function_call: Type.Optional(Type.Union([FunctionCallSchema, Type.Null()])),
    audio: Type.Optional(Type.Union([Type.Object({ id: Type.String() }, { additionalProperties: true }), Type.Null()])),
    annotations: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
    cache_control: Type.Optional(Type.Object({ type: Type.Literal('ephemeral') })),
  },
  { additionalProperties: false },
);
export type ChatMessage = Static<typeof MessageSchema>;

export const ToolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 256 }),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Tool = Static<typeof ToolSchema>;

export const ToolChoiceSchema = Type.Union([
  Type.Literal('none'),
  Type.Literal('auto'),
  Type.Literal('required'),
  Type.Object(
    { type: Type.Union([Type.Literal('auto'), Type.Literal('none'), Type.Literal('required')]) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('function'),
      function: Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
]);
export type ToolChoice = Static<typeof ToolChoiceSchema>;

export { COMPRESSION_MODELS } from './gateway-fields.js';

export const ChatRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: Type.Array(MessageSchema, { minItems: 1, maxItems: 10_000 }),
    max_tokens: Type.Optional(TokenLimitSchema()),
    max_completion_tokens: Type.Optional(TokenLimitSchema()),
    stream: Type.Optional(Type.Boolean()),
    stream_options: Type.Optional(
      Type.Union([
        Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }),
        Type.Null(),
      ]),
    ),
    tools: Type.Optional(Type.Array(ToolSchema, { maxItems: 512 })),
    tool_choice: Type.Optional(ToolChoiceSchema),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 }), Type.Null()])),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1 })),
    seed: Type.Optional(SafeIntegerSchema()),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    user: Type.Optional(Type.String()),
    response_format: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    reasoning_effort: Type.Optional(Type.String()),
    ...GatewayMembersSchema,
    ...EdgeeFieldsSchema,
  },
  { additionalProperties: true },
);
export type ChatRequest = Static<typeof ChatRequestSchema>;
