import { Type, type Static } from '@sinclair/typebox';

export const USAGE_PERIODS = ['24h', '7d', '30d', '90d', 'mtd'] as const;

const isoTime = (description: string) =>
  Type.String({
    maxLength: 40,
    description: `${description} ISO 8601, e.g. 2026-05-01T00:00:00Z; a bare date is UTC midnight.`,
  });

export const UsageSummaryQuerySchema = Type.Object(
  {
    period: Type.Optional(
      Type.Union(
        USAGE_PERIODS.map((p) => Type.Literal(p)),
        {
          default: '7d',
          description:
            'Window ending now: the last 24 hours, 7, 30 or 90 days (whole UTC buckets), or the calendar month to date (UTC). Ignored when `from` is given.',
        },
      ),
    ),
    from: Type.Optional(isoTime('Start of a custom window (inclusive), rounded down to the bucket width.')),
    to: Type.Optional(isoTime('End of a custom window (exclusive); default now.')),
    granularity: Type.Optional(
      Type.Union([Type.Literal('hour'), Type.Literal('day')], {
        description: 'Bucket width (UTC). Default: hour for 24h, day otherwise.',
      }),
    ),
    group_by: Type.Optional(
      Type.Union([Type.Literal('model'), Type.Literal('provider'), Type.Literal('api_key'), Type.Literal('tag')], {
        default: 'model',
        description:
          'Breakdown. With `tag`, a request with several tags counts under each, so groups can add up to more than the totals.',
      }),
    ),
    member_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[^\\u0000]*$',
        description: "Only the usage attributed to this member (a `member` token's own, always).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageSummaryQuery = Static<typeof UsageSummaryQuerySchema>;

const Counts = {
  requests: Type.Integer(),
  errors: Type.Integer({ description: 'Requests answered with a status of 400 or more.' }),
  input_tokens: Type.Integer({ description: 'Prompt tokens, cached ones included.' }),
  output_tokens: Type.Integer(),
  cost_micro_usd: Type.Integer(),
  cost_usd: Type.Number(),
};

export const UsageSummarySchema = Type.Object({
  object: Type.Literal('usage_summary'),
  organization_id: Type.String(),
  from: Type.String({ description: 'Start of the first bucket.' }),
  to: Type.String(),
  granularity: Type.String(),
  group_by: Type.String(),
  buckets: Type.Array(Type.String(), {
    description: 'Start of each bucket, oldest first; every series has one value per bucket.',
  }),
  totals: Type.Object(Counts),
  groups: Type.Array(
    Type.Object({
      key: Type.String({
        description:
          'Model id, provider id, API key id, tag, "(untagged)" or "(other)" for the groups beyond the top ones.',
      }),
      label: Type.String(),
      ...Counts,
      series: Type.Object({
        requests: Type.Array(Type.Integer()),
        tokens: Type.Array(Type.Integer(), { description: 'Input plus output tokens.' }),
        cost_micro_usd: Type.Array(Type.Integer()),
      }),
    }),
    { description: 'Sorted by cost, then tokens; at most 10 plus "(other)".' },
  ),
});

export const KeySpendQuerySchema = Type.Object(
  {
    month: Type.Optional(
      Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'UTC month, YYYY-MM; default the current one.' }),
    ),
  },
  { additionalProperties: false },
);

export const KeySpendListSchema = Type.Object({
  object: Type.Literal('list'),
  month: Type.String(),
  data: Type.Array(
    Type.Object({
      api_key_id: Type.String(),
      name: Type.String(),
      active: Type.Boolean(),
      max_usage: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Monthly ceiling in whole USD; null: none.',
      }),
      spent_micro_usd: Type.Integer(),
      reserved_micro_usd: Type.Integer({ description: 'Held for requests in flight.' }),
      spent_usd: Type.Number(),
      used_fraction: Type.Union([Type.Number(), Type.Null()], {
        description: 'spent / ceiling; null without a ceiling.',
      }),
    }),
  ),
});

export const CurrentOrganizationSchema = Type.Object({
  object: Type.Literal('organization'),
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  created_at: Type.String(),
  token: Type.Object({
    id: Type.String(),
    name: Type.String(),
    permission: Type.String({ description: 'admin, write or read.' }),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    member: Type.Union(
      [
        Type.Object({
          id: Type.String(),
          email: Type.String(),
          role: Type.String({ description: 'owner, admin or member.' }),
        }),
        Type.Null(),
      ],
      { description: 'The member this token signs in as (docs/members.md); null: an organization-wide token.' },
    ),
  }),
});
