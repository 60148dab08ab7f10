import { sql } from 'kysely';
import type { Store } from './database.js';
import type { ClaimedDelivery, IntakeBatch, StoredEventQuota } from './collected-event-types.js';
import { admitBatches, writeBatches } from './collected-events-intake.js';
import { HotStatements, run, slices, type Queryable } from './collected-events-sql.js';
import type { WarehouseEventsTable } from './schema.js';

export type {
  ClaimedDelivery,
  IntakeBatch,
  IntakeEvent,
  StoredEvent,
  StoredEventQuota,
} from './collected-event-types.js';
export { timeOrderedId } from './time-ordered-id.js';

/**
 * Intake and outbox storage. Intake writes the events and their outbox rows in one transaction;
 * an event id already stored for the project (a client retry with its own id) is skipped,
 * so it is neither stored nor delivered twice.
 */
export class CollectedEventStore {
  private readonly statements: HotStatements;
  /** Projects whose totals row is known to exist: the quota path skips creating it. */
  private readonly totalsExist = new Set<string>();

  constructor(private readonly store: Store) {
    this.statements = new HotStatements(store.dialect);
  }

  /**
   * Stores the batches (one request each) in one transaction: their events, the events' outbox
   * rows, and the projects' totals. With a quota, each batch is all or nothing: a batch that
   * would take its project's stored events or bytes past the quota is refused (false in the
   * result) and the batches after it are still considered. The totals are read under a lock
   * (PostgreSQL: FOR UPDATE; SQLite: the one write lock), so instances sharing a database never
   * take a project past its quota together. The totals count what was inserted, so an event id
   * already stored (a client's retry) costs nothing.
   */
  async insert(batches: IntakeBatch[], quota?: StoredEventQuota): Promise<boolean[]> {
    const projects = [...new Set(batches.map((batch) => batch.projectId))].sort();
    const limited = quota !== undefined && (quota.events > 0 || quota.bytes > 0);
    const accepted = await this.store.db.transaction().execute(async (trx) => {
      const accepted = limited
        ? await admitBatches(trx, this.statements, batches, projects, quota, this.totalsExist)
        : new Array<boolean>(batches.length).fill(true);
      await writeBatches(trx, this.statements, batches, accepted);
      return accepted;
    });
    for (const id of projects) this.totalsExist.add(id);
    return accepted;
  }

  /** Stored events and bytes of a project, as the quota counts them. */
  async totals(projectId: string): Promise<{ events: number; bytes: number }> {
    const [row] = await run<{ events: number | string; bytes: number | string }>(
      this.store.db,
      this.statements.totals(),
      [projectId],
    );
    return { events: Number(row?.events ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  async countEvents(projectId: string): Promise<number> {
    const row = await this.store.db
      .selectFrom('collected_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * Whether any outbox row is due: a read, so an idle poll takes no write lock. (On SQLite a
   * write lock held across a transaction's awaits makes another connection of the same process,
   * two instances in one test process, wait for it synchronously, blocking the holder too.)
   */
  async anyDue(now: number): Promise<boolean> {
    return (await run(this.store.db, this.statements.anyDue(), [now])).length > 0;
  }

  /**
   * Claims up to `limit` due outbox rows for `leaseMs`. PostgreSQL: FOR UPDATE SKIP LOCKED, so
   * several instances claim disjoint rows. SQLite: the one UPDATE … RETURNING runs under the
   * database's single write lock, which serialises claims across processes.
   */
  async claim(token: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return run<ClaimedDelivery>(this.store.db, this.statements.claim(), [token, now + leaseMs, now, limit]);
  }

  /** Delivered: the rows leave the outbox (only if this worker still holds their lease). */
  async complete(ids: string[], token: string): Promise<void> {
    await this.eachSlice(ids, (db, part) => run(db, this.statements.complete(part.length), [token, ...part]));
  }

  /** Not delivered: retried at `nextAttemptAt`, or parked as failed after `maxAttempts`. */
  async fail(
    ids: string[],
    token: string,
    nextAttemptAt: number,
    error: string,
    maxAttempts: number,
    now: number,
  ): Promise<void> {
    for (const part of slices(ids)) {
      await this.store.db
        .updateTable('event_deliveries')
        .set({
          lease_token: null,
          next_attempt_at: nextAttemptAt,
          last_error: error.slice(0, 500),
          failed_at: sql`case when attempts >= ${maxAttempts} then cast(${now} as bigint) else null end`,
        })
        .where('id', 'in', part)
        .where('lease_token', '=', token)
        .execute();
    }
  }

  /** Shutdown: gives the rows back at once, without counting the interrupted attempt. */
  async release(ids: string[], token: string, now: number): Promise<void> {
    for (const part of slices(ids)) {
      await this.store.db
        .updateTable('event_deliveries')
        .set({ lease_token: null, next_attempt_at: now, attempts: sql`attempts - 1` })
        .where('id', 'in', part)
        .where('lease_token', '=', token)
        .execute();
    }
  }

  /** Rows whose component no longer exists are dropped. */
  async discard(ids: string[]): Promise<void> {
    for (const part of slices(ids))
      await this.store.db.deleteFrom('event_deliveries').where('id', 'in', part).execute();
  }

  /** The stored JSON of events, by id; ids no longer stored (their project was deleted) are absent. */
  async loadPayloads(projectId: string, eventIds: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const part of slices(eventIds)) {
      const rows = await run<{ event_id: string; payload: string }>(
        this.store.db,
        this.statements.payloads(part.length),
        [projectId, ...part],
      );
      for (const row of rows) found.set(row.event_id, row.payload);
    }
    return found;
  }

  async outboxDepth(): Promise<{ pending: number; failed: number }> {
    const rows = await this.store.db
      .selectFrom('event_deliveries')
      .select([
        (eb) => eb.fn.countAll<number>().as('n'),
        sql<number>`case when failed_at is null then 0 else 1 end`.as('failed'),
      ])
      .groupBy(sql`case when failed_at is null then 0 else 1 end`)
      .execute();
    return {
      pending: Number(rows.find((r) => Number(r.failed) === 0)?.n ?? 0),
      failed: Number(rows.find((r) => Number(r.failed) === 1)?.n ?? 0),
    };
  }

  /**
   * The warehouse component's write: stored events copied by id inside the database, so their
   * payloads never pass through the process; idempotent per (component, event id).
   */
  async copyToWarehouse(
    projectId: string,
    projectComponentId: string,
    eventIds: string[],
    storedAt: number,
  ): Promise<void> {
    await this.eachSlice(eventIds, (db, part) =>
      run(db, this.statements.copyToWarehouse(part.length), [projectComponentId, storedAt, projectId, ...part]),
    );
  }

  /**
   * Warehouse delivery without a lease. The warehouse is a table of this database, so its
   * delivery can share a transaction with the outbox: up to `limit` due rows of components whose
   * catalogue id is in `warehouseComponents` are deleted and their events copied into
   * warehouse_events, all or nothing. A crash or a failed copy leaves the rows due, and no lease
   * has to expire first. This skips what a claim costs (an UPDATE of every row and of the due
   * index, and a commit of its own) for what is most of the outbox on a busy collector. The
   * DELETE comes first so that on SQLite the transaction takes the write lock at its first
   * statement (a read first could meet another process's newer commit and fail). Returns how
   * many outbox rows were settled.
   */
  async moveDueToWarehouse(now: number, limit: number, warehouseComponents: readonly string[]): Promise<number> {
    if (warehouseComponents.length === 0) return 0;
    return this.store.db.transaction().execute(async (trx) => {
      const rows = await run<{ project_id: string; project_component_id: string; event_id: string }>(
        trx,
        this.statements.takeDue(warehouseComponents.length),
        [now, ...warehouseComponents, limit],
      );
      const groups = new Map<string, { projectId: string; componentId: string; eventIds: string[] }>();
      for (const row of rows) {
        const key = `${row.project_id}\u0000${row.project_component_id}`;
        const group = groups.get(key);
        if (group) group.eventIds.push(row.event_id);
        else
          groups.set(key, {
            projectId: row.project_id,
            componentId: row.project_component_id,
            eventIds: [row.event_id],
          });
      }
      for (const { projectId, componentId, eventIds } of groups.values()) {
        for (const part of slices(eventIds))
          await run(trx, this.statements.copyToWarehouse(part.length), [componentId, now, projectId, ...part]);
      }
      return rows.length;
    });
  }

  /**
   * A write over a list, one statement per slice, in one transaction when there are several: on
   * SQLite every transaction is a WAL commit, and one commit per slice wrote the same pages again.
   */
  private async eachSlice(items: string[], write: (db: Queryable, part: string[]) => Promise<unknown>): Promise<void> {
    const parts = [...slices(items)];
    if (parts.length === 0) return;
    if (parts.length === 1) {
      await write(this.store.db, parts[0]!);
      return;
    }
    await this.store.db.transaction().execute(async (trx) => {
      for (const part of parts) await write(trx, part);
    });
  }

  /** Warehouse events of a project, keyset-paged on (received_at, event_id, project_component_id). */
  async listWarehouse(
    projectId: string,
    options: { limit: number; after?: [number, string, string]; projectComponentId?: string; type?: string },
  ): Promise<{ rows: WarehouseEventsTable[]; hasMore: boolean }> {
    let query = this.store.db.selectFrom('warehouse_events').selectAll().where('project_id', '=', projectId);
    if (options.projectComponentId) query = query.where('project_component_id', '=', options.projectComponentId);
    if (options.type) query = query.where('type', '=', options.type);
    if (options.after) {
      const [at, eventId, componentId] = options.after;
      // The plain lower bound lets SQLite seek the index; the row-value comparison then filters exactly.
      query = query
        .where('received_at', '>=', at)
        .where(sql<boolean>`(received_at, event_id, project_component_id) > (${at}, ${eventId}, ${componentId})`);
    }
    const rows = await query
      .orderBy('received_at')
      .orderBy('event_id')
      .orderBy('project_component_id')
      .limit(options.limit + 1)
      .execute();
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }
}
