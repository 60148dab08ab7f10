import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import {
  CreateGroupBodySchema,
  GroupParamsSchema,
  MAX_GROUP_SETTINGS_BYTES,
  UpdateGroupBodySchema,
  type CreateGroupBody,
  type UpdateGroupBody,
} from '../schemas/members.js';
import { MAX_GROUPS_PER_ORGANIZATION, MemberGroupRepository, type MemberGroup } from '../../store/member-groups.js';
import { requireMemberManager } from '../auth/member-scope.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function presentGroup(group: MemberGroup) {
  return {
    object: 'member_group' as const,
    id: group.id,
    organization_id: group.organizationId,
    name: group.name,
    settings: group.settings,
    created_at: iso(group.createdAt),
    updated_at: iso(group.updatedAt),
  };
}

/** The schema bounds keys and count; the serialised size is the one bound that covers nesting. */
function boundedSettings(settings: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (settings !== undefined && Buffer.byteLength(JSON.stringify(settings)) > MAX_GROUP_SETTINGS_BYTES)
    throw new ConsoleError(
      'invalid_request',
      `settings may hold at most ${MAX_GROUP_SETTINGS_BYTES} bytes of JSON.`,
      'settings',
    );
  return settings;
}

/**
 * /v1/organizations/{orgId}/member_groups: groups of members sharing settings. Managed by owners
 * and admins; a member joins a group through its own `group_id` (members.ts).
 */
export function registerMemberGroupRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const groups = new MemberGroupRepository(services.store);
  const notFound = () => new ConsoleError('not_found', 'No group with that id in this organization.');
  const nameTaken = () => new ConsoleError('conflict', 'A group of this organization already has that name.', 'name');

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/member_groups',
    { schema: { params: OrgParamsSchema, tags: ['members'] } },
    async (request) => {
      requireMemberManager(request);
      const data = await groups.list(request.params.orgId);
      return { object: 'list', data: data.map(presentGroup) };
    },
  );

  app.post<{ Params: Static<typeof OrgParamsSchema>; Body: CreateGroupBody }>(
    '/v1/organizations/:orgId/member_groups',
    { schema: { params: OrgParamsSchema, body: CreateGroupBodySchema, tags: ['members'] } },
    async (request, reply) => {
      requireMemberManager(request);
      const outcome = await groups.create({
        organizationId: request.params.orgId,
        name: request.body.name,
        settings: boundedSettings(request.body.settings) ?? {},
      });
      if (outcome.kind === 'name_taken') throw nameTaken();
      if (outcome.kind === 'full')
        throw new ConsoleError('conflict', `An organization holds at most ${MAX_GROUPS_PER_ORGANIZATION} groups.`);
      return reply.code(201).send(presentGroup(outcome.group));
    },
  );

  app.get<{ Params: Static<typeof GroupParamsSchema> }>(
    '/v1/organizations/:orgId/member_groups/:groupId',
    { schema: { params: GroupParamsSchema, tags: ['members'] } },
    async (request) => {
      requireMemberManager(request);
      const group = await groups.get(request.params.orgId, request.params.groupId);
      if (!group) throw notFound();
      return presentGroup(group);
    },
  );

  app.post<{ Params: Static<typeof GroupParamsSchema>; Body: UpdateGroupBody }>(
    '/v1/organizations/:orgId/member_groups/:groupId',
    { schema: { params: GroupParamsSchema, body: UpdateGroupBodySchema, tags: ['members'] } },
    async (request) => {
      requireMemberManager(request);
      const settings = boundedSettings(request.body.settings);
      const outcome = await groups.update(request.params.orgId, request.params.groupId, {
        ...(request.body.name !== undefined ? { name: request.body.name } : {}),
        ...(settings !== undefined ? { settings } : {}),
      });
      if (outcome.kind === 'name_taken') throw nameTaken();
      if (outcome.kind !== 'ok' || !outcome.group) throw notFound();
      return presentGroup(outcome.group);
    },
  );

  app.delete<{ Params: Static<typeof GroupParamsSchema> }>(
    '/v1/organizations/:orgId/member_groups/:groupId',
    { schema: { params: GroupParamsSchema, tags: ['members'] } },
    async (request) => {
      requireMemberManager(request);
      if (!(await groups.delete(request.params.orgId, request.params.groupId))) throw notFound();
      return { object: 'member_group', id: request.params.groupId, deleted: true };
    },
  );
}
