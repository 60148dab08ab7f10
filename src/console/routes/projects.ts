import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { ProjectConflictError, type Project } from '../../store/projects.js';
import { ConsoleError } from '../console-error.js';
import {
  CreateProjectBodySchema,
  IdParamsSchema,
  UpdateProjectBodySchema,
  type CreateProjectBody,
  type UpdateProjectBody,
} from '../schemas/console-collector.js';
import { PagingQuerySchema, listBody, paging, type PagingQuery } from '../schemas/paging.js';
import type { ConsoleCollectorServices } from './console-collector-services.js';
import { isLocalName } from '../domains/local-names.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function presentProject(project: Project) {
  return {
    object: 'project' as const,
    id: project.id,
    organization_id: project.organizationId,
    slug: project.slug,
    name: project.name,
    domains: project.domains,
    created_at: iso(project.createdAt),
    updated_at: iso(project.updatedAt),
  };
}

export const projectNotFound = () => new ConsoleError('not_found', 'No project with that id in this organization.');

/** Object-level authorization: a project of another organization is indistinguishable from none. */
export async function loadProject(
  services: ConsoleCollectorServices,
  request: FastifyRequest,
  id: string,
): Promise<Project> {
  const project = await services.projects.get(request.consoleToken.organization_id, id);
  if (!project) throw projectNotFound();
  return project;
}

function conflict(error: unknown): never {
  if (error instanceof ProjectConflictError) throw new ConsoleError('conflict', error.message, error.field);
  throw error;
}

/**
 * In production mode local and test names (localhost, *.test, …) cannot be claimed: nobody can
 * prove control of them on the public internet. `held` names the project already has are kept.
 */
function refuseLocalNames(services: ConsoleCollectorServices, domains: string[], held: readonly string[] = []): void {
  if (services.domains.mode === 'development') return;
  const index = domains.findIndex((d) => isLocalName(d) && !held.includes(d));
  if (index >= 0)
    throw new ConsoleError(
      'invalid_request',
      `The domain ${domains[index]} is a local or test name; it can be used only in development mode (GATEWAY_ENV=development).`,
      `domains[${index}]`,
    );
}

export function registerProjectRoutes(app: FastifyInstance, services: ConsoleCollectorServices): void {
  const { projects } = services;

  app.post<{ Body: CreateProjectBody }>(
    '/v1/projects',
    { schema: { body: CreateProjectBodySchema } },
    async (request, reply) => {
      const body = request.body;
      refuseLocalNames(services, body.domains ?? []);
      const project = await projects
        .create({
          organizationId: request.consoleToken.organization_id,
          slug: body.slug,
          name: body.name,
          domains: body.domains ?? [],
        })
        .catch(conflict);
      services.projectChanged(project.id);
      return reply.code(201).send(presentProject(project));
    },
  );

  app.get<{ Querystring: PagingQuery }>(
    '/v1/projects',
    { schema: { querystring: PagingQuerySchema } },
    async (request) => {
      const { limit, startingAfter } = paging(request.query);
      const page = await projects.list(request.consoleToken.organization_id, limit, startingAfter);
      if (!page)
        throw new ConsoleError(
          'invalid_request',
          'starting_after names no project of this organization.',
          'starting_after',
        );
      return listBody('/v1/projects', page.data.map(presentProject), page.hasMore);
    },
  );

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/projects/:id',
    { schema: { params: IdParamsSchema } },
    async (request) => presentProject(await loadProject(services, request, request.params.id)),
  );

  app.post<{ Params: Static<typeof IdParamsSchema>; Body: UpdateProjectBody }>(
    '/v1/projects/:id',
    { schema: { params: IdParamsSchema, body: UpdateProjectBodySchema } },
    async (request) => {
      const body = request.body;
      if (body.domains?.some(isLocalName) && services.domains.mode !== 'development')
        refuseLocalNames(services, body.domains, (await loadProject(services, request, request.params.id)).domains);
      const project = await projects
        .update(request.consoleToken.organization_id, request.params.id, {
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.domains !== undefined ? { domains: body.domains } : {}),
        })
        .catch(conflict);
      if (!project) throw projectNotFound();
      services.projectChanged(project.id);
      return presentProject(project);
    },
  );

  app.delete<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/projects/:id',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      const deleted = await projects.delete(request.consoleToken.organization_id, request.params.id);
      if (!deleted) throw projectNotFound();
      services.projectChanged(request.params.id);
      return { object: 'project', id: request.params.id, deleted: true };
    },
  );
}
