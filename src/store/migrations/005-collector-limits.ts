import { sql, type Kysely } from 'kysely';

/**
 * The collector's stored-event quota and retention (docs/console-api.md, "Limits").
 *
 * - `collected_event_totals`: stored events and their bytes per project, kept by the intake
 *   (same transaction as the events) and by the retention sweep, so the quota is checked with
 *   one locked row read instead of a count over the project's events. Filled here from the
 *   events already stored.
 * - `collected_events_received`: retention deletes the oldest events first, across projects.
 *   Keys grow with time, so the index takes its inserts at its right edge.
 *
 * Outbox rows need no index: their ids begin with the event's receive time (timeOrderedId), so
 * the expired ones are a range of the primary key. Warehouse rows are found per project through
 * warehouse_events_project_time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('collected_event_totals')
    .addColumn('project_id', 'text', (c) => c.primaryKey())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into collected_event_totals (project_id, events, bytes)
    select project_id, count(*), coalesce(sum(octet_length(payload)), 0) from collected_events group by project_id`.execute(
    db,
  );
  await db.schema.createIndex('collected_events_received').on('collected_events').column('received_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('collected_events_received').ifExists().execute();
  await db.schema.dropTable('collected_event_totals').ifExists().execute();
}
