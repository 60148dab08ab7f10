import { Type, type Static } from '@sinclair/typebox';

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
export const ContentPartSchema = Type.Union([TextPartSchema, ImagePartSchema]);
export type ContentPart = Static<typeof ContentPartSchema>;

export const ToolCallSchema = Type.Object(
  {
    id: Type.String({ maxLength: 512 }),
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }), arguments: Type.String() }),
  },
  { additionalProperties: false },
);
export type ToolCall = Static<typeof ToolCallSchema>;

export const MessageSchema = Type.Object(
  {
    role: Type.Union([
      Type.Literal('system'),
      Type.Literal('developer'),
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('tool'),
    ]),
    content: Type.Optional(Type.Union([Type.String(), Type.Array(ContentPartSchema), Type.Null()])),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    tool_call_id: Type.Optional(Type.String({ maxLength: 512 })),
    refusal: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    tool_calls: Type.Optional(Type.Array(ToolCallSchema)),
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
        strict: Type.Optional(Type.Boolean()),
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

export const COMPRESSION_MODELS = ['claude', 'codex', 'opencode', 'cursor'] as const;

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
    gateway_tool_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    gateway_pending_id: Type.Optional(Type.String({ maxLength: 128 })),
    tags: Type.Optional(Type.Array(Type.String())),
    enable_debug: Type.Optional(Type.Boolean()),
    compression_model: Type.Optional(Type.Union(COMPRESSION_MODELS.map((m) => Type.Literal(m)))),
  },
  { additionalProperties: true },
);
export type ChatRequest = Static<typeof ChatRequestSchema>;
