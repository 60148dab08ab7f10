import { Type, type Static } from '@sinclair/typebox';

export const CODING_ASSISTANTS = ['claude_code', 'codex', 'opencode'] as const;

const ModelIdList = Type.Array(Type.String({ pattern: '^[a-zA-Z0-9_.-]+/[a-zA-Z0-9_.:@-]+$', maxLength: 256 }), {
  maxItems: 500,
  uniqueItems: true,
});
/** PostgreSQL text cannot hold U+0000: refused here as a 400 instead of failing in the database as a 500. */
const NO_NUL = '^[^\\u0000]*$';
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL });
const Id = Type.String({ maxLength: 100, pattern: NO_NUL });

/** Whole USD per month; the upper bound keeps micro-USD arithmetic exact in a double. */
const MaxUsage = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });

const CacheBreakpoints = Type.Boolean({
  description:
    "The gateway manages the provider's prompt cache for this key: cache_control breakpoints on Anthropic upstreams, a stable prompt_cache_key on OpenAI. On by default; a request overrides it with X-Gateway-Cache-Breakpoints: on|off.",
});

const OutputBrevity = Type.Boolean({
  description:
    'The gateway adds a fixed instruction asking the model to answer without filler (output tokens cost 4-5x input). Off by default; a request overrides it with X-Gateway-Output-Brevity: on|off.',
});

const ToolSurface = Type.Boolean({
  description:
    "A new conversation of this key drops the tool groups (MCP servers, namespaces) the key's finished conversations offered 24+ times and never called, decided once per conversation and kept byte for byte. On by default; a request overrides it with X-Gateway-Tool-Surface: on|off.",
});

const MemberId = Type.Union([Type.String({ minLength: 1, maxLength: 100, pattern: NO_NUL }), Type.Null()], {
  description: "The member of this organization who owns the key (docs/members.md); null: the organization's own key.",
});

export const CreateApiKeyBodySchema = Type.Object(
  {
    name: Name,
    type: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('coding_agent')])),
    coding_assistant: Type.Optional(Type.Union(CODING_ASSISTANTS.map((c) => Type.Literal(c)))),
    models: Type.Optional(ModelIdList),
    max_usage: Type.Optional(Type.Union([MaxUsage, Type.Null()])),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    email: Type.Optional(Type.String({ maxLength: 320, pattern: '^[^@\\s\\u0000]+@[^@\\s\\u0000]+$' })),
    debug_mode: Type.Optional(Type.Boolean()),
    compression: Type.Optional(Type.Boolean()),
    cache_breakpoints: Type.Optional(CacheBreakpoints),
    output_brevity: Type.Optional(OutputBrevity),
    tool_surface: Type.Optional(ToolSurface),
    member_id: Type.Optional(MemberId),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

/** Only these fields may change (OWASP API3: no mass assignment of organization_id, key, spend…). */
export const UpdateApiKeyBodySchema = Type.Object(
  {
    name: Type.Optional(Name),
    active: Type.Optional(Type.Boolean()),
    models: Type.Optional(ModelIdList),
    max_usage: Type.Optional(Type.Union([MaxUsage, Type.Null()])),
    compression: Type.Optional(Type.Boolean()),
    cache_breakpoints: Type.Optional(CacheBreakpoints),
    output_brevity: Type.Optional(OutputBrevity),
    tool_surface: Type.Optional(ToolSurface),
    debug_mode: Type.Optional(Type.Boolean()),
    type: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('coding_agent')])),
    coding_assistant: Type.Optional(Type.Union([...CODING_ASSISTANTS.map((c) => Type.Literal(c)), Type.Null()])),
    expires_in_days: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], {
        description: 'A new expiry, counted in days from now; null: the key never expires.',
      }),
    ),
    member_id: Type.Optional(MemberId),
  },
  { additionalProperties: false },
);
export type UpdateApiKeyBody = Static<typeof UpdateApiKeyBodySchema>;

export const ApiKeyParamsSchema = Type.Object({
  orgId: Id,
  apiKeyId: Id,
});
export const OrgParamsSchema = Type.Object({ orgId: Id });
