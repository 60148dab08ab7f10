import { Type, type Static } from '@sinclair/typebox';

const KeyIdList = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1_000, uniqueItems: true });

/** Every member optional; what is omitted keeps its current value. */
export const UpdateGatewayToolBodySchema = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    active_key_ids: Type.Optional(Type.Union([KeyIdList, Type.Null()])),
    hydrate: Type.Optional(Type.Boolean()),
    hydrate_key_ids: Type.Optional(KeyIdList),
  },
  { additionalProperties: false },
);
export type UpdateGatewayToolBody = Static<typeof UpdateGatewayToolBodySchema>;

export const GatewayToolParamsSchema = Type.Object({
  orgId: Type.String({ maxLength: 100 }),
  toolId: Type.String({ maxLength: 100 }),
});
