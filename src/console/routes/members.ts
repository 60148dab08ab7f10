import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import {
  DEFAULT_INVITE_DAYS,
  InviteMemberBodySchema,
  MemberParamsSchema,
  UpdateMemberBodySchema,
  type InviteMemberBody,
  type UpdateMemberBody,
} from '../schemas/members.js';
import {
  MAX_MEMBERS_PER_ORGANIZATION,
  MAX_MEMBER_ROWS_PER_ORGANIZATION,
  OrganizationMemberRepository,
  type OrganizationMember,
} from '../../store/organization-members.js';
import { MemberGroupRepository } from '../../store/member-groups.js';
import { confinedMemberId, requireMemberManager, requireOwner } from '../auth/member-scope.js';

const DAY_MS = 24 * 3_600_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentMember(member: OrganizationMember) {
  return {
    object: 'organization_member' as const,
    id: member.id,
    organization_id: member.organizationId,
    email: member.email,
    name: member.name,
    role: member.role,
    status: member.status,
    group_id: member.groupId,
    created_at: iso(member.createdAt)!,
    joined_at: iso(member.joinedAt),
    invite_expires_at: iso(member.inviteExpiresAt),
  };
}

/**
 * The link an invitee opens: the web console's /invite page, the secret in the fragment so it
 * never reaches a server's access log (the page posts it to /v1/invites/accept).
 */
export function inviteUrl(request: FastifyRequest, secret: string): string {
  return `https://${request.host}/invite#${secret}`;
}

/**
 * /v1/organizations/{orgId}/members: the people of an organization (docs/members.md). Listing is
 * open to every token (a `member` sees only itself); inviting, changing and removing need an
 * owner or admin, and anything touching the owner role an owner. The last active owner can be
 * neither demoted nor removed.
 */
export function registerMemberRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const members = new OrganizationMemberRepository(services.store);
  const groups = new MemberGroupRepository(services.store);
  const notFound = () => new ConsoleError('not_found', 'No member with that id in this organization.');

  async function checkGroup(orgId: string, groupId: string | null | undefined): Promise<void> {
    if (groupId && !(await groups.get(orgId, groupId)))
      throw new ConsoleError('invalid_request', 'group_id names no group of this organization.', 'group_id');
  }

  const lastOwner = (action: string) =>
    new ConsoleError(
      'conflict',
      `The last owner of the organization cannot be ${action}: make another member owner first.`,
    );

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/members',
    { schema: { params: OrgParamsSchema, summary: 'Members and open invites', tags: ['members'] } },
    async (request) => {
      const self = confinedMemberId(request);
      const all = await members.list(request.params.orgId);
      const data = self === null ? all : all.filter((m) => m.id === self);
      return { object: 'list', data: data.map(presentMember), max_members: MAX_MEMBERS_PER_ORGANIZATION };
    },
  );

  app.post<{ Params: Static<typeof OrgParamsSchema>; Body: InviteMemberBody }>(
    '/v1/organizations/:orgId/members',
    {
      schema: {
        params: OrgParamsSchema,
        body: InviteMemberBodySchema,
        summary: 'Invite a member by email',
        tags: ['members'],
      },
    },
    async (request, reply) => {
      const body = request.body;
      const role = body.role ?? 'member';
      if (role === 'owner') requireOwner(request);
      else requireMemberManager(request);
      await checkGroup(request.params.orgId, body.group_id);
      const outcome = await members.invite({
        organizationId: request.params.orgId,
        email: body.email,
        name: body.name ?? null,
        role,
        groupId: body.group_id ?? null,
        ttlMs: (body.expires_in_days ?? DEFAULT_INVITE_DAYS) * DAY_MS,
      });
      if (outcome.kind === 'exists')
        throw new ConsoleError('conflict', 'That address is already an active member of this organization.', 'email');
      if (outcome.kind === 'full')
        throw new ConsoleError(
          'conflict',
          `An organization holds at most ${MAX_MEMBERS_PER_ORGANIZATION} members and ${MAX_MEMBER_ROWS_PER_ORGANIZATION} rows of past ones.`,
        );
      return reply.code(201).send({
        ...presentMember(outcome.member),
        invite_token: outcome.secret,
        invite_url: inviteUrl(request, outcome.secret),
      });
    },
  );

  app.get<{ Params: Static<typeof MemberParamsSchema> }>(
    '/v1/organizations/:orgId/members/:memberId',
    { schema: { params: MemberParamsSchema, tags: ['members'] } },
    async (request) => {
      requireMemberManager(request);
      const member = await members.get(request.params.orgId, request.params.memberId);
      if (!member) throw notFound();
      return presentMember(member);
    },
  );

  app.post<{ Params: Static<typeof MemberParamsSchema>; Body: UpdateMemberBody }>(
    '/v1/organizations/:orgId/members/:memberId',
    {
      schema: {
        params: MemberParamsSchema,
        body: UpdateMemberBodySchema,
        summary: 'Change role, name or group',
        tags: ['members'],
      },
    },
    async (request) => {
      requireMemberManager(request);
      const { orgId, memberId } = request.params;
      const body = request.body;
      const member = await members.get(orgId, memberId);
      if (!member) throw notFound();
      if (body.role !== undefined && body.role !== member.role) {
        if (body.role === 'owner' || member.role === 'owner') requireOwner(request);
      }
      await checkGroup(orgId, body.group_id);
      const updated = await members.update(orgId, memberId, {
        ...(body.role !== undefined ? { role: body.role } : {}),
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.group_id !== undefined ? { groupId: body.group_id } : {}),
      });
      if (updated === 'last_owner') throw lastOwner('demoted');
      if (!updated) throw notFound();
      return presentMember(updated);
    },
  );

  app.post<{ Params: Static<typeof MemberParamsSchema> }>(
    '/v1/organizations/:orgId/members/:memberId/invite',
    { schema: { params: MemberParamsSchema, summary: 'A fresh invite link for an invited member', tags: ['members'] } },
    async (request, reply) => {
      requireMemberManager(request);
      const member = await members.get(request.params.orgId, request.params.memberId);
      if (!member) throw notFound();
      if (member.role === 'owner') requireOwner(request);
      if (member.status !== 'invited') throw new ConsoleError('conflict', 'This member has already joined.');
      const outcome = await members.invite({
        organizationId: member.organizationId,
        email: member.email,
        name: member.name,
        role: member.role,
        groupId: member.groupId,
        ttlMs: DEFAULT_INVITE_DAYS * DAY_MS,
      });
      if (outcome.kind !== 'invited') throw new ConsoleError('conflict', 'This member has already joined.');
      return reply.code(201).send({
        ...presentMember(outcome.member),
        invite_token: outcome.secret,
        invite_url: inviteUrl(request, outcome.secret),
      });
    },
  );

  app.delete<{ Params: Static<typeof MemberParamsSchema> }>(
    '/v1/organizations/:orgId/members/:memberId',
    {
      schema: {
        params: MemberParamsSchema,
        summary: 'Remove a member: its sign-ins end, its keys are deactivated',
        tags: ['members'],
      },
    },
    async (request) => {
      requireMemberManager(request);
      const { orgId, memberId } = request.params;
      const member = await members.get(orgId, memberId);
      if (!member) throw notFound();
      if (member.role === 'owner') requireOwner(request);
      const outcome = await members.remove(orgId, memberId);
      if (outcome === 'last_owner') throw lastOwner('removed');
      const { removed, deactivatedKeyIds } = outcome;
      if (!removed) throw notFound();
      for (const keyId of deactivatedKeyIds) services.authenticator.forget(keyId);
      return { object: 'organization_member', id: memberId, deleted: true, deactivated_api_key_ids: deactivatedKeyIds };
    },
  );
}
