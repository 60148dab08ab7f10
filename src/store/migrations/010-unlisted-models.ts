import type { Kysely } from 'kysely';

/**
 * Flags usage rows of a model the catalogue does not list (issue 18): a well-formed name of a
 * configured provider is forwarded, and priced at that provider's highest known prices rather
 * than its own (src/catalogue/unlisted-model.ts). 1 = unlisted, 0 = the catalogue's price.
 * A constant default adds the column without rewriting rows on SQLite and PostgreSQL 11+.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('usage_records')
    .addColumn('model_unlisted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_records').dropColumn('model_unlisted').execute();
}
