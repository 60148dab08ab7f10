import type { Kysely } from 'kysely';

/**
 * Debug capture (issue 30 item 6, docs/debug-capture.md): a key captures its requests until
 * `api_keys.debug_capture_until` (ms; null: off), and each captured request is one row of
 * `debug_captures`: what was received, what went upstream per attempt and what was answered, each
 * part redacted and capped before it is written. Expand-only: a new table and a nullable column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('debug_capture_until', 'bigint').execute();
  await db.schema
    .createTable('debug_captures')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('received', 'text', (c) => c.notNull())
    .addColumn('upstream', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('debug_captures_org_key_id')
    .ifNotExists()
    .on('debug_captures')
    .columns(['organization_id', 'api_key_id', 'id'])
    .execute();
  await db.schema
    .createIndex('debug_captures_created')
    .ifNotExists()
    .on('debug_captures')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('debug_captures').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('debug_capture_until').execute();
}
