import { Type, type Static } from '@sinclair/typebox';
import { MAX_ALLOW_LIST_ENTRIES } from '../../store/organization-allow-lists.js';

const ProviderId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]*$' });

/**
 * A provider's API key as it goes into an Authorization or x-api-key header: printable ASCII,
 * no spaces or line breaks (nothing that could split or extend a header).
 */
const ProviderSecret = Type.String({
  minLength: 8,
  maxLength: 4096,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'The provider API key; stored sealed and never returned (only its last 4 characters).',
});

export const AddProviderKeyBodySchema = Type.Object(
  { provider: ProviderId, key: ProviderSecret },
  { additionalProperties: false },
);
export type AddProviderKeyBody = Static<typeof AddProviderKeyBodySchema>;

export const RotateProviderKeyBodySchema = Type.Object({ key: ProviderSecret }, { additionalProperties: false });
export type RotateProviderKeyBody = Static<typeof RotateProviderKeyBodySchema>;

export const ProviderKeyParamsSchema = Type.Object({
  orgId: Type.String({ maxLength: 100, pattern: '^[^\\u0000]*$' }),
  providerId: ProviderId,
});

const ModelList = Type.Array(Type.String({ pattern: '^[a-zA-Z0-9_.-]+/[a-zA-Z0-9_.:@-]+$', maxLength: 256 }), {
  maxItems: MAX_ALLOW_LIST_ENTRIES,
  uniqueItems: true,
});
const ProviderList = Type.Array(ProviderId, { maxItems: MAX_ALLOW_LIST_ENTRIES, uniqueItems: true });

/** Each list optional (omitted: kept); null lifts that restriction; [] allows nothing of that kind. */
export const UpdateAllowListsBodySchema = Type.Object(
  {
    models: Type.Optional(Type.Union([ModelList, Type.Null()])),
    providers: Type.Optional(Type.Union([ProviderList, Type.Null()])),
  },
  { additionalProperties: false },
);
export type UpdateAllowListsBody = Static<typeof UpdateAllowListsBodySchema>;
