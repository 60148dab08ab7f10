import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { SessionParamsSchema } from '../schemas/sessions.js';
import {
  CreatedShareLinkSchema,
  CreateShareLinkSchema,
  DEFAULT_SHARE_HOURS,
  ShareLinkListSchema,
  ShareLinkParamsSchema,
  ShareLinkSchema,
  type CreateShareLink,
} from '../schemas/session-share-links.js';
import {
  insertShareLink,
  liveLinkCounts,
  MAX_LIVE_LINKS_PER_ORGANIZATION,
  MAX_LIVE_LINKS_PER_SESSION,
  revokeShareLink,
  sessionShareLinks,
  type SessionShareLink,
} from '../../store/session-share-links.js';
import { sessionCellsOf } from '../../store/usage-sessions.js';
import { digestSecret, generateSecret } from '../../secrets/secret-codec.js';
import { timeOrderedUuid } from '../../server/random-ids.js';

/** Share-link secrets: a prefix secret scanners can recognise, then 256 random bits. */
export const SHARE_LINK_PREFIX = 'gws_';

const iso = (ms: number) => new Date(ms).toISOString();

export function presentShareLink(link: SessionShareLink, now: number) {
  return {
    object: 'session_share_link' as const,
    id: link.id,
    session_id: link.session_id,
    created_at: iso(link.created_at),
    expires_at: iso(link.expires_at),
    revoked_at: link.revoked_at === null ? null : iso(link.revoked_at),
    status:
      link.revoked_at !== null
        ? ('revoked' as const)
        : link.expires_at <= now
          ? ('expired' as const)
          : ('active' as const),
  };
}

/**
 * Read-only links to one session: made, listed and revoked through the Console API (a write
 * token), opened without a token by whoever holds the secret (shared-session.ts).
 */
export function registerSessionShareLinkRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const { store } = services;
  const now = () => Date.now();

  app.post<{ Params: Static<typeof SessionParamsSchema>; Body: CreateShareLink }>(
    '/v1/organizations/:orgId/sessions/:sessionId/share_links',
    {
      schema: {
        summary: 'Make a read-only, expiring link to one session (its secret is shown once)',
        tags: ['sessions'],
        params: SessionParamsSchema,
        body: CreateShareLinkSchema,
        response: { 201: CreatedShareLinkSchema },
      },
    },
    async (request, reply) => {
      const { orgId, sessionId } = request.params;
      const at = now();
      if ((await sessionCellsOf(store, orgId, sessionId)).length === 0)
        throw new ConsoleError('not_found', 'No session with that id in this organization.');
      const live = await liveLinkCounts(store, orgId, sessionId, at);
      if (live.session >= MAX_LIVE_LINKS_PER_SESSION)
        throw new ConsoleError(
          'conflict',
          `This session already has ${MAX_LIVE_LINKS_PER_SESSION} active share links; revoke one first.`,
        );
      if (live.organization >= MAX_LIVE_LINKS_PER_ORGANIZATION)
        throw new ConsoleError(
          'conflict',
          `This organization already has ${MAX_LIVE_LINKS_PER_ORGANIZATION} active share links; revoke some first.`,
        );
      const token = generateSecret(SHARE_LINK_PREFIX);
      const link: SessionShareLink = {
        id: timeOrderedUuid(at),
        organization_id: orgId,
        session_id: sessionId,
        secret_digest: digestSecret(token),
        created_at: at,
        expires_at: at + (request.body?.expires_in_hours ?? DEFAULT_SHARE_HOURS) * 3_600_000,
        revoked_at: null,
        created_by_token_id: request.consoleToken.id,
      };
      await insertShareLink(store, link);
      return reply.code(201).send({ ...presentShareLink(link, at), token, path: `/shared-session#${token}` });
    },
  );

  app.get<{ Params: Static<typeof SessionParamsSchema> }>(
    '/v1/organizations/:orgId/sessions/:sessionId/share_links',
    {
      schema: {
        summary: "A session's share links, newest first (their secrets are never shown again)",
        tags: ['sessions'],
        params: SessionParamsSchema,
        response: { 200: ShareLinkListSchema },
      },
    },
    async (request) => {
      const { orgId, sessionId } = request.params;
      const at = now();
      const links = await sessionShareLinks(store, orgId, sessionId);
      return { object: 'list' as const, data: links.map((link) => presentShareLink(link, at)) };
    },
  );

  app.delete<{ Params: Static<typeof ShareLinkParamsSchema> }>(
    '/v1/organizations/:orgId/share_links/:linkId',
    {
      schema: {
        summary: 'Revoke a share link: it stops opening at once',
        tags: ['sessions'],
        params: ShareLinkParamsSchema,
        response: { 200: ShareLinkSchema },
      },
    },
    async (request) => {
      const { orgId, linkId } = request.params;
      const at = now();
      const revoked = await revokeShareLink(store, orgId, linkId, at);
      if (!revoked) throw new ConsoleError('not_found', 'No share link with that id in this organization.');
      return presentShareLink(revoked, at);
    },
  );
}
