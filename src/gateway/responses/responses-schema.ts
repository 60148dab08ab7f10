import { Type, type Static } from '@sinclair/typebox';
import { GatewayMembersSchema } from '../../canonical/gateway-fields.js';
import { TokenLimitSchema } from '../../canonical/chat-request.js';

/**
 * The OpenAI Responses request (spec 2.3). The route schema checks the envelope; each input
 * item and content part is checked against its own schema while it is converted, so an error
 * names the exact item and field. Fields of OpenAI's API the gateway has no use for (include,
 * prompt_cache_key, service_tier, truncation, …) are accepted and ignored.
 */

const AnyItemSchema = Type.Object({ type: Type.Optional(Type.String()) }, { additionalProperties: true });

export const InputTextPartSchema = Type.Object(
  { type: Type.Literal('input_text'), text: Type.String() },
  { additionalProperties: true },
);
export const OutputTextPartSchema = Type.Object(
  { type: Type.Literal('output_text'), text: Type.String() },
  { additionalProperties: true },
);
export const RefusalPartSchema = Type.Object(
  { type: Type.Literal('refusal'), refusal: Type.String() },
  { additionalProperties: true },
);
export const InputImagePartSchema = Type.Object(
  {
    type: Type.Literal('input_image'),
    image_url: Type.String({ minLength: 1 }),
    detail: Type.Optional(
      Type.Union([Type.Literal('low'), Type.Literal('high'), Type.Literal('auto'), Type.Literal('original')]),
    ),
  },
  { additionalProperties: true },
);

export const MessageItemSchema = Type.Object(
  {
    type: Type.Optional(Type.Literal('message')),
    id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    role: Type.Union([
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('system'),
      Type.Literal('developer'),
    ]),
    content: Type.Union([
      Type.String(),
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    ]),
  },
  { additionalProperties: true },
);

export const FunctionCallItemSchema = Type.Object(
  {
    type: Type.Literal('function_call'),
    id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    call_id: Type.String({ minLength: 1, maxLength: 512 }),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    namespace: Type.Optional(Type.String()),
    arguments: Type.String(),
  },
  { additionalProperties: true },
);

export const FunctionCallOutputItemSchema = Type.Object(
  {
    type: Type.Literal('function_call_output'),
    id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    call_id: Type.String({ minLength: 1, maxLength: 512 }),
    output: Type.Union([
      Type.String(),
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    ]),
  },
  { additionalProperties: true },
);

export const FunctionToolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    parameters: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: true }, // defer_loading and members OpenAI adds
);

/** A `custom` tool: free-form text input, optionally constrained by a grammar (`format`). */
export const CustomToolSchema = Type.Object(
  {
    type: Type.Literal('custom'),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    format: Type.Optional(
      Type.Union([Type.Object({ type: Type.String() }, { additionalProperties: true }), Type.Null()]),
    ),
  },
  { additionalProperties: true },
);

export const CustomToolCallItemSchema = Type.Object(
  {
    type: Type.Literal('custom_tool_call'),
    id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    call_id: Type.String({ minLength: 1, maxLength: 512 }),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    namespace: Type.Optional(Type.String()),
    input: Type.String(),
  },
  { additionalProperties: true },
);

export const CustomToolCallOutputItemSchema = Type.Object(
  {
    type: Type.Literal('custom_tool_call_output'),
    id: Type.Optional(Type.String()),
    call_id: Type.String({ minLength: 1, maxLength: 512 }),
    output: Type.Union([
      Type.String(),
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    ]),
  },
  { additionalProperties: true },
);

export const ResponsesToolChoiceSchema = Type.Union([
  Type.Literal('auto'),
  Type.Literal('none'),
  Type.Literal('required'),
  Type.Object(
    { type: Type.String({ minLength: 1 }), name: Type.Optional(Type.String({ minLength: 1 })) },
    { additionalProperties: true },
  ),
]);

export const ResponsesRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    input: Type.Union([Type.String(), Type.Array(AnyItemSchema, { maxItems: 10_000 })]),
    instructions: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    stream: Type.Optional(Type.Boolean()),
    max_output_tokens: Type.Optional(Type.Union([TokenLimitSchema(), Type.Null()])),
    tools: Type.Optional(
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), { maxItems: 512 }),
    ),
    tool_choice: Type.Optional(ResponsesToolChoiceSchema),
    parallel_tool_calls: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
    top_p: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
    reasoning: Type.Optional(
      Type.Union([
        Type.Object(
          { effort: Type.Optional(Type.Union([Type.String(), Type.Null()])) },
          { additionalProperties: true },
        ),
        Type.Null(),
      ]),
    ),
    text: Type.Optional(
      Type.Object(
        { format: Type.Optional(Type.Object({ type: Type.String() }, { additionalProperties: true })) },
        { additionalProperties: true },
      ),
    ),
    previous_response_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    store: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
    user: Type.Optional(Type.String()),
    ...GatewayMembersSchema,
  },
  { additionalProperties: true },
);
export type ResponsesRequest = Static<typeof ResponsesRequestSchema>;
