import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { MemberGroupsTable } from './schema.js';
import { isUniqueViolation } from './unique-violation.js';

export interface MemberGroup {
  id: string;
  organizationId: string;
  name: string;
  settings: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** Groups one organization may hold. */
export const MAX_GROUPS_PER_ORGANIZATION = 200;

const toGroup = (row: MemberGroupsTable): MemberGroup => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  settings: JSON.parse(row.settings) as Record<string, unknown>,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type GroupWrite<T> = { kind: 'ok'; group: T } | { kind: 'name_taken' } | { kind: 'full' };

/**
 * Groups of members with shared settings (migration 026). `settings` is an opaque JSON object
 * here (its size is bounded at the console's edge); the limits work reads the members it knows.
 * Deleting a group takes its members out of it.
 */
export class MemberGroupRepository {
  constructor(private readonly store: Store) {}

  async list(organizationId: string): Promise<MemberGroup[]> {
    const rows = await this.store.db
      .selectFrom('member_groups')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .limit(MAX_GROUPS_PER_ORGANIZATION)
      .execute();
    return rows.map(toGroup);
  }

  async get(organizationId: string, id: string): Promise<MemberGroup | undefined> {
    const row = await this.store.db
      .selectFrom('member_groups')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toGroup(row);
  }

  async create(input: {
    organizationId: string;
    name: string;
    settings: Record<string, unknown>;
  }): Promise<GroupWrite<MemberGroup>> {
    const count = await this.store.db
      .selectFrom('member_groups')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('organization_id', '=', input.organizationId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_GROUPS_PER_ORGANIZATION) return { kind: 'full' };
    const now = Date.now();
    const row: MemberGroupsTable = {
      id: randomUUID(),
      organization_id: input.organizationId,
      name: input.name,
      settings: JSON.stringify(input.settings),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.store.db.insertInto('member_groups').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) return { kind: 'name_taken' };
      throw error;
    }
    return { kind: 'ok', group: toGroup(row) };
  }

  async update(
    organizationId: string,
    id: string,
    patch: { name?: string; settings?: Record<string, unknown> },
  ): Promise<GroupWrite<MemberGroup | undefined>> {
    const changes: Partial<MemberGroupsTable> = { updated_at: Date.now() };
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.settings !== undefined) changes.settings = JSON.stringify(patch.settings);
    try {
      await this.store.db
        .updateTable('member_groups')
        .set(changes)
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) return { kind: 'name_taken' };
      throw error;
    }
    return { kind: 'ok', group: await this.get(organizationId, id) };
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('member_groups')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await trx
        .updateTable('organization_members')
        .set({ group_id: null, updated_at: Date.now() })
        .where('organization_id', '=', organizationId)
        .where('group_id', '=', id)
        .execute();
      return true;
    });
  }
}
