import type { Kysely } from 'kysely';

/**
 * usage_records_key_time (api_key_id, created_at) served no query: every read of usage rows is
 * scoped to an organization and a time window (summary, savings, export), which
 * usage_records_org_time_id serves, a key filter included. It cost 1.7 of the ~8.8 pages a usage
 * commit of five rows writes on SQLite (WAL frames measured per commit), on every request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_records_key_time').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('usage_records_key_time')
    .ifNotExists()
    .on('usage_records')
    .columns(['api_key_id', 'created_at'])
    .execute();
}
