import type { FastifyInstance } from 'fastify';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { AcceptInviteBodySchema, type AcceptInviteBody } from '../schemas/members.js';
import { OrganizationMemberRepository } from '../../store/organization-members.js';
import { createConsoleToken } from '../../store/console-tokens.js';
import { presentMember } from './members.js';
import { presentApiToken } from './api-tokens.js';

/** How long the console token an accepted invite returns lasts; the member signs in again with a new invite after. */
export const MEMBER_TOKEN_DAYS = 30;
const DAY_MS = 24 * 3_600_000;

/**
 * POST /v1/invites/accept, the one console route without a token: the invite link's secret is
 * the credential. It activates the member (single use: the digest is cleared in the same
 * update) and returns a console token bound to the member, whose permission follows the
 * member's role at each request (auth/console-auth.ts).
 */
export function registerInviteAcceptRoute(app: FastifyInstance, services: ConsoleServices): void {
  const members = new OrganizationMemberRepository(services.store);
  app.post<{ Body: AcceptInviteBody }>(
    '/v1/invites/accept',
    {
      schema: {
        body: AcceptInviteBodySchema,
        summary: 'Accept an invite: the member joins and receives a console token',
        tags: ['members'],
      },
    },
    async (request, reply) => {
      const now = Date.now();
      const outcome = await members.accept(request.body.token, now);
      if (outcome.kind === 'invalid')
        throw new ConsoleError('not_found', 'This invite link is unknown or was already used.', 'token');
      if (outcome.kind === 'expired')
        throw new ConsoleError('forbidden', 'This invite link has expired: ask for a new one.', 'token');
      const member = outcome.member;
      const { token, secret } = await createConsoleToken(services.store, {
        organizationId: member.organizationId,
        name: `member ${member.email}`.slice(0, 200),
        permission: member.role === 'member' ? 'write' : 'admin',
        expiresAt: now + MEMBER_TOKEN_DAYS * DAY_MS,
        memberId: member.id,
      });
      return reply.code(201).send({
        object: 'invite_acceptance',
        member: presentMember(member),
        console_token: presentApiToken(token, secret),
      });
    },
  );
}
