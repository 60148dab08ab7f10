import type { Kysely } from 'kysely';

/**
 * Alerts (issue 30 item 4, docs/alerts.md): an organization's alert rules (what they watch,
 * their thresholds and webhook destinations, the signing secret sealed with the master key), and
 * the alerts they fired. A firing is unique per (rule, subject, threshold, window start), so two
 * instances evaluating the same spend fire once: the second insert meets the unique index.
 * Expand-only: two new tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_rules')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('thresholds', 'text', (c) => c.notNull())
    .addColumn('destinations', 'text', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('alert_rules_org_time')
    .ifNotExists()
    .on('alert_rules')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('alert_firings')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('threshold', 'integer', (c) => c.notNull())
    .addColumn('window_kind', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('window_end', 'bigint')
    .addColumn('limit_micro_usd', 'bigint', (c) => c.notNull())
    .addColumn('spent_micro_usd', 'bigint', (c) => c.notNull())
    .addColumn('fired_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('alert_firings_once')
    .ifNotExists()
    .unique()
    .on('alert_firings')
    .columns(['rule_id', 'subject', 'threshold', 'window_start'])
    .execute();
  await db.schema
    .createIndex('alert_firings_org_id')
    .ifNotExists()
    .on('alert_firings')
    .columns(['organization_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alert_firings').ifExists().execute();
  await db.schema.dropTable('alert_rules').ifExists().execute();
}
