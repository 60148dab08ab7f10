import type { Kysely } from 'kysely';

/**
 * What compression saved on a request, in micro-USD at the provider's prices with caching
 * counted (issue 19: the request path fills it). Null means unknown: no compression, or a row
 * written before the request path priced it. The Savings page estimates such rows from
 * `uncompressed_input_tokens` at the plain input price and marks the figures as estimates.
 * Adding a nullable column rewrites no row on SQLite or PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_records').addColumn('compression_savings_micro_usd', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_records').dropColumn('compression_savings_micro_usd').execute();
}
