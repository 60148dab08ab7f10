import { sql, type Kysely } from 'kysely';

/**
 * Rows of refused or failed requests that cost nothing (status 400 and above, cost 0: the
 * gateway's refusals, issue 27 item 6) expire after GATEWAY_REFUSAL_RETENTION_DAYS
 * (metering/refusal-retention.ts). This partial index lets the sweep find them by age without
 * scanning the billing rows; its predicate is the one the sweep's query repeats word for word
 * (store/usage-refusal-retention.ts), which both SQLite and PostgreSQL need to use it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('usage_records_free_failures_time')
    .on('usage_records')
    .column('created_at')
    .where(sql<boolean>`status_code >= 400 and cost_micro_usd = 0`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_records_free_failures_time').ifExists().execute();
}
