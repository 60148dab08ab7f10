import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { UpstreamTarget } from '../providers/index.js';
import type { ApiKey } from '../store/api-keys.js';
import type { CoreServices } from './services.js';
import { GatewayError } from './errors.js';
import { providerNotSupported } from './resolve-model.js';

/**
 * The upstream targets of `model` for this key's organization: its model and provider allow-lists
 * applied (a refusal is a 403 in the surface's error shape), and its own provider keys (BYOK)
 * used before the operator's (docs/byok.md).
 */
export async function organizationTargets(
  services: CoreServices,
  key: ApiKey,
  model: CatalogueModel,
): Promise<UpstreamTarget[]> {
  const routing = await services.organizationAccess?.forOrganization(key.organizationId);
  if (routing?.allowedModels && !routing.allowedModels.has(model.id))
    throw new GatewayError('forbidden', {
      message: `Model "${model.id}" is not on this organization's model allow-list.`,
      param: 'model',
    });
  const allowedProviders = routing?.allowedProviders;
  if (allowedProviders && !model.routes.some((route) => allowedProviders.has(route.provider.id))) {
    const providers = [...new Set(model.routes.map((route) => route.provider.id))].join(', ');
    throw new GatewayError('forbidden', {
      message: `None of the providers of model "${model.id}" (${providers}) is on this organization's provider allow-list.`,
      param: 'model',
    });
  }
  let targets = services.catalogue.targets(model, routing?.providerKeys);
  if (allowedProviders) targets = targets.filter((target) => allowedProviders.has(target.providerId));
  if (targets.length === 0) throw providerNotSupported(model);
  return targets;
}
