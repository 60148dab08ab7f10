import { CompiledQuery, type Transaction } from 'kysely';
import type { Dialect, Store } from './database.js';
import type { Database } from './schema.js';

/** 12 hex digits of a time in milliseconds: the prefix of every id timeOrderedId made at that time. */
export function timePrefix(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
}

/**
 * Deletes what the collector stored before a cutoff, a bounded batch per call, each call one
 * short transaction (the sweeper in collector/retention-sweeper.ts calls them in a loop and
 * yields between calls). The oldest rows go first. On PostgreSQL the rows are chosen `FOR
 * UPDATE SKIP LOCKED`, so sweepers of several instances take disjoint batches instead of
 * waiting on each other; on SQLite a rowid list is the cheapest way to name them.
 */
export class CollectedEventRetention {
  private readonly statements: RetentionStatements;

  constructor(private readonly store: Store) {
    this.statements = new RetentionStatements(store.dialect);
  }

  /**
   * Outbox rows of events received before `cutoff`. Their ids start with the receive time, so
   * they are a range of the primary key; `created_at` (the same time) guards against any id not
   * made that way. Run before the events themselves, with the same cutoff, so no outbox row is
   * left pointing at a deleted event.
   */
  async deleteExpiredDeliveries(cutoff: number, limit: number): Promise<number> {
    return affected(await this.run(this.store.db, this.statements.deliveries(), [timePrefix(cutoff), cutoff, limit]));
  }

  /** Events received before `cutoff`, with their projects' totals lowered in the same transaction. */
  async deleteExpiredEvents(cutoff: number, limit: number): Promise<{ events: number; bytes: number }> {
    return this.store.db.transaction().execute(async (trx) => {
      const result = await this.run<{ project_id: string; bytes: number | string }>(trx, this.statements.events(), [
        cutoff,
        limit,
      ]);
      const byProject = new Map<string, { events: number; bytes: number }>();
      let bytes = 0;
      for (const row of result.rows) {
        let total = byProject.get(row.project_id);
        if (!total) byProject.set(row.project_id, (total = { events: 0, bytes: 0 }));
        total.events++;
        total.bytes += Number(row.bytes);
        bytes += Number(row.bytes);
      }
      for (const [projectId, total] of [...byProject].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        await this.run(trx, this.statements.lowerTotals(), [
          total.events,
          total.events,
          total.bytes,
          total.bytes,
          projectId,
        ]);
      return { events: result.rows.length, bytes };
    });
  }

  /** Projects that have stored events (or had): those whose warehouse copies may need sweeping. */
  async projects(): Promise<string[]> {
    const result = await this.run<{ project_id: string }>(this.store.db, this.statements.projects(), []);
    return result.rows.map((row) => row.project_id);
  }

  /** Warehouse copies of a project's events received before `cutoff`. */
  async deleteExpiredWarehouse(projectId: string, cutoff: number, limit: number): Promise<number> {
    return affected(await this.run(this.store.db, this.statements.warehouse(), [projectId, cutoff, limit]));
  }

  private run<R>(db: Transaction<Database> | Store['db'], text: string, parameters: unknown[]) {
    return db.executeQuery<R>(CompiledQuery.raw(text, parameters));
  }
}

function affected(result: { numAffectedRows?: bigint; rows: unknown[] }): number {
  return result.numAffectedRows !== undefined ? Number(result.numAffectedRows) : result.rows.length;
}

class RetentionStatements {
  private readonly texts = new Map<string, string>();

  constructor(private readonly dialect: Dialect) {}

  deliveries(): string {
    return this.text('deliveries', () =>
      this.dialect === 'postgres'
        ? 'delete from event_deliveries where id in (select id from event_deliveries where id < ? and created_at < ? order by id limit ? for update skip locked)'
        : 'delete from event_deliveries where rowid in (select rowid from event_deliveries where id < ? and created_at < ? order by id limit ?)',
    );
  }

  events(): string {
    return this.text('events', () =>
      this.dialect === 'postgres'
        ? 'delete from collected_events where (project_id, event_id) in (select project_id, event_id from collected_events where received_at < ? order by received_at limit ? for update skip locked) returning project_id, octet_length(payload) as bytes'
        : 'delete from collected_events where rowid in (select rowid from collected_events where received_at < ? order by received_at limit ?) returning project_id, octet_length(payload) as bytes',
    );
  }

  /** Never below zero, should the totals ever have drifted from the rows. */
  lowerTotals(): string {
    return this.text(
      'lower totals',
      () =>
        'update collected_event_totals set events = case when events > ? then events - ? else 0 end, ' +
        'bytes = case when bytes > ? then bytes - ? else 0 end where project_id = ?',
    );
  }

  projects(): string {
    return this.text('projects', () => 'select project_id from collected_event_totals order by project_id');
  }

  warehouse(): string {
    return this.text('warehouse', () =>
      this.dialect === 'postgres'
        ? 'delete from warehouse_events where (project_component_id, event_id) in (select project_component_id, event_id from warehouse_events where project_id = ? and received_at < ? order by received_at limit ? for update skip locked)'
        : 'delete from warehouse_events where rowid in (select rowid from warehouse_events where project_id = ? and received_at < ? order by received_at limit ?)',
    );
  }

  private text(kind: string, build: () => string): string {
    let text = this.texts.get(kind);
    if (text === undefined) {
      text = build();
      if (this.dialect === 'postgres') {
        let n = 0;
        text = text.replace(/\?/g, () => `$${++n}`);
      }
      this.texts.set(kind, text);
    }
    return text;
  }
}
