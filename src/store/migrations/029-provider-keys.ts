import type { Kysely } from 'kysely';

/**
 * Provider keys per organization (issue 30 item 5, BYOK): an organization's own key for a
 * catalogue provider, sealed with the keyring like gateway keys (`key_ciphertext`, re-sealed by
 * `gateway admin rotate-master-key`), at most one per organization and provider; and the
 * organization's model and provider allow-lists, one row per organization that set any.
 * Expand-only: two new tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_provider_keys')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('key_ciphertext', 'text', (c) => c.notNull())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organization_provider_keys_org_provider')
    .ifNotExists()
    .unique()
    .on('organization_provider_keys')
    .columns(['organization_id', 'provider_id'])
    .execute();
  await db.schema
    .createTable('organization_allow_lists')
    .ifNotExists()
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('allowed_models', 'text')
    .addColumn('allowed_providers', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_allow_lists').ifExists().execute();
  await db.schema.dropIndex('organization_provider_keys_org_provider').ifExists().execute();
  await db.schema.dropTable('organization_provider_keys').ifExists().execute();
}
