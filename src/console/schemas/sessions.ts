import { Type, type Static } from '@sinclair/typebox';
import { UsageSummaryQuerySchema } from './usage.js';
import { PagingQuerySchema } from './paging.js';

const { from, to } = UsageSummaryQuerySchema.properties;
const { limit, starting_after, last_key } = PagingQuerySchema.properties;

export const SessionListQuerySchema = Type.Object(
  {
    limit,
    starting_after,
    last_key,
    api_key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]*$' })),
    member_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]*$', description: 'Sessions of one member.' }),
    ),
    agent: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9_.-]{1,64}$',
        description: 'Agent name as its User-Agent gives it (claude-cli, codex_cli_rs, opencode), any version.',
      }),
    ),
    from,
    to,
  },
  { additionalProperties: false },
);
export type SessionListQuery = Static<typeof SessionListQuerySchema>;

export const SessionParamsSchema = Type.Object({
  orgId: Type.String({ maxLength: 100 }),
  sessionId: Type.String({ minLength: 1, maxLength: 256 }),
});

const Micro = (description: string) => Type.Integer({ description: `${description} Micro-USD.` });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** Tokens, cost and savings: the same members on a session and on each of its requests. */
const Figures = {
  requests: Type.Integer(),
  input_tokens: Type.Integer({ description: 'Prompt tokens sent upstream, cached reads and writes included.' }),
  cached_input_tokens: Type.Integer({ description: 'Input tokens read from the prompt cache.' }),
  cache_write_tokens: Type.Integer({ description: 'Input tokens written to the prompt cache.' }),
  output_tokens: Type.Integer(),
  cost_micro_usd: Micro('What was spent (catalogue prices).'),
  compression_savings_micro_usd: Micro('What compression saved, recorded or estimated (as usage/savings).'),
  caching_savings_micro_usd: Micro('What prompt caching saved: cheaper reads minus dearer writes.'),
  savings_micro_usd: Micro('Compression plus caching savings.'),
};

const Agent = {
  agent: Nullable(Type.String({ description: 'Agent name from its User-Agent; null when not a known agent.' })),
  agent_version: Nullable(Type.String()),
};

const Label = (what: string) => Nullable(Type.String({ description: `${what}; null when it is gone.` }));

/** What a session is, without who ran it (the shared view's members). */
const SessionCore = {
  object: Type.Literal('session'),
  id: Type.String({ description: 'The session id the client sent (X-Gateway-Session-Id or its own header).' }),
  ...Agent,
  models: Type.Array(Type.String()),
  started_at: Type.String({ description: "The first request's start." }),
  ended_at: Type.String({ description: "The last request's end." }),
  duration_ms: Type.Integer(),
  ...Figures,
};

export const SessionSchema = Type.Object({
  ...SessionCore,
  api_key_ids: Type.Array(Type.String()),
  api_keys: Type.Array(Type.Object({ id: Type.String(), name: Label("The key's name") })),
  members: Type.Array(
    Type.Object({ id: Type.String(), email: Label("The member's email"), name: Label("The member's name") }),
    { description: 'Members the rows are attributed to (the owner of the key when each request was served).' },
  ),
});

export const SessionListSchema = Type.Object({
  object: Type.Literal('list'),
  url: Type.String(),
  has_more: Type.Boolean(),
  last_key: Nullable(Type.String()),
  data: Type.Array(SessionSchema),
});

const RequestCore = {
  id: Type.String(),
  request_id: Type.String(),
  created_at: Type.String(),
  model: Type.String(),
  endpoint: Type.String(),
  ...Agent,
  status_code: Type.Integer(),
  error_code: Nullable(Type.String()),
  latency_ms: Type.Integer(),
  stream: Type.Boolean(),
  compression_strategies: Type.Array(Type.String(), {
    description: 'Names of the compression strategies applied to this request; empty when none.',
  }),
  ...Figures,
};

export const SessionRequestSchema = Type.Object({
  ...RequestCore,
  api_key_id: Type.String(),
  member_id: Nullable(Type.String()),
});

const Requests = {
  requests_truncated: Type.Boolean({ description: 'The session has more requests than the 5,000 listed.' }),
};

export const SessionDetailSchema = Type.Object({
  ...SessionSchema.properties,
  requests: Type.Array(SessionRequestSchema, { description: 'Oldest first.' }),
  ...Requests,
});

/** What a share link shows: the session and its requests, without keys or members. */
export const SharedSessionSchema = Type.Object({
  ...SessionCore,
  requests: Type.Array(Type.Object(RequestCore), { description: 'Oldest first.' }),
  ...Requests,
  shared_until: Type.String({ description: 'When the link expires.' }),
});

export const SessionFiltersSchema = Type.Object({
  object: Type.Literal('session_filters'),
  members: Type.Array(
    Type.Object({ id: Type.String(), email: Label("The member's email"), name: Label("The member's name") }),
  ),
  api_keys: Type.Array(Type.Object({ id: Type.String(), name: Label("The key's name") })),
  agents: Type.Array(Type.String()),
});
