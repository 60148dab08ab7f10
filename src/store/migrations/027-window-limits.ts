import type { Kysely } from 'kysely';

/**
 * Limits by window (issue 30 item 3, docs/limits.md): spend limits of a key, member or group over
 * a daily, monthly or lifetime window, and request and token rates per minute of a key or member
 * (`window_limits`); the spend and reserve of each spend limit per window (`limit_window_spend`,
 * one row per limit and window start, written only by the budget ledger); the window offset an
 * organization chose (`limit_settings`; no row: UTC); and the windows a reservation holds room in
 * (`budget_reservations.limit_windows`, JSON, read by the sweeper that releases a dead process's
 * reservations). Expand-only: new tables and one nullable column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('window_limits')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // One limit per subject, metric and period: setting it again replaces its amount.
  await db.schema
    .createIndex('window_limits_subject')
    .ifNotExists()
    .unique()
    .on('window_limits')
    .columns(['subject_kind', 'subject_id', 'metric', 'period'])
    .execute();
  await db.schema
    .createIndex('window_limits_org')
    .ifNotExists()
    .on('window_limits')
    .column('organization_id')
    .execute();
  await db.schema
    .createTable('limit_window_spend')
    .ifNotExists()
    .addColumn('limit_id', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('spent_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('reserved_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('limit_window_spend_pk', ['limit_id', 'window_start'])
    .execute();
  await db.schema
    .createTable('limit_settings')
    .ifNotExists()
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('window_offset_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('budget_reservations').addColumn('limit_windows', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('budget_reservations').dropColumn('limit_windows').execute();
  await db.schema.dropTable('limit_settings').ifExists().execute();
  await db.schema.dropTable('limit_window_spend').ifExists().execute();
  await db.schema.dropTable('window_limits').ifExists().execute();
}
