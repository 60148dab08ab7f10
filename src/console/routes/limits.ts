import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import {
  LimitListQuerySchema,
  LimitParamsSchema,
  LimitSettingsBodySchema,
  SetLimitBodySchema,
  type LimitListQuery,
  type LimitSettingsBody,
  type SetLimitBody,
} from '../schemas/limits.js';
import { LimitFullError, WindowLimits, windowKey, type WindowLimitRow } from '../../store/window-limits.js';
import { windowAt, type SpendPeriod } from '../../limits/windows.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A limit as the console shows it; a spend limit with its current window's spent and reserved amounts. */
function presentLimit(
  limit: WindowLimitRow,
  offsetMinutes: number,
  spend: Map<string, { spent: number; reserved: number }>,
  now: number,
) {
  const base = {
    object: 'limit' as const,
    id: limit.id,
    subject_kind: limit.subject_kind,
    subject_id: limit.subject_id,
    metric: limit.metric,
    window: limit.period,
    created_at: iso(limit.created_at),
    updated_at: iso(limit.updated_at),
  };
  if (limit.metric !== 'spend') return { ...base, amount: Number(limit.amount), current: null };
  const window = windowAt(limit.period as SpendPeriod, now, offsetMinutes);
  const used = spend.get(windowKey(limit.id, window.start)) ?? { spent: 0, reserved: 0 };
  return {
    ...base,
    amount: Number(limit.amount) / 1e6,
    current: {
      window_start: iso(window.start),
      window_end: Number.isFinite(window.end) ? iso(window.end) : null,
      spent_usd: used.spent / 1e6,
      reserved_usd: used.reserved / 1e6,
    },
  };
}

/** Whether the organization has this key, member or group. */
async function subjectExists(services: ConsoleServices, orgId: string, kind: string, id: string): Promise<boolean> {
  const table = kind === 'key' ? 'api_keys' : kind === 'member' ? 'organization_members' : 'member_groups';
  const row = await services.store.db
    .selectFrom(table)
    .select('id')
    .where('organization_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** The stored amount (micro-USD or a count per minute), or a 400 naming what is wrong with the body. */
function storedAmount(body: SetLimitBody): number {
  if (body.metric === 'spend') {
    if (body.window === 'minute')
      throw new ConsoleError('invalid_request', 'A spend limit has a daily, monthly or lifetime window.', 'window');
    const micro = Math.round(body.amount * 1e6);
    if (Math.abs(micro - body.amount * 1e6) > 1e-3)
      throw new ConsoleError('invalid_request', 'A spend amount has at most 6 decimals (micro-USD).', 'amount');
    return micro;
  }
  if (body.window !== 'minute')
    throw new ConsoleError('invalid_request', `A ${body.metric} limit counts per minute: window "minute".`, 'window');
  if (body.subject_kind === 'group')
    throw new ConsoleError('invalid_request', 'Rates per minute apply to a key or a member.', 'subject_kind');
  if (!Number.isInteger(body.amount) || body.amount < 1)
    throw new ConsoleError('invalid_request', `A ${body.metric} limit is a whole number, at least 1.`, 'amount');
  return body.amount;
}

/**
 * GET    /v1/organizations/{orgId}/limits                    the organization's limits (filter by subject)
 * POST   /v1/organizations/{orgId}/limits                    set a subject's limit (201 new, 200 replaced)
 * DELETE /v1/organizations/{orgId}/limits/{limitId}          remove it (its window spend too): {deleted: true}
 * GET    /v1/organizations/{orgId}/limit_settings            the window offset from UTC
 * PUT    /v1/organizations/{orgId}/limit_settings            set it
 * docs/limits.md; the organization scope answers another organization's token with 403.
 */
export function registerLimitRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const limits = new WindowLimits(services.store);

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: LimitListQuery }>(
    '/v1/organizations/:orgId/limits',
    { schema: { params: OrgParamsSchema, querystring: LimitListQuerySchema } },
    async (request) => {
      const { orgId } = request.params;
      const { subject_kind: kind, subject_id: id } = request.query;
      if ((kind === undefined) !== (id === undefined))
        throw new ConsoleError('invalid_request', 'subject_kind and subject_id go together.', 'subject_id');
      const rows = await limits.list(orgId, kind && id ? { kind, id } : undefined);
      const offset = await limits.windowOffset(orgId);
      const now = Date.now();
      const windows = rows
        .filter((row) => row.metric === 'spend')
        .map((row) => ({ limitId: row.id, windowStart: windowAt(row.period as SpendPeriod, now, offset).start }));
      const spend = await limits.windowSpend(windows);
      return { object: 'list', data: rows.map((row) => presentLimit(row, offset, spend, now)) };
    },
  );

  app.post<{ Params: Static<typeof OrgParamsSchema>; Body: SetLimitBody }>(
    '/v1/organizations/:orgId/limits',
    { schema: { params: OrgParamsSchema, body: SetLimitBodySchema } },
    async (request, reply) => {
      const { orgId } = request.params;
      const body = request.body;
      const amount = storedAmount(body);
      if (!(await subjectExists(services, orgId, body.subject_kind, body.subject_id)))
        throw new ConsoleError(
          'invalid_request',
          `This organization has no ${body.subject_kind} "${body.subject_id.slice(0, 100)}".`,
          'subject_id',
        );
      try {
        const { limit, created } = await limits.set({
          organizationId: orgId,
          subjectKind: body.subject_kind,
          subjectId: body.subject_id,
          metric: body.metric,
          period: body.window,
          amount,
        });
        const now = Date.now();
        const offset = await limits.windowOffset(orgId);
        const start = limit.metric === 'spend' ? windowAt(limit.period as SpendPeriod, now, offset).start : 0;
        const spend = await limits.windowSpend(
          limit.metric === 'spend' ? [{ limitId: limit.id, windowStart: start }] : [],
        );
        return reply.code(created ? 201 : 200).send(presentLimit(limit, offset, spend, now));
      } catch (error) {
        if (error instanceof LimitFullError) throw new ConsoleError('conflict', error.message);
        throw error;
      }
    },
  );

  app.delete<{ Params: Static<typeof LimitParamsSchema> }>(
    '/v1/organizations/:orgId/limits/:limitId',
    { schema: { params: LimitParamsSchema } },
    async (request) => {
      const removed = await limits.remove(request.params.orgId, request.params.limitId);
      if (!removed) throw new ConsoleError('not_found', 'This organization has no such limit.');
      return { object: 'limit', id: request.params.limitId, deleted: true };
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/limit_settings',
    { schema: { params: OrgParamsSchema } },
    async (request) => ({
      object: 'limit_settings',
      window_offset_minutes: await limits.windowOffset(request.params.orgId),
    }),
  );

  app.put<{ Params: Static<typeof OrgParamsSchema>; Body: LimitSettingsBody }>(
    '/v1/organizations/:orgId/limit_settings',
    { schema: { params: OrgParamsSchema, body: LimitSettingsBodySchema } },
    async (request) => {
      await limits.setWindowOffset(request.params.orgId, request.body.window_offset_minutes);
      return { object: 'limit_settings', window_offset_minutes: request.body.window_offset_minutes };
    },
  );
}
