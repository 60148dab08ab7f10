import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { WindowLimitsTable } from './schema.js';

export type WindowLimitRow = WindowLimitsTable;
export type LimitSubjectKind = WindowLimitsTable['subject_kind'];
export type LimitMetric = WindowLimitsTable['metric'];
export type LimitPeriod = WindowLimitsTable['period'];

/** Limits one organization may hold (each subject has at most one per metric and period). */
export const MAX_LIMITS_PER_ORGANIZATION = 2_000;
/** Window rows older than this are deleted by the ledger's sweep (the console reads the current window only). */
export const WINDOW_SPEND_RETENTION_MS = 400 * 24 * 3600 * 1000;

export interface NewWindowLimit {
  organizationId: string;
  subjectKind: LimitSubjectKind;
  subjectId: string;
  metric: LimitMetric;
  period: LimitPeriod;
  amount: number;
}

/** What a key's requests are held to: the limits of the key, of its member and of the member's group. */
export interface ApplicableLimits {
  limits: WindowLimitRow[];
  /** The organization's window offset from UTC, in minutes (0: UTC). */
  offsetMinutes: number;
}

export class LimitFullError extends Error {
  constructor() {
    super(`An organization holds at most ${MAX_LIMITS_PER_ORGANIZATION} limits; remove some first.`);
  }
}

/**
 * The `window_limits`, `limit_settings` and (read-only here) `limit_window_spend` tables of
 * migration 027 (docs/limits.md). The budget ledger (src/limits/) is the only writer of window spend.
 */
export class WindowLimits {
  constructor(private readonly store: Store) {}

  list(organizationId: string, subject?: { kind: LimitSubjectKind; id: string }): Promise<WindowLimitRow[]> {
    let query = this.store.db.selectFrom('window_limits').selectAll().where('organization_id', '=', organizationId);
    if (subject) query = query.where('subject_kind', '=', subject.kind).where('subject_id', '=', subject.id);
    return query.orderBy('created_at').orderBy('id').limit(MAX_LIMITS_PER_ORGANIZATION).execute();
  }

  get(organizationId: string, id: string): Promise<WindowLimitRow | undefined> {
    return this.store.db
      .selectFrom('window_limits')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /**
   * Sets the subject's limit of this metric and period: a new limit, or a new amount for the one
   * it has (its spent amounts are kept). Throws LimitFullError past the organization's cap.
   */
  async set(input: NewWindowLimit, now = Date.now()): Promise<{ limit: WindowLimitRow; created: boolean }> {
    return this.store.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('window_limits')
        .selectAll()
        .where('subject_kind', '=', input.subjectKind)
        .where('subject_id', '=', input.subjectId)
        .where('metric', '=', input.metric)
        .where('period', '=', input.period)
        .executeTakeFirst();
      if (existing) {
        await trx
          .updateTable('window_limits')
          .set({ amount: input.amount, updated_at: now })
          .where('id', '=', existing.id)
          .execute();
        return { limit: { ...existing, amount: input.amount, updated_at: now }, created: false };
      }
      const { count } = await trx
        .selectFrom('window_limits')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organization_id', '=', input.organizationId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= MAX_LIMITS_PER_ORGANIZATION) throw new LimitFullError();
      const limit: WindowLimitRow = {
        id: `lim_${randomUUID().replaceAll('-', '')}`,
        organization_id: input.organizationId,
        subject_kind: input.subjectKind,
        subject_id: input.subjectId,
        metric: input.metric,
        period: input.period,
        amount: input.amount,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('window_limits').values(limit).execute();
      return { limit, created: true };
    });
  }

  /** Removes a limit and its windows' spend; false when the organization has no such limit. */
  async remove(organizationId: string, id: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const removed = await trx
        .deleteFrom('window_limits')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) return false;
      await trx.deleteFrom('limit_window_spend').where('limit_id', '=', id).execute();
      return true;
    });
  }

  /** The limits of the key, of its member (when it has one) and of that member's group. */
  async applicableTo(key: { id: string; organizationId: string; memberId: string | null }): Promise<ApplicableLimits> {
    const { memberId, organizationId } = key;
    const group = memberId
      ? await this.store.db
          .selectFrom('organization_members')
          .select('group_id')
          .where('id', '=', memberId)
          .where('organization_id', '=', organizationId)
          .executeTakeFirst()
      : undefined;
    const groupId = group?.group_id ?? null;
    const limits = await this.store.db
      .selectFrom('window_limits')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where((eb) =>
        eb.or([
          eb.and([eb('subject_kind', '=', 'key'), eb('subject_id', '=', key.id)]),
          ...(memberId ? [eb.and([eb('subject_kind', '=', 'member'), eb('subject_id', '=', memberId)])] : []),
          ...(groupId ? [eb.and([eb('subject_kind', '=', 'group'), eb('subject_id', '=', groupId)])] : []),
        ]),
      )
      .execute();
    const offsetMinutes = limits.length === 0 ? 0 : await this.windowOffset(organizationId);
    return { limits, offsetMinutes };
  }

  async windowOffset(organizationId: string): Promise<number> {
    const row = await this.store.db
      .selectFrom('limit_settings')
      .select('window_offset_minutes')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.window_offset_minutes ?? 0;
  }

  async setWindowOffset(organizationId: string, minutes: number, now = Date.now()): Promise<void> {
    await this.store.db
      .insertInto('limit_settings')
      .values({ organization_id: organizationId, window_offset_minutes: minutes, updated_at: now })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ window_offset_minutes: minutes, updated_at: now }))
      .execute();
  }

  /** Spent and reserved micro-USD of each (limit, window start) asked for; a window never reserved in is absent. */
  async windowSpend(
    windows: ReadonlyArray<{ limitId: string; windowStart: number }>,
  ): Promise<Map<string, { spent: number; reserved: number }>> {
    const spend = new Map<string, { spent: number; reserved: number }>();
    if (windows.length === 0) return spend;
    const rows = await this.store.db
      .selectFrom('limit_window_spend')
      .selectAll()
      .where((eb) =>
        eb.or(windows.map((w) => eb.and([eb('limit_id', '=', w.limitId), eb('window_start', '=', w.windowStart)]))),
      )
      .execute();
    for (const row of rows)
      spend.set(windowKey(row.limit_id, Number(row.window_start)), {
        spent: Number(row.spent_micro_usd),
        reserved: Number(row.reserved_micro_usd),
      });
    return spend;
  }

  /** Deletes window rows that ended long ago and hold nothing (lifetime windows, start 0, are kept). */
  async pruneWindows(now: number): Promise<number> {
    const removed = await this.store.db
      .deleteFrom('limit_window_spend')
      .where('window_start', '>', 0)
      .where('window_start', '<', now - WINDOW_SPEND_RETENTION_MS)
      .where('reserved_micro_usd', '=', 0)
      .executeTakeFirst();
    return Number(removed.numDeletedRows);
  }
}

/** The key of `windowSpend`'s map. */
export function windowKey(limitId: string, windowStart: number): string {
  return `${limitId}|${windowStart}`;
}
