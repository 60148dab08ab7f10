import type { Kysely } from 'kysely';

/**
 * One conversation state per history (issue 28 item 2, src/compress/prefix-digest.ts):
 * `prefix_digest` is the digest of the outputs before the stored rewrite boundary, which a
 * request must match to get that boundary (NULL: nothing masked, or a row stored before this
 * migration, whose boundary is then never applied); `history_generation` counts the times a
 * history that did not extend the stored one started the state over, so that a racing save of
 * the older history never brings its boundary back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('compression_conversations').addColumn('prefix_digest', 'text').execute();
  await db.schema
    .alterTable('compression_conversations')
    .addColumn('history_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('compression_conversations').dropColumn('history_generation').execute();
  await db.schema.alterTable('compression_conversations').dropColumn('prefix_digest').execute();
}
