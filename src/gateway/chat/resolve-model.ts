import type { Catalogue, CatalogueModel } from '../../catalogue/catalogue.js';
import { MODEL_ID_PATTERN } from '../../catalogue/catalogue.js';
import type { ApiKey } from '../../store/api-keys.js';
import { GatewayError } from '../errors.js';

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

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
