import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import { listBody, paging } from '../schemas/paging.js';
import {
  SessionDetailSchema,
  SessionFiltersSchema,
  SessionListQuerySchema,
  SessionListSchema,
  SessionParamsSchema,
  type SessionListQuery,
} from '../schemas/sessions.js';
import { sessionPage, type SessionCell } from '../../store/usage-sessions.js';
import { sessionFilterValues, sessionLabels } from '../../store/session-labels.js';
import { idsOf, presentSession, pricerOf, sessionDetail } from './session-view.js';
import { parseTime } from './usage-window.js';

/**
 * GET /v1/organizations/{orgId}/sessions, /session_filters and /sessions/{sessionId}: coding-agent
 * sessions, from the session id, agent and member each usage row carries (migrations 025, 026),
 * with what compression and caching saved priced as usage/savings prices it
 * (console/savings/price-savings.ts).
 */
export function registerSessionRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const { store } = services;
  const labelsFor = (orgId: string) => (cells: SessionCell[]) => {
    const { keyIds, memberIds } = idsOf(cells);
    return sessionLabels(store, orgId, keyIds, memberIds);
  };

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: SessionListQuery }>(
    '/v1/organizations/:orgId/sessions',
    {
      schema: {
        summary: "Coding-agent sessions: each one's agent, member, keys, models, time, tokens, cost and savings",
        tags: ['sessions'],
        params: OrgParamsSchema,
        querystring: SessionListQuerySchema,
        response: { 200: SessionListSchema },
      },
    },
    async (request) => {
      const { orgId } = request.params;
      const query = request.query;
      const from = query.from === undefined ? undefined : parseTime(query.from, 'from');
      const to = query.to === undefined ? undefined : parseTime(query.to, 'to');
      if (from !== undefined && to !== undefined && to <= from)
        throw new ConsoleError('invalid_request', '`to` must be later than `from`.', 'to');
      const { limit, startingAfter } = paging(query);
      const page = await sessionPage(
        store,
        {
          organizationId: orgId,
          apiKeyId: query.api_key_id,
          memberId: query.member_id,
          agent: query.agent,
          from,
          to,
        },
        limit,
        startingAfter,
      );
      const bySession = new Map<string, SessionCell[]>(page.sessionIds.map((id) => [id, []]));
      for (const cell of page.cells) bySession.get(cell.sessionId)?.push(cell);
      const [price, labels] = [pricerOf(services), await labelsFor(orgId)(page.cells)];
      const data = page.sessionIds.map((id) => presentSession(id, bySession.get(id)!, price, labels));
      return listBody(`/v1/organizations/${orgId}/sessions`, data, page.hasMore);
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/session_filters',
    {
      schema: {
        summary: "What the organization's sessions can be filtered by: their members, keys and agents",
        tags: ['sessions'],
        params: OrgParamsSchema,
        response: { 200: SessionFiltersSchema },
      },
    },
    async (request) => {
      const values = await sessionFilterValues(store, request.params.orgId);
      return {
        object: 'session_filters' as const,
        members: values.members,
        api_keys: values.apiKeys,
        agents: values.agents,
      };
    },
  );

  app.get<{ Params: Static<typeof SessionParamsSchema> }>(
    '/v1/organizations/:orgId/sessions/:sessionId',
    {
      schema: {
        summary: 'One session with its requests in time order (tokens, cost, savings, latency, status, strategies)',
        tags: ['sessions'],
        params: SessionParamsSchema,
        response: { 200: SessionDetailSchema },
      },
    },
    async (request) => {
      const { orgId, sessionId } = request.params;
      const detail = await sessionDetail(services, orgId, sessionId, labelsFor(orgId));
      if (!detail) throw new ConsoleError('not_found', 'No session with that id in this organization.');
      return detail;
    },
  );
}
