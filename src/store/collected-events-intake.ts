import type { Transaction } from 'kysely';
import type { IntakeBatch, IntakeEvent, StoredEventQuota } from './collected-event-types.js';
import { DELIVERY_PARAMETERS, type HotStatements, ranges, run, slices } from './collected-events-sql.js';
import type { Database } from './schema.js';
import { timeOrderedId } from './time-ordered-id.js';

type Totals = { events: number; bytes: number };

/**
 * Which batches fit the quota, each all or nothing, in order. The totals are read under a lock
 * (PostgreSQL: FOR UPDATE; SQLite: the one write lock), so instances sharing a database never
 * take a project past its quota together. `totalsExist`: projects whose totals row is known to
 * exist, so creating it is skipped.
 */
export async function admitBatches(
  trx: Transaction<Database>,
  statements: HotStatements,
  batches: IntakeBatch[],
  projects: string[],
  quota: StoredEventQuota,
  totalsExist: ReadonlySet<string>,
): Promise<boolean[]> {
  const accepted = new Array<boolean>(batches.length).fill(true);
  const missing = projects.filter((id) => !totalsExist.has(id));
  for (const part of slices(missing)) await run(trx, statements.ensureTotals(part.length), part);
  const totals = new Map<string, Totals>();
  for (const part of slices(projects)) {
    const rows = await run<{ project_id: string; events: number | string; bytes: number | string }>(
      trx,
      statements.lockTotals(part.length),
      part,
    );
    for (const row of rows) totals.set(row.project_id, { events: Number(row.events), bytes: Number(row.bytes) });
  }
  batches.forEach((batch, i) => {
    let total = totals.get(batch.projectId);
    if (!total) totals.set(batch.projectId, (total = { events: 0, bytes: 0 }));
    let bytes = 0;
    for (const event of batch.events) bytes += event.bytes;
    const events = total.events + batch.events.length;
    if ((quota.events > 0 && events > quota.events) || (quota.bytes > 0 && total.bytes + bytes > quota.bytes)) {
      accepted[i] = false;
      return;
    }
    total.events = events;
    total.bytes += bytes;
  });
  return accepted;
}

/**
 * Writes the accepted batches: their events, the outbox rows of the events this transaction
 * inserted, and what they add to the projects' totals. The totals count what was inserted, so
 * an event id already stored (a client's retry) costs nothing.
 */
export async function writeBatches(
  trx: Transaction<Database>,
  statements: HotStatements,
  batches: IntakeBatch[],
  accepted: boolean[],
): Promise<void> {
  // Parallel arrays rather than one object per event: this runs for every accepted event.
  const owners: IntakeBatch[] = [];
  const events: IntakeEvent[] = [];
  batches.forEach((batch, i) => {
    if (!accepted[i]) return;
    for (const event of batch.events) {
      owners.push(batch);
      events.push(event);
    }
  });
  const inserted = await insertEvents(trx, statements, owners, events);
  const deliveries: unknown[] = [];
  const added = new Map<string, Totals>();
  for (let i = 0; i < events.length; i++) {
    if (inserted[i] === 0) continue;
    const owner = owners[i]!;
    const event = events[i]!;
    let total = added.get(owner.projectId);
    if (!total) added.set(owner.projectId, (total = { events: 0, bytes: 0 }));
    total.events++;
    total.bytes += event.bytes;
    for (const componentId of owner.componentIds[event.type]) {
      deliveries.push(
        timeOrderedId(owner.receivedAt),
        owner.projectId,
        componentId,
        event.id,
        owner.receivedAt,
        owner.receivedAt,
      );
    }
  }
  for (const [start, count] of ranges(deliveries.length / DELIVERY_PARAMETERS)) {
    const parameters = deliveries.slice(start * DELIVERY_PARAMETERS, (start + count) * DELIVERY_PARAMETERS);
    await run(trx, statements.insertDeliveries(count), parameters);
  }
  await addTotals(trx, statements, added);
}

/**
 * Only the event rows this transaction inserted get outbox rows: 1 at their index. A fresh
 * server id cannot be stored already (80 random bits, and a client cannot guess it), so only
 * statements holding a client's id ask which rows went in; within the batch the first occurrence
 * of an id is the one stored, and deleting its key from the returned set consumes it.
 */
async function insertEvents(
  trx: Transaction<Database>,
  statements: HotStatements,
  owners: IntakeBatch[],
  events: IntakeEvent[],
): Promise<Uint8Array> {
  const inserted = new Uint8Array(events.length);
  for (const [start, count] of ranges(events.length)) {
    const parameters: unknown[] = [];
    let idFromClient = false;
    for (let i = start; i < start + count; i++) {
      const owner = owners[i]!;
      const event = events[i]!;
      parameters.push(owner.projectId, event.id, owner.organizationId, event.type, owner.receivedAt, event.payload);
      if (event.idFromClient) idFromClient = true;
    }
    if (!idFromClient) {
      await run(trx, statements.insertEvents(count, false), parameters);
      inserted.fill(1, start, start + count);
      continue;
    }
    const result = await run<{ project_id: string; event_id: string }>(
      trx,
      statements.insertEvents(count, true),
      parameters,
    );
    const returned = new Set(result.map((row) => `${row.project_id}\u0000${row.event_id}`));
    for (let i = start; i < start + count; i++)
      if (returned.delete(`${owners[i]!.projectId}\u0000${events[i]!.id}`)) inserted[i] = 1;
  }
  return inserted;
}

async function addTotals(trx: Transaction<Database>, statements: HotStatements, added: Map<string, Totals>) {
  // In project order, like the lock: two instances' upserts of the same rows cannot deadlock.
  const totals = [...added].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [start, count] of ranges(totals.length)) {
    const parameters: unknown[] = [];
    for (let i = start; i < start + count; i++) {
      const [projectId, total] = totals[i]!;
      parameters.push(projectId, total.events, total.bytes);
    }
    await run(trx, statements.addTotals(count), parameters);
  }
}
