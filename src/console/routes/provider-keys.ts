import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Catalogue } from '../../catalogue/catalogue.js';
import type { OrganizationAccess } from '../../pipeline/organization-access.js';
import type { ProviderKeyInfo } from '../../store/provider-keys.js';
import { MAX_PROVIDER_KEYS_PER_ORGANIZATION } from '../../store/provider-keys.js';
import type { AllowLists } from '../../store/organization-allow-lists.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import {
  AddProviderKeyBodySchema,
  ProviderKeyParamsSchema,
  RotateProviderKeyBodySchema,
  UpdateAllowListsBodySchema,
  type AddProviderKeyBody,
  type RotateProviderKeyBody,
  type UpdateAllowListsBody,
} from '../schemas/provider-keys.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A stored provider key as the console shows it: its hint, never the key. */
export function presentProviderKey(key: ProviderKeyInfo) {
  return {
    object: 'provider_key' as const,
    id: key.id,
    provider: key.providerId,
    key_hint: key.hint,
    created_at: iso(key.createdAt),
    updated_at: iso(key.updatedAt),
  };
}

function presentAllowLists(lists: AllowLists) {
  return {
    object: 'allow_lists' as const,
    models: lists.models,
    providers: lists.providers,
    updated_at: iso(lists.updatedAt),
  };
}

/**
 * An organization's own provider keys (BYOK) and its allow-lists (docs/byok.md):
 * GET    /v1/organizations/{orgId}/provider_keys               the keys (hints only) and the providers
 * POST   /v1/organizations/{orgId}/provider_keys               add {provider, key}
 * PUT    /v1/organizations/{orgId}/provider_keys/{providerId}  rotate: replace the key
 * DELETE /v1/organizations/{orgId}/provider_keys/{providerId}  remove: the operator's key serves again
 * GET    /v1/organizations/{orgId}/allow_lists                 model and provider allow-lists
 * PUT    /v1/organizations/{orgId}/allow_lists                 set {models?, providers?} (null: no restriction)
 * Every change takes effect on this instance before the answer is sent (`access.invalidate`).
 */
export function registerProviderKeyRoutes(
  app: FastifyInstance,
  services: { catalogue: Catalogue; organizationAccess: OrganizationAccess },
): void {
  const access = services.organizationAccess;
  const knownProvider = (id: string, param: string) => {
    const provider = services.catalogue.provider(id);
    if (!provider)
      throw new ConsoleError(
        'invalid_request',
        `No provider "${id.slice(0, 100)}" in this gateway's catalogue; GET …/provider_keys lists them.`,
        param,
      );
    return provider;
  };
  const noKeyFor = (providerId: string) =>
    new ConsoleError('not_found', `This organization has no key for provider "${providerId.slice(0, 100)}".`);

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/provider_keys',
    { schema: { params: OrgParamsSchema } },
    async (request) => {
      const keys = await access.providerKeys.list(request.params.orgId);
      const available_providers = services.catalogue
        .providerIds()
        .map((id) => services.catalogue.provider(id)!)
        .filter((provider) => provider.kind !== 'local')
        .map((provider) => ({ id: provider.id, kind: provider.kind }));
      return { object: 'list', data: keys.map(presentProviderKey), available_providers };
    },
  );

  app.post<{ Params: Static<typeof OrgParamsSchema>; Body: AddProviderKeyBody }>(
    '/v1/organizations/:orgId/provider_keys',
    { schema: { params: OrgParamsSchema, body: AddProviderKeyBodySchema } },
    async (request, reply) => {
      const { orgId } = request.params;
      const provider = knownProvider(request.body.provider, 'provider');
      if (provider.kind === 'local')
        throw new ConsoleError(
          'invalid_request',
          `Provider "${provider.id}" runs locally and takes no key.`,
          'provider',
        );
      const added = await access.providerKeys.add(orgId, provider.id, request.body.key);
      if (added.outcome !== 'created')
        throw added.outcome === 'exists'
          ? new ConsoleError(
              'conflict',
              `This organization already has a key for provider "${provider.id}"; PUT …/provider_keys/${provider.id} replaces it.`,
              'provider',
            )
          : new ConsoleError(
              'invalid_request',
              `An organization holds at most ${MAX_PROVIDER_KEYS_PER_ORGANIZATION} provider keys.`,
              'provider',
            );
      access.invalidate(orgId);
      return reply.code(201).send(presentProviderKey(added.key));
    },
  );

  app.put<{ Params: Static<typeof ProviderKeyParamsSchema>; Body: RotateProviderKeyBody }>(
    '/v1/organizations/:orgId/provider_keys/:providerId',
    { schema: { params: ProviderKeyParamsSchema, body: RotateProviderKeyBodySchema } },
    async (request) => {
      const { orgId, providerId } = request.params;
      const rotated = await access.providerKeys.rotate(orgId, providerId, request.body.key);
      access.invalidate(orgId);
      if (rotated.outcome !== 'rotated') throw noKeyFor(providerId);
      return presentProviderKey(rotated.key);
    },
  );

  app.delete<{ Params: Static<typeof ProviderKeyParamsSchema> }>(
    '/v1/organizations/:orgId/provider_keys/:providerId',
    { schema: { params: ProviderKeyParamsSchema } },
    async (request) => {
      const { orgId, providerId } = request.params;
      const removed = await access.providerKeys.remove(orgId, providerId);
      access.invalidate(orgId);
      if (!removed) throw noKeyFor(providerId);
      return { object: 'provider_key', provider: providerId, deleted: true };
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/allow_lists',
    { schema: { params: OrgParamsSchema } },
    async (request) => presentAllowLists(await access.allowLists.read(request.params.orgId)),
  );

  app.put<{ Params: Static<typeof OrgParamsSchema>; Body: UpdateAllowListsBody }>(
    '/v1/organizations/:orgId/allow_lists',
    { schema: { params: OrgParamsSchema, body: UpdateAllowListsBodySchema } },
    async (request) => {
      const { orgId } = request.params;
      for (const id of request.body.providers ?? []) knownProvider(id, 'providers');
      const lists = await access.allowLists.update(orgId, request.body);
      access.invalidate(orgId);
      return presentAllowLists(lists);
    },
  );
}
