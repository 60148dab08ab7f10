import type { Kysely } from 'kysely';

/**
 * Conversation state of the compression engine (issue 19, src/store/compression-conversations.ts):
 * one row per API key and conversation, so that every gateway instance rebuilds exactly the
 * prompt prefix the previous request sent (the boundary of the last history rewrite), and
 * decides the next rewrite with the cache usage the upstream reported and the money at stake.
 * Rows expire (`expires_at`, swept lazily); the lengths of a key's finished conversations are
 * what the rewrite policy learns from (`compression_conversations_key_recent`).
 * Also `api_keys.cache_breakpoints`: a key can turn the gateway's cache management off.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('compression_conversations')
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('mask_before', 'integer', (c) => c.notNull())
    .addColumn('rewrite_at', 'bigint')
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('last_request_at', 'bigint', (c) => c.notNull())
    .addColumn('last_cache_read', 'bigint')
    .addColumn('last_cache_write', 'bigint')
    .addColumn('saved_units', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('compression_conversations_pk', ['api_key_id', 'conversation_id'])
    .execute();
  await db.schema
    .createIndex('compression_conversations_expiry')
    .on('compression_conversations')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('compression_conversations_key_recent')
    .on('compression_conversations')
    .columns(['api_key_id', 'last_request_at'])
    .execute();
  // Per key: whether the gateway manages prompt caching (cache breakpoints for Anthropic, a
  // prompt_cache_key for OpenAI). On by default; a constant default rewrites no row.
  await db.schema
    .alterTable('api_keys')
    .addColumn('cache_breakpoints', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('cache_breakpoints').execute();
  await db.schema.dropTable('compression_conversations').ifExists().execute();
}
