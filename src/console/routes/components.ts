import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { ConsoleError } from '../console-error.js';
import { presentComponent } from '../components/component-catalogue.js';
import {
  ComponentListQuerySchema,
  ComponentSlugParamsSchema,
  IdParamsSchema,
  type ComponentListQuery,
} from '../schemas/console-collector.js';
import { listBody, paging } from '../schemas/paging.js';
import type { ConsoleCollectorServices } from './console-collector-services.js';

const notFound = () => new ConsoleError('not_found', 'No public component with that id or slug.');

/** The public catalogue (spec 2.11): readable with any console token of any organization. */
export function registerComponentRoutes(app: FastifyInstance, services: ConsoleCollectorServices): void {
  const { catalogue } = services;

  app.get<{ Querystring: ComponentListQuery }>(
    '/v1/components',
    { schema: { querystring: ComponentListQuerySchema } },
    async (request) => {
      const { limit, startingAfter } = paging(request.query);
      const page = catalogue.list({
        ...(request.query.category ? { category: request.query.category } : {}),
        ...(request.query.subcategory ? { subcategory: request.query.subcategory } : {}),
        ...(startingAfter !== undefined ? { startingAfter } : {}),
        limit,
      });
      if (!page)
        throw new ConsoleError('invalid_request', 'starting_after names no component of this list.', 'starting_after');
      return listBody('/v1/components', page.data.map(presentComponent), page.hasMore);
    },
  );

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/components/:id',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      const component = catalogue.get(request.params.id);
      if (!component || !component.is_public) throw notFound();
      return presentComponent(component);
    },
  );

  app.get<{ Params: Static<typeof ComponentSlugParamsSchema> }>(
    '/v1/components/:orgSlug/:componentSlug',
    { schema: { params: ComponentSlugParamsSchema } },
    async (request) => {
      const component = catalogue.getBySlug(request.params.orgSlug, request.params.componentSlug);
      if (!component || !component.is_public) throw notFound();
      return presentComponent(component);
    },
  );
}
