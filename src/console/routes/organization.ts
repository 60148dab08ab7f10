import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/database.js';
import { findOrganizationById } from '../../store/organizations.js';
import { ConsoleError } from '../console-error.js';
import { CurrentOrganizationSchema } from '../schemas/usage.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * GET /v1/organizations/me: the organization the console token belongs to, and the token's own
 * permission — how the web console learns its organization id from the token alone.
 */
export function registerCurrentOrganizationRoute(app: FastifyInstance, store: Store): void {
  app.get(
    '/v1/organizations/me',
    {
      schema: {
        summary: "The console token's organization and permission",
        tags: ['organization'],
        response: { 200: CurrentOrganizationSchema },
      },
    },
    async (request) => {
      const token = request.consoleToken;
      const organization = await findOrganizationById(store, token.organization_id);
      if (!organization)
        throw new ConsoleError('not_found', 'The organization of this console token no longer exists.');
      return {
        object: 'organization' as const,
        id: organization.id,
        slug: organization.slug,
        name: organization.name,
        created_at: new Date(Number(organization.created_at)).toISOString(),
        token: {
          id: token.id,
          name: token.name,
          permission: token.permission,
          expires_at: iso(token.expires_at === null ? null : Number(token.expires_at)),
          member: request.consoleMember && {
            id: request.consoleMember.id,
            email: request.consoleMember.email,
            role: request.consoleMember.role,
          },
        },
      };
    },
  );
}
