import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { StoredEvent } from '../../store/collected-events.js';
import { ConsoleError } from '../console-error.js';
import { EventListQuerySchema, IdParamsSchema, type EventListQuery } from '../schemas/console-collector.js';
import { loadProject } from './projects.js';
import type { ConsoleCollectorServices } from './console-collector-services.js';

type Cursor = [number, string, string];

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      Number.isInteger(value[0]) &&
      typeof value[1] === 'string' &&
      typeof value[2] === 'string'
    ) {
      return value as Cursor;
    }
  } catch {
    // fall through
  }
  throw new ConsoleError(
    'invalid_request',
    'starting_after must be a last_key returned by this list.',
    'starting_after',
  );
}

/**
 * GET /v1/projects/{id}/events: what the project's warehouse components stored, oldest first,
 * paged with an opaque `last_key` (pass it back as `starting_after`).
 */
export function registerProjectEventRoutes(app: FastifyInstance, services: ConsoleCollectorServices): void {
  app.get<{ Params: Static<typeof IdParamsSchema>; Querystring: EventListQuery }>(
    '/v1/projects/:id/events',
    { schema: { params: IdParamsSchema, querystring: EventListQuerySchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const query = request.query;
      const cursorText = query.starting_after ?? query.last_key;
      const page = await services.events.listWarehouse(project.id, {
        limit: query.limit === undefined ? 100 : Number(query.limit),
        ...(cursorText !== undefined ? { after: decodeCursor(cursorText) } : {}),
        ...(query.project_component_id ? { projectComponentId: query.project_component_id } : {}),
        ...(query.type ? { type: query.type } : {}),
      });
      const last = page.rows[page.rows.length - 1];
      return {
        object: 'list',
        url: `/v1/projects/${project.id}/events`,
        has_more: page.hasMore,
        last_key: last ? encodeCursor([last.received_at, last.event_id, last.project_component_id]) : null,
        data: page.rows.map((row) => ({
          object: 'event' as const,
          ...(JSON.parse(row.payload) as StoredEvent),
          project_component_id: row.project_component_id,
          received_at: new Date(row.received_at).toISOString(),
          stored_at: new Date(row.stored_at).toISOString(),
        })),
      };
    },
  );
}
