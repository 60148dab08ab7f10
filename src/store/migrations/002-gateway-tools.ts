import type { Kysely } from 'kysely';

/** Built-in gateway tools: activation and hydration per organization, and deferred tool calls. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('gateway_tool_settings')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('tool_id', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('active_key_ids', 'text')
    .addColumn('hydrate', 'integer', (c) => c.notNull())
    .addColumn('hydrate_key_ids', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('gateway_tool_settings_pk', ['organization_id', 'tool_id'])
    .execute();

  await db.schema
    .createTable('gateway_pending_operations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('tool_calls', 'text', (c) => c.notNull())
    .addColumn('gateway_results', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('gateway_pending_operations_expiry')
    .on('gateway_pending_operations')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gateway_pending_operations').ifExists().execute();
  await db.schema.dropTable('gateway_tool_settings').ifExists().execute();
}
