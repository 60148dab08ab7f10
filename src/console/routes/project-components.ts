import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ProjectComponent } from '../../store/project-components.js';
import { checkWebhookUrl, UnsafeTargetError } from '../../server/address-guard.js';
import { ConsoleError } from '../console-error.js';
import {
  checkSettings,
  findVersion,
  fullSlug,
  latestVersion,
  type Component,
} from '../components/component-catalogue.js';
import {
  CreateProjectComponentBodySchema,
  IdParamsSchema,
  ProjectComponentParamsSchema,
  UpdateProjectComponentBodySchema,
  type CreateProjectComponentBody,
} from '../schemas/console-collector.js';
import { loadProject } from './projects.js';
import type { ConsoleCollectorServices } from './console-collector-services.js';

/** The spec 2.11 project component object. */
export function presentProjectComponent(pc: ProjectComponent, component: Component | undefined) {
  return {
    object: 'project_component' as const,
    id: pc.id,
    component_id: pc.componentId,
    component_slug: component ? fullSlug(component) : null,
    component_version: pc.componentVersion,
    category: component?.category ?? null,
    subcategory: component?.subcategory ?? null,
    active: pc.active,
    settings: pc.settings,
  };
}

const notFound = () => new ConsoleError('not_found', 'No project component with that id in this project.');
const bad = (param: string, message: string) => new ConsoleError('invalid_request', message, param);

export function registerProjectComponentRoutes(app: FastifyInstance, services: ConsoleCollectorServices): void {
  const { catalogue, projectComponents } = services;

  /** component_id and/or component_slug name the component; both given must agree. */
  function resolveComponent(body: CreateProjectComponentBody, current: Component | undefined): Component {
    const byId = body.component_id !== undefined ? catalogue.get(body.component_id) : undefined;
    if (body.component_id !== undefined && !byId) throw bad('component_id', 'component_id names no component.');
    const bySlug = body.component_slug !== undefined ? catalogue.getByFullSlug(body.component_slug) : undefined;
    if (body.component_slug !== undefined && !bySlug)
      throw bad('component_slug', 'component_slug names no component (form: <org_slug>/<component_slug>).');
    if (byId && bySlug && byId.id !== bySlug.id)
      throw bad('component_slug', 'component_id and component_slug name different components.');
    const component = byId ?? bySlug ?? current;
    if (!component) throw bad('component_id', 'component_id or component_slug is required.');
    if (!component.is_public) throw bad('component_id', 'component_id names no component.');
    return component;
  }

  /** Settings must satisfy the version's schema; a webhook's URL must also be a safe target. */
  async function validSettings(
    component: Component,
    version: string,
    settings: Record<string, unknown> | null,
  ): Promise<void> {
    const release = findVersion(component, version);
    if (!release) throw bad('component_version', `Component ${fullSlug(component)} has no version ${version}.`);
    const problem = checkSettings(release, settings ?? {});
    if (problem) {
      const where = problem.path ? `settings${problem.path.replace(/\//g, '.')}` : 'settings';
      throw bad(where, `Invalid ${where}: ${problem.message}.`);
    }
    if (component.runtime === 'webhook' && settings && typeof settings.url === 'string') {
      try {
        await checkWebhookUrl(settings.url, services.webhookTargets);
      } catch (error) {
        if (error instanceof UnsafeTargetError) throw bad('settings.url', `settings.url ${error.message}.`);
        throw error;
      }
    }
  }

  app.post<{ Params: Static<typeof IdParamsSchema>; Body: CreateProjectComponentBody }>(
    '/v1/projects/:id/components',
    { schema: { params: IdParamsSchema, body: CreateProjectComponentBodySchema } },
    async (request, reply) => {
      const project = await loadProject(services, request, request.params.id);
      const component = resolveComponent(request.body, undefined);
      if (component.is_archived) throw bad('component_id', 'This component is archived and cannot be attached.');
      const version = request.body.component_version ?? latestVersion(component).version;
      const settings = request.body.settings ?? null;
      await validSettings(component, version, settings);
      const created = await projectComponents.create({
        projectId: project.id,
        organizationId: project.organizationId,
        componentId: component.id,
        componentVersion: version,
        active: request.body.active ?? true,
        settings,
      });
      services.projectChanged(project.id);
      return reply.code(201).send(presentProjectComponent(created, component));
    },
  );

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/projects/:id/components',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const all = await projectComponents.list(project.organizationId, project.id);
      return {
        object: 'list',
        url: `/v1/projects/${project.id}/components`,
        has_more: false,
        last_key: all.length > 0 ? all[all.length - 1]!.id : null,
        data: all.map((pc) => presentProjectComponent(pc, catalogue.get(pc.componentId))),
      };
    },
  );

  app.get<{ Params: Static<typeof ProjectComponentParamsSchema> }>(
    '/v1/projects/:id/components/:project_component_id',
    { schema: { params: ProjectComponentParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const pc = await projectComponents.get(project.organizationId, project.id, request.params.project_component_id);
      if (!pc) throw notFound();
      return presentProjectComponent(pc, catalogue.get(pc.componentId));
    },
  );

  app.post<{ Params: Static<typeof ProjectComponentParamsSchema>; Body: CreateProjectComponentBody }>(
    '/v1/projects/:id/components/:project_component_id',
    { schema: { params: ProjectComponentParamsSchema, body: UpdateProjectComponentBodySchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const existing = await projectComponents.get(
        project.organizationId,
        project.id,
        request.params.project_component_id,
      );
      if (!existing) throw notFound();
      const body = request.body;
      const current = catalogue.get(existing.componentId);
      const component = resolveComponent(body, current);
      const version =
        body.component_version ??
        (component.id === existing.componentId ? existing.componentVersion : latestVersion(component).version);
      const settings = body.settings !== undefined ? body.settings : existing.settings;
      await validSettings(component, version, settings);
      const updated = await projectComponents.update(existing, {
        componentId: component.id,
        componentVersion: version,
        active: body.active ?? existing.active,
        settings,
      });
      services.projectChanged(project.id);
      return presentProjectComponent(updated, component);
    },
  );

  app.delete<{ Params: Static<typeof ProjectComponentParamsSchema> }>(
    '/v1/projects/:id/components/:project_component_id',
    { schema: { params: ProjectComponentParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const deleted = await projectComponents.delete(
        project.organizationId,
        project.id,
        request.params.project_component_id,
      );
      if (!deleted) throw notFound();
      services.projectChanged(project.id);
      return { object: 'project_component', id: request.params.project_component_id, deleted: true };
    },
  );
}
