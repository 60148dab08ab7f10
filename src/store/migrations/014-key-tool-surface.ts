import type { Kysely } from 'kysely';

/**
 * `api_keys.tool_surface` (issue 19 item 5, src/compress/tool-surface.ts): 1 = a new conversation
 * of the key decides once which unused tool groups it drops; 0 = its conversations drop none
 * (X-Gateway-Tool-Surface overrides it per request). On by default, as before this column; a
 * constant default adds the column without rewriting rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('tool_surface', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('tool_surface').execute();
}
