import type { FastifyInstance } from 'fastify';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { SharedSessionSchema } from '../schemas/sessions.js';
import { shareLinkByDigest } from '../../store/session-share-links.js';
import { digestSecret } from '../../secrets/secret-codec.js';
import { sessionDetail } from './session-view.js';
import { SHARE_LINK_PREFIX } from './session-share-links.js';

const NO_LABELS = async () => ({ keys: new Map(), members: new Map() });

/** The link's secret from `Authorization: Bearer gws_…`: a header, so no log or proxy records it with the URL. */
function shareToken(header: string | undefined): string {
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const token = match?.[1];
  if (!token?.startsWith(SHARE_LINK_PREFIX) || token.length > 200)
    throw new ConsoleError('unauthorized', "Send the share link's secret: Authorization: Bearer gws_….");
  return token;
}

/**
 * GET /v1/shared_session: the one session a share link names, read-only and without a console
 * token, and without what identifies people inside the organization (keys, members). A revoked
 * or expired link is a 410 that says which; an unknown secret a 401.
 */
export function registerSharedSessionRoute(app: FastifyInstance, services: ConsoleServices): void {
  app.get(
    '/v1/shared_session',
    {
      schema: {
        summary: 'The session a share link names (Authorization: Bearer <share link secret>)',
        tags: ['sessions'],
        response: { 200: SharedSessionSchema },
      },
    },
    async (request) => {
      const link = await shareLinkByDigest(services.store, digestSecret(shareToken(request.headers.authorization)));
      if (!link) throw new ConsoleError('unauthorized', 'No share link with that secret.');
      if (link.revoked_at !== null)
        throw new ConsoleError('share_link_revoked', 'This share link was revoked by its organization.');
      if (link.expires_at <= Date.now())
        throw new ConsoleError(
          'share_link_expired',
          `This share link expired at ${new Date(link.expires_at).toISOString()}.`,
        );
      const detail = await sessionDetail(services, link.organization_id, link.session_id, NO_LABELS);
      if (!detail) throw new ConsoleError('not_found', 'The shared session has no requests any more.');
      const { api_key_ids: _keyIds, api_keys: _keys, members: _members, requests, ...session } = detail;
      return {
        ...session,
        requests: requests.map(({ api_key_id: _key, member_id: _member, ...shown }) => shown),
        shared_until: new Date(link.expires_at).toISOString(),
      };
    },
  );
}
