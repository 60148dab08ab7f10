import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { Transaction } from 'kysely';
import type { Database, OrganizationMembersTable } from './schema.js';
import { digestSecret, generateSecret } from '../secrets/secret-codec.js';
import { isUniqueViolation } from './unique-violation.js';

export type MemberRole = OrganizationMembersTable['role'];
export type MemberStatus = OrganizationMembersTable['status'];
export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'member'];

/** A member as the rest of the code sees it: never the invite's digest. */
export interface OrganizationMember {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  role: MemberRole;
  groupId: string | null;
  status: MemberStatus;
  inviteExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  joinedAt: number | null;
}

/** Members (invited, active) one organization may hold: bounds the table and every listing. */
export const MAX_MEMBERS_PER_ORGANIZATION = 1_000;
/** Rows one organization may hold, removed members included (kept for history, reused on a re-invite). */
export const MAX_MEMBER_ROWS_PER_ORGANIZATION = 5_000;
/** The prefix of an invite link's secret, so a leaked one is recognisable. */
export const INVITE_SECRET_PREFIX = 'gwi_';

export function toMember(row: OrganizationMembersTable): OrganizationMember {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    groupId: row.group_id,
    status: row.status,
    inviteExpiresAt: row.invite_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    joinedAt: row.joined_at,
  };
}

/** Emails are compared as lower case: `Ada@x.org` and `ada@x.org` are one person. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export type InviteOutcome =
  | { kind: 'invited'; member: OrganizationMember; secret: string }
  | { kind: 'exists'; member: OrganizationMember }
  | { kind: 'full' };

export type AcceptOutcome =
  { kind: 'accepted'; member: OrganizationMember } | { kind: 'invalid' } | { kind: 'expired' };

/**
 * The people of an organization (migration 026). A removed member's row stays (status `removed`)
 * so usage rows attributed to it still name a person; inviting the same address again reuses it.
 * Invite secrets are stored as SHA-256 digests only and cleared when accepted (single use).
 */
export class OrganizationMemberRepository {
  constructor(private readonly store: Store) {}

  async list(organizationId: string): Promise<OrganizationMember[]> {
    const rows = await this.store.db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('status', '!=', 'removed')
      .orderBy('created_at')
      .orderBy('id')
      .limit(MAX_MEMBERS_PER_ORGANIZATION)
      .execute();
    return rows.map(toMember);
  }

  /** A current (invited or active) member of the organization. */
  async get(organizationId: string, id: string): Promise<OrganizationMember | undefined> {
    const row = await this.store.db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('status', '!=', 'removed')
      .executeTakeFirst();
    return row && toMember(row);
  }

  async findByEmail(organizationId: string, email: string): Promise<OrganizationMember | undefined> {
    const row = await this.store.db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('email', '=', normalizeEmail(email))
      .where('status', '!=', 'removed')
      .executeTakeFirst();
    return row && toMember(row);
  }

  async activeOwner(organizationId: string): Promise<OrganizationMember | undefined> {
    const row = await this.store.db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'owner')
      .where('status', '=', 'active')
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
    return row && toMember(row);
  }

  /** Current (invited or active) members; with `removed`, every row of the organization. */
  async count(organizationId: string, removed = false): Promise<number> {
    let query = this.store.db
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('organization_id', '=', organizationId);
    if (!removed) query = query.where('status', '!=', 'removed');
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /**
   * An invite (or a fresh one for an address whose invite is still open or that was removed):
   * the secret is returned once, its digest stored with its expiry.
   */
  async invite(input: {
    organizationId: string;
    email: string;
    name: string | null;
    role: MemberRole;
    groupId: string | null;
    ttlMs: number;
    now?: number;
    retried?: boolean;
  }): Promise<InviteOutcome> {
    const now = input.now ?? Date.now();
    const email = normalizeEmail(input.email);
    const secret = generateSecret(INVITE_SECRET_PREFIX);
    const invite = {
      name: input.name,
      role: input.role,
      group_id: input.groupId,
      status: 'invited' as const,
      invite_digest: digestSecret(secret),
      invite_expires_at: now + input.ttlMs,
      updated_at: now,
      joined_at: null,
    };
    const existing = await this.store.db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', input.organizationId)
      .where('email', '=', email)
      .executeTakeFirst();
    if (existing?.status === 'active') return { kind: 'exists', member: toMember(existing) };
    const current = existing?.status === 'invited';
    if (!current && (await this.count(input.organizationId)) >= MAX_MEMBERS_PER_ORGANIZATION) return { kind: 'full' };
    if (!existing && (await this.count(input.organizationId, true)) >= MAX_MEMBER_ROWS_PER_ORGANIZATION)
      return { kind: 'full' };
    if (existing) {
      await this.store.db.updateTable('organization_members').set(invite).where('id', '=', existing.id).execute();
      return { kind: 'invited', member: toMember({ ...existing, ...invite }), secret };
    }
    const row: OrganizationMembersTable = {
      id: randomUUID(),
      organization_id: input.organizationId,
      email,
      created_at: now,
      ...invite,
    };
    try {
      await this.store.db.insertInto('organization_members').values(row).execute();
    } catch (error) {
      // Two invites of one new address at once: the later one becomes a fresh invite of the row the first made.
      if (isUniqueViolation(error) && !input.retried) return this.invite({ ...input, retried: true });
      throw error;
    }
    return { kind: 'invited', member: toMember(row), secret };
  }

  /**
   * Accepts an invite link: one conditional update clears the digest, so of two concurrent
   * acceptances of one link only one activates the member.
   */
  async accept(secret: string, now = Date.now()): Promise<AcceptOutcome> {
    const digest = digestSecret(secret);
    const row = await this.store.db
      .selectFrom('organization_members')
      .selectAll()
      .where('invite_digest', '=', digest)
      .where('status', '=', 'invited')
      .executeTakeFirst();
    if (!row) return { kind: 'invalid' };
    if (row.invite_expires_at === null || row.invite_expires_at <= now) return { kind: 'expired' };
    const accepted = {
      status: 'active' as const,
      invite_digest: null,
      invite_expires_at: null,
      joined_at: now,
      updated_at: now,
    };
    const result = await this.store.db
      .updateTable('organization_members')
      .set(accepted)
      .where('id', '=', row.id)
      .where('invite_digest', '=', digest)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return { kind: 'invalid' };
    return { kind: 'accepted', member: toMember({ ...row, ...accepted }) };
  }

  /** An active member created directly (the organization's first owner: `admin bootstrap --email`, `launch`). */
  async addActive(input: {
    organizationId: string;
    email: string;
    role: MemberRole;
    now?: number;
  }): Promise<OrganizationMember> {
    const now = input.now ?? Date.now();
    const existing = await this.findByEmail(input.organizationId, input.email);
    if (existing?.status === 'active') return existing;
    const outcome = await this.invite({ ...input, name: null, groupId: null, ttlMs: 60_000, now });
    if (outcome.kind !== 'invited') throw new Error(`Cannot add a member to organization ${input.organizationId}.`);
    const accepted = await this.accept(outcome.secret, now);
    if (accepted.kind !== 'accepted') throw new Error('The new member could not be activated.');
    return accepted.member;
  }

  /**
   * Changes role, name or group. Demoting the organization's last active owner is refused
   * (`last_owner`): the owners are read under a row lock on PostgreSQL (SQLite runs one write
   * transaction at a time), so two owners demoting each other at once cannot both succeed.
   */
  async update(
    organizationId: string,
    id: string,
    patch: { role?: MemberRole; groupId?: string | null; name?: string | null },
  ): Promise<OrganizationMember | undefined | 'last_owner'> {
    const changes: Partial<OrganizationMembersTable> = { updated_at: Date.now() };
    if (patch.role !== undefined) changes.role = patch.role;
    if (patch.groupId !== undefined) changes.group_id = patch.groupId;
    if (patch.name !== undefined) changes.name = patch.name;
    const outcome = await this.store.db.transaction().execute(async (trx) => {
      if (patch.role !== undefined && patch.role !== 'owner' && (await this.isLastOwner(trx, organizationId, id)))
        return 'last_owner' as const;
      await trx
        .updateTable('organization_members')
        .set(changes)
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .where('status', '!=', 'removed')
        .execute();
      return 'done' as const;
    });
    return outcome === 'last_owner' ? outcome : this.get(organizationId, id);
  }

  /**
   * Removes a member: the row is kept as `removed` (history names it), the open invite is
   * cleared, the member's console tokens are deleted and its keys deactivated (kept for their
   * usage; an admin may give them to someone else and turn them on again). One transaction.
   */
  async remove(
    organizationId: string,
    id: string,
  ): Promise<{ removed: boolean; deactivatedKeyIds: string[] } | 'last_owner'> {
    return this.store.db.transaction().execute(async (trx) => {
      if (await this.isLastOwner(trx, organizationId, id)) return 'last_owner';
      const now = Date.now();
      const result = await trx
        .updateTable('organization_members')
        .set({ status: 'removed', invite_digest: null, invite_expires_at: null, group_id: null, updated_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .where('status', '!=', 'removed')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return { removed: false, deactivatedKeyIds: [] };
      await trx
        .deleteFrom('console_tokens')
        .where('organization_id', '=', organizationId)
        .where('member_id', '=', id)
        .execute();
      const keys = await trx
        .selectFrom('api_keys')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('member_id', '=', id)
        .where('deleted_at', 'is', null)
        .where('active', '=', 1)
        .execute();
      if (keys.length > 0)
        await trx
          .updateTable('api_keys')
          .set({ active: 0, updated_at: now })
          .where(
            'id',
            'in',
            keys.map((k) => k.id),
          )
          .execute();
      return { removed: true, deactivatedKeyIds: keys.map((k) => k.id) };
    });
  }

  /** Whether `id` is the organization's only active owner; on PostgreSQL the owners' rows stay locked until commit. */
  private async isLastOwner(trx: Transaction<Database>, organizationId: string, id: string): Promise<boolean> {
    let query = trx
      .selectFrom('organization_members')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'owner')
      .where('status', '=', 'active');
    if (this.store.dialect === 'postgres') query = query.forUpdate();
    const owners = await query.execute();
    return owners.length === 1 && owners[0]!.id === id;
  }
}
