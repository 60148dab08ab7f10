import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from './database.js';
import type { CollectedEventsTable, EventDeliveriesTable, WarehouseEventsTable } from './schema.js';

/** An event as stored and delivered: id, type, server timestamp, data, and the merged context. */
export interface StoredEvent {
  id: string;
  type: 'page' | 'track' | 'user';
  timestamp: string;
  data: Record<string, unknown>;
  context: Record<string, unknown>;
}

export interface IntakeItem {
  projectId: string;
  organizationId: string;
  event: StoredEvent;
  receivedAt: number;
  /** Project components that must receive this event. */
  componentIds: string[];
}

export interface ClaimedDelivery {
  id: string;
  project_id: string;
  project_component_id: string;
  event_id: string;
  attempts: number;
}

// Parameter counts stay far below SQLite's 32,766 and PostgreSQL's 65,535 per statement.
const EVENT_CHUNK = 1_000;
const DELIVERY_CHUNK = 1_000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Intake and outbox storage. Intake writes the events and their outbox rows in one transaction;
 * an event id already stored for the project (a client retry with its own id) is skipped,
 * so it is neither stored nor delivered twice.
 */
export class CollectedEventStore {
  constructor(private readonly store: Store) {}

  async insert(items: IntakeItem[]): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      const inserted = new Set<string>();
      // Within one batch the first occurrence of a (project, id) wins, like against stored rows.
      const unique = new Map<string, IntakeItem>();
      for (const item of items) {
        const key = `${item.projectId}\u0000${item.event.id}`;
        if (!unique.has(key)) unique.set(key, item);
      }
      for (const part of chunks([...unique.values()], EVENT_CHUNK)) {
        const rows: CollectedEventsTable[] = part.map((item) => ({
          project_id: item.projectId,
          event_id: item.event.id,
          organization_id: item.organizationId,
          type: item.event.type,
          received_at: item.receivedAt,
          payload: JSON.stringify(item.event),
        }));
        const result = await trx
          .insertInto('collected_events')
          .values(rows)
          .onConflict((oc) => oc.columns(['project_id', 'event_id']).doNothing())
          .returning(['project_id', 'event_id'])
          .execute();
        for (const row of result) inserted.add(`${row.project_id}\u0000${row.event_id}`);
      }
      const deliveries: EventDeliveriesTable[] = [];
      for (const [key, item] of unique) {
        if (!inserted.has(key)) continue;
        for (const componentId of item.componentIds) {
          deliveries.push({
            id: randomUUID(),
            project_id: item.projectId,
            project_component_id: componentId,
            event_id: item.event.id,
            created_at: item.receivedAt,
            next_attempt_at: item.receivedAt,
            attempts: 0,
            lease_token: null,
            last_error: null,
            failed_at: null,
          });
        }
      }
      for (const part of chunks(deliveries, DELIVERY_CHUNK)) await trx.insertInto('event_deliveries').values(part).execute();
    });
  }

  async countEvents(projectId: string): Promise<number> {
    const row = await this.store.db.selectFrom('collected_events').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * Claims up to `limit` due outbox rows for `leaseMs`. PostgreSQL: FOR UPDATE SKIP LOCKED, so
   * several instances claim disjoint rows. SQLite: the one UPDATE … RETURNING runs under the
   * database's single write lock, which serialises claims across processes.
   */
  async claim(token: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const postgres = this.store.dialect === 'postgres';
    const due = this.store.db
      .selectFrom('event_deliveries')
      .select('id')
      .where('failed_at', 'is', null)
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .$if(postgres, (q) => q.forUpdate().skipLocked());
    return this.store.db
      .updateTable('event_deliveries')
      .set({ lease_token: token, next_attempt_at: now + leaseMs, attempts: sql`attempts + 1` })
      .where('id', 'in', due)
      .returning(['id', 'project_id', 'project_component_id', 'event_id', 'attempts'])
      .execute();
  }

  /** Delivered: the rows leave the outbox (only if this worker still holds their lease). */
  async complete(ids: string[], token: string): Promise<void> {
    for (const part of chunks(ids, DELIVERY_CHUNK)) {
      await this.store.db.deleteFrom('event_deliveries').where('id', 'in', part).where('lease_token', '=', token).execute();
    }
  }

  /** Not delivered: retried at `nextAttemptAt`, or parked as failed after `maxAttempts`. */
  async fail(ids: string[], token: string, nextAttemptAt: number, error: string, maxAttempts: number, now: number): Promise<void> {
    for (const part of chunks(ids, DELIVERY_CHUNK)) {
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
    for (const part of chunks(ids, DELIVERY_CHUNK)) {
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
    for (const part of chunks(ids, DELIVERY_CHUNK)) await this.store.db.deleteFrom('event_deliveries').where('id', 'in', part).execute();
  }

  async load(projectId: string, eventIds: string[]): Promise<Map<string, { event: StoredEvent; receivedAt: number }>> {
    const found = new Map<string, { event: StoredEvent; receivedAt: number }>();
    for (const part of chunks(eventIds, EVENT_CHUNK)) {
      const rows = await this.store.db
        .selectFrom('collected_events')
        .select(['event_id', 'payload', 'received_at'])
        .where('project_id', '=', projectId)
        .where('event_id', 'in', part)
        .execute();
      for (const row of rows) found.set(row.event_id, { event: JSON.parse(row.payload) as StoredEvent, receivedAt: row.received_at });
    }
    return found;
  }

  async outboxDepth(): Promise<{ pending: number; failed: number }> {
    const rows = await this.store.db
      .selectFrom('event_deliveries')
      .select([(eb) => eb.fn.countAll<number>().as('n'), sql<number>`case when failed_at is null then 0 else 1 end`.as('failed')])
      .groupBy(sql`case when failed_at is null then 0 else 1 end`)
      .execute();
    return {
      pending: Number(rows.find((r) => Number(r.failed) === 0)?.n ?? 0),
      failed: Number(rows.find((r) => Number(r.failed) === 1)?.n ?? 0),
    };
  }

  /** The warehouse component's write: idempotent per (component, event id). */
  async storeInWarehouse(rows: WarehouseEventsTable[]): Promise<void> {
    for (const part of chunks(rows, 500)) {
      await this.store.db
        .insertInto('warehouse_events')
        .values(part)
        .onConflict((oc) => oc.columns(['project_component_id', 'event_id']).doNothing())
        .execute();
    }
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
      query = query.where('received_at', '>=', at).where(sql<boolean>`(received_at, event_id, project_component_id) > (${at}, ${eventId}, ${componentId})`);
    }
    const rows = await query.orderBy('received_at').orderBy('event_id').orderBy('project_component_id').limit(options.limit + 1).execute();
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }
}
