import type { Kysely } from 'kysely';

// `bigint` columns: integer millisecond times and micro-USD amounts exceed 32 bits.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('console_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('permission', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('console_tokens_org').on('console_tokens').column('organization_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('coding_assistant', 'text')
    .addColumn('models', 'text', (c) => c.notNull())
    .addColumn('max_usage_usd', 'bigint')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('debug_mode', 'integer', (c) => c.notNull())
    .addColumn('compression', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('email', 'text')
    .addColumn('key_digest', 'text', (c) => c.notNull().unique())
    .addColumn('key_ciphertext', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').columns(['organization_id', 'created_at']).execute();

  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('upstream_model', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cached_input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_creation_input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('reasoning_tokens', 'bigint', (c) => c.notNull())
    .addColumn('uncompressed_input_tokens', 'bigint')
    .addColumn('cost_micro_usd', 'bigint', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('stream', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_records_org_time')
    .on('usage_records')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('usage_records_key_time')
    .on('usage_records')
    .columns(['api_key_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('key_spend')
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('spent_micro_usd', 'bigint', (c) => c.notNull())
    .addColumn('reserved_micro_usd', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_spend_pk', ['api_key_id', 'month'])
    .execute();

  await db.schema
    .createTable('budget_reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('budget_reservations_expiry').on('budget_reservations').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'budget_reservations',
    'key_spend',
    'usage_records',
    'api_keys',
    'console_tokens',
    'organizations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
