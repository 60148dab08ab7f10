import { CompiledQuery, type Transaction } from 'kysely';
import type { Dialect, Store } from './database.js';
import type { Database } from './schema.js';

/**
 * Rows (or ids) per multi-row statement. A list of any length runs as the fewest statements of
 * these sizes, so SQLite's prepared-statement cache holds five texts per statement instead of one
 * per length; the largest stays far below SQLite's 32,766 and PostgreSQL's 65,535 parameters.
 */
const STATEMENT_ROWS = [500, 100, 20, 5, 1] as const;

/** [start, count] ranges covering `total` items with the fewest statements of STATEMENT_ROWS sizes. */
export function* ranges(total: number): Generator<[number, number]> {
  let start = 0;
  for (const size of STATEMENT_ROWS) {
    for (; total - start >= size; start += size) yield [start, size];
  }
}

export function* slices<T>(items: T[]): Generator<T[]> {
  for (const [start, count] of ranges(items.length)) yield items.slice(start, start + count);
}

/** `(?, ?, 0), (?, ?, 0)` for rows of `row`; PostgreSQL's `$n` placeholders are numbered later. */
const valuesList = (row: string, rows: number) => Array.from({ length: rows }, () => row).join(', ');
const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

export const DELIVERY_PARAMETERS = 6;

/**
 * The SQL of the per-event statements, written once per dialect and row count. The hot path
 * skips Kysely's builder and compiler: building and compiling a 500-row insert cost more CPU
 * than SQLite spent running it. The texts are plain SQL that both dialects accept; only the
 * placeholders and PostgreSQL's row locks differ.
 */
export class HotStatements {
  private readonly texts = new Map<string, string>();

  constructor(private readonly dialect: Dialect) {}

  /** `returning`: which rows were inserted, when some id may be stored already. */
  insertEvents(rows: number, returning: boolean): string {
    return this.text(
      returning ? 'events returning' : 'events',
      rows,
      () =>
        `insert into collected_events (project_id, event_id, organization_id, type, received_at, payload) values ${valuesList('(?, ?, ?, ?, ?, ?)', rows)} ` +
        `on conflict (project_id, event_id) do nothing${returning ? ' returning project_id, event_id' : ''}`,
    );
  }

  /** DELIVERY_PARAMETERS per row. */
  insertDeliveries(rows: number): string {
    return this.text(
      'deliveries',
      rows,
      () =>
        `insert into event_deliveries (id, project_id, project_component_id, event_id, created_at, next_attempt_at, attempts) values ${valuesList('(?, ?, ?, ?, ?, ?, 0)', rows)}`,
    );
  }

  /** Casts: PostgreSQL types a parameter in a select list as text, and stored_at is a bigint. */
  copyToWarehouse(ids: number): string {
    return this.text(
      'warehouse',
      ids,
      () =>
        'insert into warehouse_events (project_component_id, event_id, project_id, type, received_at, stored_at, payload) ' +
        'select cast(? as text), event_id, project_id, type, received_at, cast(? as bigint), payload from collected_events ' +
        `where project_id = ? and event_id in (${placeholders(ids)}) ` +
        'on conflict (project_component_id, event_id) do nothing',
    );
  }

  /** Due outbox rows of the given catalogue components, deleted and returned (the first write of a transaction). */
  takeDue(components: number): string {
    const lock = this.dialect === 'postgres' ? ' for update skip locked' : '';
    return this.text(
      'take',
      components,
      () =>
        'delete from event_deliveries where id in (select id from event_deliveries where failed_at is null and next_attempt_at <= ? ' +
        `and project_component_id in (select id from project_components where component_id in (${placeholders(components)})) ` +
        `order by next_attempt_at limit ?${lock}) returning project_id, project_component_id, event_id`,
    );
  }

  anyDue(): string {
    return this.text(
      'any due',
      0,
      () => 'select id from event_deliveries where failed_at is null and next_attempt_at <= ? limit 1',
    );
  }

  claim(): string {
    // PostgreSQL: several instances claim disjoint rows. SQLite: one writer at a time anyway.
    const lock = this.dialect === 'postgres' ? ' for update skip locked' : '';
    return this.text(
      'claim',
      0,
      () =>
        'update event_deliveries set lease_token = ?, next_attempt_at = ?, attempts = attempts + 1 ' +
        `where id in (select id from event_deliveries where failed_at is null and next_attempt_at <= ? order by next_attempt_at limit ?${lock}) ` +
        'returning id, project_id, project_component_id, event_id, attempts',
    );
  }

  /** Zero totals for projects that have none yet; a write, so on SQLite the transaction takes the lock here. */
  ensureTotals(rows: number): string {
    return this.text(
      'totals ensure',
      rows,
      () =>
        `insert into collected_event_totals (project_id, events, bytes) values ${valuesList('(?, 0, 0)', rows)} on conflict (project_id) do nothing`,
    );
  }

  /**
   * The totals of these projects, locked until the transaction ends, in project order (two
   * instances lock the same rows in the same order, so they cannot deadlock). On SQLite a
   * no-op UPDATE: a write, which takes the database's write lock as the transaction's first
   * statement (a read first could meet another process's newer commit and fail).
   */
  lockTotals(ids: number): string {
    return this.text('totals lock', ids, () =>
      this.dialect === 'postgres'
        ? `select project_id, events, bytes from collected_event_totals where project_id in (${placeholders(ids)}) order by project_id for update`
        : `update collected_event_totals set events = events where project_id in (${placeholders(ids)}) returning project_id, events, bytes`,
    );
  }

  totals(): string {
    return this.text('totals', 0, () => 'select events, bytes from collected_event_totals where project_id = ?');
  }

  /** Adds (project_id, events, bytes) rows to the totals, creating them when missing. */
  addTotals(rows: number): string {
    return this.text(
      'totals add',
      rows,
      () =>
        `insert into collected_event_totals (project_id, events, bytes) values ${valuesList('(?, ?, ?)', rows)} ` +
        'on conflict (project_id) do update set events = collected_event_totals.events + excluded.events, ' +
        'bytes = collected_event_totals.bytes + excluded.bytes',
    );
  }

  complete(ids: number): string {
    return this.text(
      'complete',
      ids,
      () => `delete from event_deliveries where lease_token = ? and id in (${placeholders(ids)})`,
    );
  }

  payloads(ids: number): string {
    return this.text(
      'payloads',
      ids,
      () =>
        `select event_id, payload from collected_events where project_id = ? and event_id in (${placeholders(ids)})`,
    );
  }

  private text(kind: string, count: number, build: () => string): string {
    const key = `${kind} ${count}`;
    let text = this.texts.get(key);
    if (text === undefined) {
      text = build();
      if (this.dialect === 'postgres') {
        let n = 0;
        text = text.replace(/\?/g, () => `$${++n}`);
      }
      this.texts.set(key, text);
    }
    return text;
  }
}

export type Queryable = Transaction<Database> | Store['db'];

/** Runs one of the texts above, bypassing Kysely's compiler (see HotStatements). */
export async function run<R>(db: Queryable, text: string, parameters: unknown[]): Promise<R[]> {
  const result = await db.executeQuery<R>(CompiledQuery.raw(text, parameters));
  return result.rows;
}
