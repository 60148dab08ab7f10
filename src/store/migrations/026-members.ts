import type { Kysely } from 'kysely';

/**
 * People of an organization (issue 30 item 2): members with a role, optional groups of members
 * with shared settings, keys and console tokens owned by a member, and usage rows attributed to
 * the member who owned the key when the request was served (so moving a key later does not
 * rewrite history). Expand-only: every new column is nullable.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('member_groups')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('member_groups_org_name')
    .ifNotExists()
    .unique()
    .on('member_groups')
    .columns(['organization_id', 'name'])
    .execute();
  await db.schema
    .createTable('organization_members')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('invite_digest', 'text')
    .addColumn('invite_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('joined_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('organization_members_org_email')
    .ifNotExists()
    .unique()
    .on('organization_members')
    .columns(['organization_id', 'email'])
    .execute();
  await db.schema
    .createIndex('organization_members_invite')
    .ifNotExists()
    .on('organization_members')
    .column('invite_digest')
    .execute();
  await db.schema.alterTable('api_keys').addColumn('member_id', 'text').execute();
  await db.schema.alterTable('console_tokens').addColumn('member_id', 'text').execute();
  await db.schema.alterTable('usage_records').addColumn('member_id', 'text').execute();
  await db.schema
    .createIndex('usage_records_org_member')
    .ifNotExists()
    .on('usage_records')
    .columns(['organization_id', 'member_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_records_org_member').ifExists().execute();
  await db.schema.alterTable('usage_records').dropColumn('member_id').execute();
  await db.schema.alterTable('console_tokens').dropColumn('member_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('member_id').execute();
  await db.schema.dropTable('organization_members').ifExists().execute();
  await db.schema.dropTable('member_groups').ifExists().execute();
}
