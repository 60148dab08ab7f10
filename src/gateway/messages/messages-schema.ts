import { Type, type Static } from '@sinclair/typebox';
import { GatewayMembersSchema } from '../../canonical/gateway-fields.js';
import { MAX_TOKEN_COUNT, TokenLimitSchema } from '../../canonical/chat-request.js';

/**
 * The Anthropic Messages request (spec 2.2 and Anthropic's full shape). The route schema checks
 * the envelope; each content block is then checked against its own schema below while it is
 * converted (see convert-request.ts), so that an error names the exact block and field instead
 * of an `anyOf` mismatch. Unknown members Anthropic adds, at any depth (top level, messages,
 * content blocks, tools, `tool_choice`: `cache_control.scope`, `tool_use.caller`,
 * `messages[].output_config` of Claude Code 2.1.332, …), are accepted: forwarded on the native
 * path, dropped by the translation, which copies only the members it reads. Those members keep
 * their types checked; a client never learns of a new member from a 400 (issue 27, row 6).
 */

export const CacheControlSchema = Type.Object(
  { type: Type.Literal('ephemeral'), ttl: Type.Optional(Type.String()) },
  { additionalProperties: true }, // scope (beta prompt-caching-scope-2026-01-05)
);
export type AnthropicCacheControl = Static<typeof CacheControlSchema>;

export const TextBlockSchema = Type.Object(
  {
    type: Type.Literal('text'),
    text: Type.String(),
    cache_control: Type.Optional(Type.Union([CacheControlSchema, Type.Null()])),
  },
  { additionalProperties: true }, // citations
);

export const ImageBlockSchema = Type.Object(
  {
    type: Type.Literal('image'),
    source: Type.Union([
      Type.Object(
        { type: Type.Literal('base64'), media_type: Type.String({ minLength: 1 }), data: Type.String() },
        { additionalProperties: true },
      ),
      Type.Object({ type: Type.Literal('url'), url: Type.String({ minLength: 1 }) }, { additionalProperties: true }),
    ]),
    cache_control: Type.Optional(Type.Union([CacheControlSchema, Type.Null()])),
  },
  { additionalProperties: true },
);

export const ToolUseBlockSchema = Type.Object(
  {
    type: Type.Literal('tool_use'),
    id: Type.String({ minLength: 1, maxLength: 512 }),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    input: Type.Record(Type.String(), Type.Unknown()),
    cache_control: Type.Optional(Type.Union([CacheControlSchema, Type.Null()])),
  },
  { additionalProperties: true }, // caller (programmatic tool calling)
);

export const ToolResultBlockSchema = Type.Object(
  {
    type: Type.Literal('tool_result'),
    tool_use_id: Type.String({ minLength: 1, maxLength: 512 }),
    content: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }))]),
    ),
    is_error: Type.Optional(Type.Boolean()),
    cache_control: Type.Optional(Type.Union([CacheControlSchema, Type.Null()])),
  },
  { additionalProperties: true },
);

export const ThinkingBlockSchema = Type.Object(
  { type: Type.Literal('thinking'), thinking: Type.String(), signature: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
export const RedactedThinkingBlockSchema = Type.Object(
  { type: Type.Literal('redacted_thinking'), data: Type.String() },
  { additionalProperties: true },
);

export type TextBlock = Static<typeof TextBlockSchema>;
export type ImageBlock = Static<typeof ImageBlockSchema>;
export type ToolUseBlock = Static<typeof ToolUseBlockSchema>;
export type ToolResultBlock = Static<typeof ToolResultBlockSchema>;

/** A block as the envelope schema sees it: its type is checked, its fields later. */
const AnyBlockSchema = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });

/**
 * `system` is a role since the beta `mid-conversation-system-2026-04-07` (Claude Code sends it
 * to every model): instructions at a point of the conversation, text only.
 */
export const MessagesMessageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    content: Type.Union([Type.String(), Type.Array(AnyBlockSchema)]),
  },
  { additionalProperties: true },
);

export const MessagesToolSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    type: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    input_schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    cache_control: Type.Optional(Type.Union([CacheControlSchema, Type.Null()])),
  },
  { additionalProperties: true },
);

export const MessagesToolChoiceSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('auto'), Type.Literal('any'), Type.Literal('tool'), Type.Literal('none')]),
    name: Type.Optional(Type.String({ minLength: 1 })),
    disable_parallel_tool_use: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export const MessagesRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    max_tokens: TokenLimitSchema(),
    messages: Type.Array(MessagesMessageSchema, { minItems: 1, maxItems: 10_000 }),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(AnyBlockSchema)])),
    stream: Type.Optional(Type.Boolean()),
    tools: Type.Optional(Type.Array(MessagesToolSchema, { maxItems: 512 })),
    tool_choice: Type.Optional(MessagesToolChoiceSchema),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    // A count of vocabulary entries: no vocabulary has ten million.
    top_k: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TOKEN_COUNT })),
    metadata: Type.Optional(
      Type.Object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, { additionalProperties: true }),
    ),
    thinking: Type.Optional(
      Type.Object(
        { type: Type.String(), budget_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TOKEN_COUNT })) },
        { additionalProperties: true },
      ),
    ),
    ...GatewayMembersSchema,
  },
  { additionalProperties: true },
);
export type MessagesRequest = Static<typeof MessagesRequestSchema>;
export type MessagesMessage = Static<typeof MessagesMessageSchema>;

/** /v1/messages/count_tokens: the same body without max_tokens (Anthropic does not require it there). */
export const MessagesCountTokensSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: Type.Array(MessagesMessageSchema, { maxItems: 10_000 }),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(AnyBlockSchema)])),
    tools: Type.Optional(Type.Array(MessagesToolSchema, { maxItems: 512 })),
  },
  { additionalProperties: true },
);
export type MessagesCountTokensRequest = Static<typeof MessagesCountTokensSchema>;
