import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { GatewayServices } from '../gateway-services.js';

const ModelsQuerySchema = Type.Object({ provider: Type.Optional(Type.String()) }, { additionalProperties: true });

/** GET /v1/models (spec 2.7): active models only; `provider` is accepted and has no effect. */
export function registerModelsRoute(app: FastifyInstance, services: GatewayServices): void {
  app.get('/v1/models', { schema: { querystring: ModelsQuerySchema } }, async () => ({
    object: 'list',
    data: services.catalogue.active().map((model) => ({
      id: model.id,
      object: 'model',
      created: model.created,
      owned_by: model.ownedBy,
    })),
  }));
}
