import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ProxySettingsRevision } from '../../store/proxy-settings.js';
import { ConsoleError } from '../console-error.js';
import { validateProxySettings } from '../proxy/validate-proxy-settings.js';
import {
  CreateProxySettingsBodySchema,
  IdParamsSchema,
  RevisionParamsSchema,
  UpdateProxySettingsBodySchema,
  type CreateProxySettingsBody,
  type UpdateProxySettingsBody,
} from '../schemas/console-collector.js';
import { loadProject } from './projects.js';
import type { ConsoleCollectorServices } from './console-collector-services.js';

/** The spec 2.10 object, exactly. */
export function presentProxySettings(settings: ProxySettingsRevision) {
  return {
    object: 'proxy_settings' as const,
    revision: settings.revision,
    description: settings.description,
    is_active: settings.isActive,
    backends: settings.backends,
    routes: settings.routes,
  };
}

const revisionNotFound = () =>
  new ConsoleError('not_found', 'No proxy settings revision with that number in this project.');

export function registerProxySettingsRoutes(app: FastifyInstance, services: ConsoleCollectorServices): void {
  const { proxySettings } = services;

  app.post<{ Params: Static<typeof IdParamsSchema>; Body: CreateProxySettingsBody }>(
    '/v1/projects/:id/proxy-settings',
    { schema: { params: IdParamsSchema, body: CreateProxySettingsBodySchema } },
    async (request, reply) => {
      const project = await loadProject(services, request, request.params.id);
      const { backends, routes } = validateProxySettings(request.body);
      const created = await proxySettings.create(project.id, {
        description: request.body.description ?? '',
        isActive: request.body.is_active ?? false,
        backends,
        routes,
      });
      return reply.code(201).send(presentProxySettings(created));
    },
  );

  // A dry run of the create route: the same schema and checks, nothing stored. The web console
  // calls it as the user types, so the rules live in one place (validate-proxy-settings.ts).
  app.post<{ Params: Static<typeof IdParamsSchema>; Body: CreateProxySettingsBody }>(
    '/v1/projects/:id/proxy-settings/validate',
    {
      schema: {
        summary: 'Check a proxy settings revision without creating it',
        params: IdParamsSchema,
        body: CreateProxySettingsBodySchema,
      },
    },
    async (request) => {
      await loadProject(services, request, request.params.id);
      const { backends, routes } = validateProxySettings(request.body);
      return { object: 'proxy_settings_validation' as const, valid: true, backends, routes };
    },
  );

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/projects/:id/proxy-settings',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const active = await proxySettings.active(project.id);
      if (!active) throw new ConsoleError('not_found', 'This project has no active proxy settings revision.');
      return presentProxySettings(active);
    },
  );

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/projects/:id/proxy-settings/revisions',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const all = await proxySettings.list(project.id);
      return {
        object: 'list',
        url: `/v1/projects/${project.id}/proxy-settings/revisions`,
        has_more: false,
        data: all.map(presentProxySettings),
      };
    },
  );

  app.get<{ Params: Static<typeof RevisionParamsSchema> }>(
    '/v1/projects/:id/proxy-settings/:revision',
    { schema: { params: RevisionParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const found = await proxySettings.get(project.id, Number(request.params.revision));
      if (!found) throw revisionNotFound();
      return presentProxySettings(found);
    },
  );

  app.post<{ Params: Static<typeof RevisionParamsSchema>; Body: UpdateProxySettingsBody }>(
    '/v1/projects/:id/proxy-settings/:revision',
    { schema: { params: RevisionParamsSchema, body: UpdateProxySettingsBodySchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const updated = await proxySettings.update(project.id, Number(request.params.revision), {
        ...(request.body.description !== undefined ? { description: request.body.description } : {}),
        ...(request.body.is_active !== undefined ? { isActive: request.body.is_active } : {}),
      });
      if (!updated) throw revisionNotFound();
      return presentProxySettings(updated);
    },
  );
}
