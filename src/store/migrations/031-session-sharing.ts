import type { Kysely } from 'kysely';

/**
 * Sessions pages (issue 30 item 1): the compression strategies each usage row's request had
 * applied (a short comma-separated list of strategy names; null when compression did not run or
 * removed nothing), and read-only share links of one session. A link's secret is stored only as
 * its SHA-256 digest; a link expires, and can be revoked before. Expand-only: a nullable column
 * and a new table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_records').addColumn('compression_strategies', 'text').execute();
  await db.schema
    .createTable('session_share_links')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('secret_digest', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_by_token_id', 'text')
    .execute();
  await db.schema
    .createIndex('session_share_links_digest')
    .ifNotExists()
    .unique()
    .on('session_share_links')
    .column('secret_digest')
    .execute();
  await db.schema
    .createIndex('session_share_links_org_session')
    .ifNotExists()
    .on('session_share_links')
    .columns(['organization_id', 'session_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('session_share_links').ifExists().execute();
  await db.schema.alterTable('usage_records').dropColumn('compression_strategies').execute();
}
