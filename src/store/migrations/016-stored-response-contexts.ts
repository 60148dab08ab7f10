import type { Kysely } from 'kysely';

/**
 * Stored context of responses the gateway returned (issue 27 item 3, src/store/stored-responses.ts):
 * one row per organization and upstream response id with the tokens that response leaves in the
 * provider's stored context (its input plus its output). A later request that continues it
 * (`previous_response_id`) is estimated with them, so a key's ceiling also covers what the
 * provider bills again as input (docs/budgets.md, "Stored context"). Rows expire like the
 * provider's stored responses (`expires_at`, swept lazily).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stored_response_contexts')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('response_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('context_tokens', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('stored_response_contexts_pk', ['organization_id', 'response_id'])
    .execute();
  await db.schema
    .createIndex('stored_response_contexts_expiry')
    .on('stored_response_contexts')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('stored_response_contexts').ifExists().execute();
}
