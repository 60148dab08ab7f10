import type { Kysely } from 'kysely';

/**
 * `api_keys.output_brevity` (issue 19): 1 = the gateway adds a fixed instruction asking for answers
 * without filler (src/pipeline/output-brevity.ts). Off by default: it changes what the model
 * writes, which only the key's owner may decide. A constant default adds the column without
 * rewriting rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('output_brevity', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('output_brevity').execute();
}
