import type { Kysely } from 'kysely';

/**
 * Usage rows name the agent session they belong to and the agent that sent them (issue 30 item 1):
 * the console lists sessions per organization, hence the index. Nullable: rows of older builds,
 * and of clients that send no session header, have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_records').addColumn('session_id', 'text').execute();
  await db.schema.alterTable('usage_records').addColumn('agent', 'text').execute();
  await db.schema
    .createIndex('usage_records_org_session')
    .ifNotExists()
    .on('usage_records')
    .columns(['organization_id', 'session_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_records_org_session').ifExists().execute();
  await db.schema.alterTable('usage_records').dropColumn('agent').execute();
  await db.schema.alterTable('usage_records').dropColumn('session_id').execute();
}
