import { Type, type Static } from '@sinclair/typebox';

/** PostgreSQL text cannot hold U+0000: refused here as a 400 instead of failing in the database as a 500. */
const Id = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]*$' });

export const LimitParamsSchema = Type.Object({ orgId: Id, limitId: Id });

const SubjectKind = Type.Union([Type.Literal('key'), Type.Literal('member'), Type.Literal('group')], {
  description: 'What the limit holds: one API key, every key of a member, or every key of a group’s members.',
});
const Metric = Type.Union([Type.Literal('spend'), Type.Literal('requests'), Type.Literal('tokens')]);
const Window = Type.Union(
  [Type.Literal('daily'), Type.Literal('monthly'), Type.Literal('lifetime'), Type.Literal('minute')],
  { description: 'spend: daily, monthly or lifetime; requests and tokens: minute.' },
);

export const LimitListQuerySchema = Type.Object(
  { subject_kind: Type.Optional(SubjectKind), subject_id: Type.Optional(Id) },
  { additionalProperties: false },
);
export type LimitListQuery = Static<typeof LimitListQuerySchema>;

export const SetLimitBodySchema = Type.Object(
  {
    subject_kind: SubjectKind,
    subject_id: Id,
    metric: Metric,
    window: Window,
    /** USD for spend (micro-USD precision); a whole count per minute for requests and tokens. */
    amount: Type.Number({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'spend: USD per window (6 decimals at most); requests, tokens: a whole number per minute.',
    }),
  },
  { additionalProperties: false },
);
export type SetLimitBody = Static<typeof SetLimitBodySchema>;

export const LimitSettingsBodySchema = Type.Object(
  {
    window_offset_minutes: Type.Integer({
      minimum: -720,
      maximum: 840,
      description: 'Daily and monthly windows start at midnight of UTC plus this many minutes (0: UTC).',
    }),
  },
  { additionalProperties: false },
);
export type LimitSettingsBody = Static<typeof LimitSettingsBodySchema>;
