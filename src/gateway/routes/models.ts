import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CatalogueModel } from '../../catalogue/catalogue.js';
import type { ApiKey } from '../../store/api-keys.js';
import type { GatewayServices } from '../gateway-services.js';
import { GatewayError } from '../../pipeline/errors.js';
import { providerNotSupported } from '../../pipeline/resolve-model.js';

const ModelsQuerySchema = Type.Object({ provider: Type.Optional(Type.String()) }, { additionalProperties: true });
const ModelParamsSchema = Type.Object({
  model: Type.String({ description: 'A model id, `{author_id}/{model_id}`, its slash encoded as %2F' }),
});
const AuthoredModelParamsSchema = Type.Object({ author: Type.String(), model: Type.String() });

/** Characters a model name may have in any spelling the catalogue resolves (resolve-name.ts). */
const MODEL_NAME = /^[a-zA-Z0-9_.:@/[\]-]+$/;

function modelObject(model: CatalogueModel) {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.ownedBy };
}

function allowedFor(key: ApiKey, model: CatalogueModel): boolean {
  return key.models.length === 0 || key.models.includes(model.id);
}

/**
 * GET /v1/models (spec 2.7) lists the models a request can be routed to now: active, with at
 * least one configured provider (its key set), and allowed for the calling key when the key is
 * limited to a list. `provider` is accepted and has no effect.
 *
 * GET /v1/models/{id} (OpenAI's "retrieve model") answers one of them in the same shape. The id
 * contains a slash (`openai/gpt-4o`); it may come encoded (`openai%2Fgpt-4o`, as the openai SDK
 * sends it) or not, and any spelling chat completions accept resolves. Unknown or inactive: 404
 * `model_not_found` in OpenAI's envelope; known but no provider configured: 400
 * `provider_not_supported`, as on chat completions; outside the key's list: 403 `forbidden`.
 */
export function registerModelsRoute(app: FastifyInstance, services: GatewayServices): void {
  app.get('/v1/models', { schema: { querystring: ModelsQuerySchema } }, async (request) => ({
    object: 'list',
    data: services.catalogue
      .routable()
      .filter((model) => allowedFor(request.apiKey, model))
      .map(modelObject),
  }));

  const retrieve = async (request: FastifyRequest, id: string) => {
    if (!MODEL_NAME.test(id)) {
      throw new GatewayError('bad_model_id', {
        message: `Model id "${id.slice(0, 80)}" must have the form {author_id}/{model_id}.`,
        param: 'model',
      });
    }
    const model = services.catalogue.resolve(id);
    if (!model) {
      throw new GatewayError('model_not_found', {
        status: 404,
        message: `The model "${id}" does not exist or is not active.`,
        param: 'model',
      });
    }
    if (!services.catalogue.isRoutable(model)) throw providerNotSupported(model);
    if (!allowedFor(request.apiKey, model)) {
      throw new GatewayError('forbidden', { message: `This API key may not use model "${model.id}".`, param: 'model' });
    }
    return modelObject(model);
  };
  // `openai%2Fgpt-4o` (the openai SDK encodes the id) is one path segment, decoded by the router.
  app.get<{ Params: { model: string } }>(
    '/v1/models/:model',
    { schema: { params: ModelParamsSchema } },
    async (request) => retrieve(request, request.params.model),
  );
  // `openai/gpt-4o` as curl sends it: two segments; the same operation, so not documented twice.
  app.get<{ Params: { author: string; model: string } }>(
    '/v1/models/:author/:model',
    { schema: { params: AuthoredModelParamsSchema, hide: true } },
    async (request) => retrieve(request, `${request.params.author}/${request.params.model}`),
  );
}
