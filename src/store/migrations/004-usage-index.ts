import type { Kysely } from 'kysely';

/**
 * usage_records_org_time (organization_id, created_at) is a prefix of usage_records_org_time_id
 * (organization_id, created_at, id), so every query it served the longer one serves as well; it
 * only cost one more index page written on every usage commit of the request path.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_records_org_time').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('usage_records_org_time')
    .ifNotExists()
    .on('usage_records')
    .columns(['organization_id', 'created_at'])
    .execute();
}
