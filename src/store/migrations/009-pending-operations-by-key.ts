import type { Kysely } from 'kysely';

/**
 * Each gateway key keeps at most GATEWAY_PENDING_MAX_PER_KEY live pending ids: every new one
 * trims the key's oldest beyond the cap (src/gateway-tools/pending-operations.ts), a lookup
 * of the key's rows newest first that this index serves.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('gateway_pending_operations_key_time')
    .ifNotExists()
    .on('gateway_pending_operations')
    .columns(['api_key_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('gateway_pending_operations_key_time').ifExists().execute();
}
