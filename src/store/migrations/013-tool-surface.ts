import type { Kysely } from 'kysely';

/**
 * The tool surface of a compressed conversation (issue 19 item 5, src/compress/tool-surface.ts):
 * `dropped_tool_groups` holds the groups of tools the conversation drops, decided at its first
 * request and never changed (NULL: not decided, rows stored before this migration);
 * `offered_tool_groups` the groups its first request offered and `called_tool_groups` those its
 * requests called, from which the key's finished conversations tell which groups go unused.
 * JSON arrays of names, as text; nullable columns without a default rewrite no row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['dropped_tool_groups', 'offered_tool_groups', 'called_tool_groups'])
    await db.schema.alterTable('compression_conversations').addColumn(column, 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['called_tool_groups', 'offered_tool_groups', 'dropped_tool_groups'])
    await db.schema.alterTable('compression_conversations').dropColumn(column).execute();
}
