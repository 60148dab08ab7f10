import { Type, type Static } from '@sinclair/typebox';
import { PagingQuerySchema } from './paging.js';

/** PostgreSQL text cannot hold U+0000: refused here as a 400 instead of failing in the database as a 500. */
const NO_NUL = '^[^\\u0000]*$';
const Id = Type.String({ minLength: 1, maxLength: 100, pattern: NO_NUL });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL });

/** Rules per organization, destinations per rule, thresholds per rule (docs/alerts.md, "Limits"). */
export const MAX_ALERT_RULES = 50;
export const MAX_DESTINATIONS = 5;
export const MAX_THRESHOLDS = 10;

const Target = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('organization_spend'),
      /** The organization budget the thresholds are percentages of, micro-USD (≤ $1 billion). */
      amount_micro_usd: Type.Integer({ minimum: 1, maximum: 1_000_000_000_000_000 }),
      window: Type.Union([Type.Literal('daily'), Type.Literal('monthly')]),
    },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('key_ceiling'), api_key_id: Id }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('limit'), limit_id: Id }, { additionalProperties: false }),
  Type.Object(
    {
      kind: Type.Literal('limits_of_kind'),
      subject_kind: Type.Union([Type.Literal('key'), Type.Literal('member'), Type.Literal('group')]),
    },
    { additionalProperties: false },
  ),
]);

const Thresholds = Type.Array(Type.Integer({ minimum: 1, maximum: 1000 }), {
  minItems: 1,
  maxItems: MAX_THRESHOLDS,
  uniqueItems: true,
  description: 'Percent of the amount (e.g. [50, 80, 100]); each fires once per window.',
});

const Destination = Type.Object(
  {
    kind: Type.Union([Type.Literal('slack'), Type.Literal('signed')]),
    url: Type.String({ minLength: 1, maxLength: 2048, pattern: NO_NUL }),
  },
  { additionalProperties: false },
);
const Destinations = Type.Array(Destination, { minItems: 1, maxItems: MAX_DESTINATIONS });

export const CreateAlertRuleBodySchema = Type.Object(
  {
    name: Name,
    target: Target,
    thresholds: Thresholds,
    destinations: Destinations,
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateAlertRuleBody = Static<typeof CreateAlertRuleBodySchema>;

/** The target is fixed at creation: a rule's fired alerts keep meaning what they said. */
export const UpdateAlertRuleBodySchema = Type.Object(
  {
    name: Type.Optional(Name),
    thresholds: Type.Optional(Thresholds),
    destinations: Type.Optional(Destinations),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateAlertRuleBody = Static<typeof UpdateAlertRuleBodySchema>;

export const AlertRuleParamsSchema = Type.Object({ orgId: Id, ruleId: Id });

export const FiredAlertsQuerySchema = Type.Composite([PagingQuerySchema, Type.Object({ rule_id: Type.Optional(Id) })], {
  additionalProperties: false,
});
export type FiredAlertsQuery = Static<typeof FiredAlertsQuerySchema>;
