import type { Catalogue, CatalogueModel } from '../catalogue/catalogue.js';
import { MODEL_ID_PATTERN } from '../catalogue/catalogue.js';
import type { ApiKey } from '../store/api-keys.js';
import { GatewayError } from './errors.js';

/** `{author}/{model}` → an active catalogue model this key may use. */
export function resolveModel(catalogue: Catalogue, key: ApiKey, modelId: string): CatalogueModel {
  if (!MODEL_ID_PATTERN.test(modelId)) {
    throw new GatewayError('bad_model_id', {
      message: `Model id "${truncate(modelId)}" must have the form {author_id}/{model_id}.`,
      param: 'model',
    });
  }
  // A name the catalogue does not list is forwarded when it is well-formed for a configured provider.
  const model = catalogue.resolveForCall(modelId);
  if (!model)
    throw new GatewayError('model_not_found', {
      message: `Model "${modelId}" does not exist or is not active.`,
      param: 'model',
    });
  if (key.models.length > 0 && !key.models.includes(model.id)) {
    throw new GatewayError('forbidden', { message: `This API key may not use model "${model.id}".`, param: 'model' });
  }
  return model;
}

/**
 * A known, active model none of whose providers is configured (no credentials set): the request
 * is refused before any provider is tried, instead of failing upstream with a 502.
 */
export function providerNotSupported(model: CatalogueModel): GatewayError {
  const providers = [...new Set(model.routes.map((route) => route.provider.id))].join(', ');
  return new GatewayError('provider_not_supported', {
    message: `Model "${model.id}" is known, but none of its providers (${providers}) is configured on this gateway.`,
    param: 'model',
  });
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
