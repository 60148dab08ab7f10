import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import { listBody, paging } from '../schemas/paging.js';
import {
  SessionDetailSchema,
  SessionListQuerySchema,
  SessionListSchema,
  SessionParamsSchema,
  type SessionListQuery,
} from '../schemas/sessions.js';
import {
  MAX_SESSION_REQUESTS,
  sessionCellsOf,
  sessionPage,
  sessionRequests,
  type SessionCell,
} from '../../store/usage-sessions.js';
import type { SavingsSums } from '../../store/usage-savings.js';
import { addAmounts, cachingSavings, emptyAmounts, priceCell, totalSavings } from '../savings/price-savings.js';
import { parseTime } from './usage-window.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** `claude-cli/1.0.83` → name and version; the column holds only known agents' product tokens. */
function agentMembers(agent: string | null) {
  const slash = agent?.indexOf('/') ?? -1;
  return agent && slash > 0
    ? { agent: agent.slice(0, slash), agent_version: agent.slice(slash + 1) }
    : { agent: null, agent_version: null };
}

type Pricer = (model: string, sums: SavingsSums) => ReturnType<typeof priceCell>;

/** Tokens, cost and savings of priced amounts, as the schemas' `Figures`. */
function figures(amounts: ReturnType<typeof priceCell>) {
  const caching = cachingSavings(amounts);
  return {
    requests: amounts.requests,
    input_tokens: amounts.inputTokens,
    cached_input_tokens: amounts.cacheReadTokens,
    cache_write_tokens: amounts.cacheWriteTokens,
    output_tokens: amounts.outputTokens,
    cost_micro_usd: amounts.costMicroUsd,
    compression_savings_micro_usd: amounts.compressionSavingsMicroUsd,
    caching_savings_micro_usd: caching,
    savings_micro_usd: totalSavings(amounts),
  };
}

/** One session's object from its cells (one per model, key and agent version), each priced with its model's prices. */
function presentSession(id: string, cells: SessionCell[], price: Pricer) {
  const amounts = emptyAmounts();
  const keys = new Set<string>();
  const models = new Set<string>();
  let agent: string | null = null;
  let startedAt = Infinity;
  let endedAt = -Infinity;
  for (const cell of cells) {
    addAmounts(amounts, price(cell.model, cell));
    keys.add(cell.apiKeyId);
    models.add(cell.model);
    // The newest version the session ran with (a session may outlive an agent's update).
    if (cell.agent !== null && (agent === null || cell.endedAt >= endedAt)) agent = cell.agent;
    startedAt = Math.min(startedAt, cell.startedAt);
    endedAt = Math.max(endedAt, cell.endedAt);
  }
  return {
    object: 'session' as const,
    id,
    ...agentMembers(agent),
    api_key_ids: [...keys].sort(),
    models: [...models].sort(),
    started_at: iso(startedAt),
    ended_at: iso(endedAt),
    duration_ms: Math.max(0, endedAt - startedAt),
    ...figures(amounts),
  };
}

/**
 * GET /v1/organizations/{orgId}/sessions and /sessions/{sessionId}: coding-agent sessions, from
 * the session id and agent each usage row carries (migration 025), with what compression and
 * caching saved priced as usage/savings prices it (console/savings/price-savings.ts).
 */
export function registerSessionRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const { store } = services;
  // The catalogue is read per request: a reload swaps it.
  const price: Pricer = (model, sums) => priceCell(sums, services.catalogue.find(model)?.pricing);

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: SessionListQuery }>(
    '/v1/organizations/:orgId/sessions',
    {
      schema: {
        summary: "Coding-agent sessions: each one's agent, keys, models, time, tokens, cost and savings",
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
        { organizationId: orgId, apiKeyId: query.api_key_id, agent: query.agent, from, to },
        limit,
        startingAfter,
      );
      const bySession = new Map<string, SessionCell[]>(page.sessionIds.map((id) => [id, []]));
      for (const cell of page.cells) bySession.get(cell.sessionId)?.push(cell);
      const data = page.sessionIds.map((id) => presentSession(id, bySession.get(id)!, price));
      return listBody(`/v1/organizations/${orgId}/sessions`, data, page.hasMore);
    },
  );

  app.get<{ Params: Static<typeof SessionParamsSchema> }>(
    '/v1/organizations/:orgId/sessions/:sessionId',
    {
      schema: {
        summary: 'One session with its requests in time order (tokens, cost, savings, latency, status)',
        tags: ['sessions'],
        params: SessionParamsSchema,
        response: { 200: SessionDetailSchema },
      },
    },
    async (request) => {
      const { orgId, sessionId } = request.params;
      const [cells, rows] = await Promise.all([
        sessionCellsOf(store, orgId, sessionId),
        sessionRequests(store, orgId, sessionId),
      ]);
      if (cells.length === 0) throw new ConsoleError('not_found', 'No session with that id in this organization.');
      const requests = rows.slice(0, MAX_SESSION_REQUESTS).map((row) => ({
        id: row.id,
        request_id: row.requestId,
        created_at: iso(row.createdAt),
        api_key_id: row.apiKeyId,
        model: row.model,
        endpoint: row.endpoint,
        ...agentMembers(row.agent),
        status_code: row.statusCode,
        error_code: row.errorCode,
        latency_ms: row.latencyMs,
        stream: row.stream,
        ...figures(price(row.model, row)),
      }));
      return {
        ...presentSession(sessionId, cells, price),
        requests,
        requests_truncated: rows.length > MAX_SESSION_REQUESTS,
      };
    },
  );
}
