import { Type, type Static } from '@sinclair/typebox';
import { UsageSummaryQuerySchema } from './usage.js';

const { period, from, to, granularity } = UsageSummaryQuerySchema.properties;

export const UsageSavingsQuerySchema = Type.Object(
  {
    period,
    from,
    to,
    granularity,
    group_by: Type.Optional(
      Type.Union([Type.Literal('api_key'), Type.Literal('model'), Type.Literal('day')], {
        default: 'model',
        description: 'Breakdown: per API key, per model, or per UTC day.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageSavingsQuery = Static<typeof UsageSavingsQuerySchema>;

const Micro = (description: string) => Type.Integer({ description: `${description} Micro-USD.` });

const Counts = {
  requests: Type.Integer(),
  input_tokens: Type.Integer({ description: 'Prompt tokens sent upstream, cached ones included.' }),
  output_tokens: Type.Integer(),
  cost_micro_usd: Micro('What was spent (catalogue prices).'),
  cache_read_tokens: Type.Integer({ description: 'Input tokens read from a prompt cache.' }),
  cache_write_tokens: Type.Integer({ description: 'Input tokens written to a prompt cache.' }),
  caching_savings_micro_usd: Micro(
    'Net saving of prompt caching: cache_read_savings_micro_usd − cache_write_extra_micro_usd. Can be negative.',
  ),
  cache_read_savings_micro_usd: Micro(
    'The cached reads at the model input price minus what they cost at its cached-read price.',
  ),
  cache_write_extra_micro_usd: Micro('What the cache writes cost above the plain input price.'),
  compressed_requests: Type.Integer({ description: 'Requests the gateway compressed.' }),
  compression_saved_tokens: Type.Integer({ description: 'Input tokens removed by compression.' }),
  compression_savings_micro_usd: Micro(
    'Money compression saved: recorded by the request path (caching counted), or estimated where not recorded.',
  ),
  compression_estimated_micro_usd: Micro(
    'The estimated part of compression_savings_micro_usd: removed tokens at the model input price, for requests whose saving was not recorded.',
  ),
  compression_estimated_requests: Type.Integer({ description: 'Requests whose compression saving is estimated.' }),
  estimated: Type.Boolean({ description: 'Whether any compression figure here is an estimate.' }),
  savings_micro_usd: Micro('compression_savings_micro_usd + caching_savings_micro_usd.'),
  cost_without_savings_micro_usd: Micro('cost_micro_usd + savings_micro_usd: what the same work would have cost.'),
  saved_fraction: Type.Union([Type.Number(), Type.Null()], {
    description: 'savings / cost without savings; null when both are zero.',
  }),
};

const Series = Type.Object(
  {
    cost_micro_usd: Type.Array(Type.Integer()),
    compression_savings_micro_usd: Type.Array(Type.Integer()),
    caching_savings_micro_usd: Type.Array(Type.Integer()),
    compression_estimated_micro_usd: Type.Array(Type.Integer()),
    input_tokens: Type.Array(Type.Integer()),
    cache_read_tokens: Type.Array(Type.Integer()),
    compression_saved_tokens: Type.Array(Type.Integer()),
  },
  { description: 'The totals per bucket: one value per bucket.' },
);

export const UsageSavingsSchema = Type.Object({
  object: Type.Literal('usage_savings'),
  organization_id: Type.String(),
  from: Type.String({ description: 'Start of the first bucket.' }),
  to: Type.String(),
  granularity: Type.String(),
  group_by: Type.String(),
  buckets: Type.Array(Type.String(), { description: 'Start of each bucket, oldest first.' }),
  totals: Type.Object(Counts),
  series: Series,
  groups: Type.Array(
    Type.Object({
      key: Type.String({ description: 'API key id, model id, UTC day (YYYY-MM-DD) or "(other)".' }),
      label: Type.String(),
      ...Counts,
    }),
    {
      description:
        'Keys and models: by savings, then spend; at most 10 plus "(other)". Days: every day of the window with usage, oldest first.',
    },
  ),
  unpriced_models: Type.Array(Type.String(), {
    description:
      'Models with usage in the window that are not in the catalogue: their caching savings and compression estimates are counted as 0.',
  }),
});
