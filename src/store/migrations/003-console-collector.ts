import { sql, type Kysely } from 'kysely';

/**
 * Projects (with the domains their collector serves), proxy-settings revisions, project
 * components, and the collector's tables: the intake log of collected events, the delivery
 * outbox, and the built-in warehouse component's events. Conventions as in 001: integer ms
 * times, 0/1 booleans, JSON text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('projects_org_slug', ['organization_id', 'slug'])
    .execute();
  await db.schema
    .createIndex('projects_org_created')
    .on('projects')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  // The primary key makes a domain belong to at most one project across all organizations.
  await db.schema
    .createTable('project_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_domains_project').on('project_domains').column('project_id').execute();

  await db.schema
    .createTable('proxy_settings')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('backends', 'text', (c) => c.notNull())
    .addColumn('routes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('proxy_settings_pk', ['project_id', 'revision'])
    .execute();
  // At most one active revision per project, enforced by the database as well as by the code.
  await sql`create unique index proxy_settings_one_active on proxy_settings (project_id) where is_active = 1`.execute(
    db,
  );

  await db.schema
    .createTable('project_components')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('component_id', 'text', (c) => c.notNull())
    .addColumn('component_version', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('project_components_project')
    .on('project_components')
    .columns(['project_id', 'created_at'])
    .execute();

  // Every accepted event, written before the collector answers.
  await db.schema
    .createTable('collected_events')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('collected_events_pk', ['project_id', 'event_id'])
    .execute();

  // The outbox: one row per (event, project component) still to deliver. `next_attempt_at` is
  // also the lease expiry while a worker holds the row (lease_token set).
  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('project_component_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_token', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('event_deliveries_due')
    .on('event_deliveries')
    .columns(['failed_at', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('event_deliveries_component')
    .on('event_deliveries')
    .column('project_component_id')
    .execute();

  await db.schema
    .createTable('warehouse_events')
    .addColumn('project_component_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('stored_at', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('warehouse_events_pk', ['project_component_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('warehouse_events_project_time')
    .on('warehouse_events')
    .columns(['project_id', 'received_at', 'event_id', 'project_component_id'])
    .execute();

  // The usage export pages on (created_at, id) inside one organization.
  await db.schema
    .createIndex('usage_records_org_time_id')
    .on('usage_records')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_records_org_time_id').ifExists().execute();
  for (const table of [
    'warehouse_events',
    'event_deliveries',
    'collected_events',
    'project_components',
    'proxy_settings',
    'project_domains',
    'projects',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
