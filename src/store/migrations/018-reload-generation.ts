import type { Kysely } from 'kysely';

/**
 * One row counting reloads asked for from the console (issue 31 item 4): every instance polls it
 * and reloads its configuration, provider keys, keyring and certificate when the count moves
 * (store/reload-generation.ts, docs/decisions.md "Reload on every instance").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reload_generation')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addColumn('requested_at', 'bigint', (c) => c.notNull())
    .addColumn('requested_by', 'text')
    .execute();
  await (db as Kysely<{ reload_generation: { id: number; generation: number; requested_at: number } }>)
    .insertInto('reload_generation')
    .values({ id: 1, generation: 0, requested_at: 0 })
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reload_generation').ifExists().execute();
}
