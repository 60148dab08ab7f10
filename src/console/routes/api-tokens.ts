import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import { createConsoleToken, type ConsoleToken } from '../../store/console-tokens.js';
import { deleteConsoleToken, getConsoleToken, listConsoleTokens } from '../../store/console-token-admin.js';
import { requireAdmin } from '../auth/permissions.js';
import { ConsoleError } from '../console-error.js';
import { CreateApiTokenBodySchema, IdParamsSchema, type CreateApiTokenBody } from '../schemas/console-collector.js';
import { PagingQuerySchema, listBody, paging, type PagingQuery } from '../schemas/paging.js';

const DAY_MS = 24 * 3_600_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The console token object; `token` (the secret) only in the creation response. The digest never leaves the store. */
export function presentApiToken(token: ConsoleToken, secret?: string) {
  return {
    object: 'api_token' as const,
    id: token.id,
    organization_id: token.organization_id,
    name: token.name,
    permission: token.permission,
    created_at: iso(token.created_at)!,
    expires_at: iso(token.expires_at),
    last_used_at: iso(token.last_used_at),
    ...(secret !== undefined ? { token: secret } : {}),
  };
}

/** /v1/api_tokens: console tokens of the caller's organization; admin tokens only (auth/permissions.ts). */
export function registerApiTokenRoutes(app: FastifyInstance, store: Store): void {
  const notFound = () => new ConsoleError('not_found', 'No API token with that id in this organization.');

  app.post<{ Body: CreateApiTokenBody }>(
    '/v1/api_tokens',
    { schema: { body: CreateApiTokenBodySchema } },
    async (request, reply) => {
      requireAdmin(request);
      const body = request.body;
      const { token, secret } = await createConsoleToken(store, {
        organizationId: request.consoleToken.organization_id,
        name: body.name,
        permission: body.permission,
        expiresAt: body.expires_in_days === undefined ? null : Date.now() + body.expires_in_days * DAY_MS,
      });
      return reply.code(201).send(presentApiToken(token, secret));
    },
  );

  app.get<{ Querystring: PagingQuery }>(
    '/v1/api_tokens',
    { schema: { querystring: PagingQuerySchema } },
    async (request) => {
      requireAdmin(request);
      const { limit, startingAfter } = paging(request.query);
      const page = await listConsoleTokens(store, request.consoleToken.organization_id, limit, startingAfter);
      if (!page)
        throw new ConsoleError(
          'invalid_request',
          'starting_after names no API token of this organization.',
          'starting_after',
        );
      return listBody(
        '/v1/api_tokens',
        page.data.map((t) => presentApiToken(t)),
        page.hasMore,
      );
    },
  );

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/api_tokens/:id',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      requireAdmin(request);
      const token = await getConsoleToken(store, request.consoleToken.organization_id, request.params.id);
      if (!token) throw notFound();
      return presentApiToken(token);
    },
  );

  app.delete<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/api_tokens/:id',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      requireAdmin(request);
      const deleted = await deleteConsoleToken(store, request.consoleToken.organization_id, request.params.id);
      if (!deleted) throw notFound();
      return { object: 'api_token', id: request.params.id, deleted: true };
    },
  );
}
