import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Dialect } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { monthOf, type Reservation } from './reservation.js';

/**
 * What one request adds to its key's monthly spend: its cost, and the reservation that covered
 * it, released in the same transaction; a key without a ceiling has no reservation, so its cost
 * is added at the time of the request.
 */
export type SpendSettlement =
  | { reservation: Reservation; costMicroUsd: number }
  | { reservation?: undefined; apiKeyId: string; at: number; costMicroUsd: number };

/**
 * The budget ledger's settling half (budget-ledger.ts holds the other: reserve, extend, sweep),
 * run inside a transaction its caller owns, so the usage writer commits a batch of rows and
 * the spend they add together: the rows and the key's spend never disagree. A settled
 * reservation is deleted and what it still held is released; one the sweeper already released
 * held nothing any more, so only its cost counts.
 *
 * The SQL is written once per dialect and row count instead of being built and compiled by
 * Kysely for every batch: on the hot path that compilation cost more than SQLite's own work.
 */
export class LedgerSettlement {
  private readonly deletes: string[] = [];
  private readonly addSpend: string;
  /** Adds spend to one limit window and releases what the reservation held there (docs/limits.md). */
  private readonly addWindowSpend: string;
  /**
   * Reservation ids per DELETE. PostgreSQL: up to 32 (one round trip for many, and a bounded
   * number of distinct statements). SQLite: one, because a statement that writes several rows
   * inside a transaction needs a statement journal, a temporary file created and deleted each
   * time, while running a prepared single-row statement again costs next to nothing.
   */
  private readonly idsPerStatement: number;

  constructor(private readonly dialect: Dialect) {
    this.idsPerStatement = dialect === 'sqlite' ? 1 : 32;
    // Parameters: api_key_id, month, spent (insert), spent (update), held.
    this.addSpend =
      `insert into key_spend (api_key_id, month, spent_micro_usd, reserved_micro_usd) values (${this.params(1, 3)}, 0) ` +
      `on conflict (api_key_id, month) do update set spent_micro_usd = key_spend.spent_micro_usd + ${this.param(4)}, ` +
      `reserved_micro_usd = key_spend.reserved_micro_usd - ${this.param(5)}`;
    // Parameters: spent, held, limit_id, window_start. An update only: the reservation created
    // the row, and a limit removed since took its rows with it.
    this.addWindowSpend =
      `update limit_window_spend set spent_micro_usd = spent_micro_usd + ${this.param(1)}, ` +
      `reserved_micro_usd = reserved_micro_usd - ${this.param(2)} ` +
      `where limit_id = ${this.param(3)} and window_start = ${this.param(4)}`;
  }

  /**
   * A synchronous settler over `sqlite`'s prepared statements, for a better-sqlite3 transaction
   * the caller runs (statements prepared once: compiling the SQL on every commit cost more than
   * running it).
   */
  sqliteSettler(sqlite: SQLite.Database): (settlements: readonly SpendSettlement[]) => void {
    const addSpend = sqlite.prepare(this.addSpend);
    const addWindowSpend = sqlite.prepare(this.addWindowSpend);
    const deletes = new Map<number, SQLite.Statement>();
    const deleteReservations = (count: number): SQLite.Statement => {
      let statement = deletes.get(count);
      if (!statement) deletes.set(count, (statement = sqlite.prepare(this.deleteReservations(count))));
      return statement;
    };
    return (settlements) => {
      const stillHeld = new Set<string>();
      for (const ids of this.reservationIdChunks(settlements)) {
        for (const { id } of deleteReservations(ids.length).all(ids) as Array<{ id: string }>) stillHeld.add(id);
      }
      for (const delta of spendDeltas(settlements, stillHeld)) addSpend.run(spendParameters(delta));
      for (const delta of windowDeltas(settlements, stillHeld)) addWindowSpend.run(windowParameters(delta));
    };
  }

  /** Settles inside a Kysely transaction (PostgreSQL, or SQLite while another transaction holds the connection). */
  async settleIn(trx: Transaction<Database>, settlements: readonly SpendSettlement[]): Promise<void> {
    const stillHeld = new Set<string>();
    for (const ids of this.reservationIdChunks(settlements)) {
      const removed = await trx.executeQuery<{ id: string }>(
        CompiledQuery.raw(this.deleteReservations(ids.length), ids),
      );
      for (const { id } of removed.rows) stillHeld.add(id);
    }
    for (const delta of spendDeltas(settlements, stillHeld))
      await trx.executeQuery(CompiledQuery.raw(this.addSpend, spendParameters(delta)));
    for (const delta of windowDeltas(settlements, stillHeld))
      await trx.executeQuery(CompiledQuery.raw(this.addWindowSpend, windowParameters(delta)));
  }

  /** The ids of the settlements' reservations, in chunks of at most one statement's worth. */
  private *reservationIdChunks(settlements: readonly SpendSettlement[]): Generator<string[]> {
    const ids = settlements.flatMap((s) => (s.reservation ? [s.reservation.id] : []));
    for (let from = 0; from < ids.length; from += this.idsPerStatement)
      yield ids.slice(from, from + this.idsPerStatement);
  }

  /** Deletes reservations by id and returns the ids that were still there. */
  private deleteReservations(count: number): string {
    return (this.deletes[count] ??=
      `delete from budget_reservations where id in (${this.params(1, count)}) returning id`);
  }

  private param(n: number): string {
    return this.dialect === 'postgres' ? `$${n}` : '?';
  }

  private params(first: number, count: number): string {
    return Array.from({ length: count }, (_, i) => this.param(first + i)).join(', ');
  }
}

interface SpendDelta {
  apiKeyId: string;
  month: string;
  spent: number;
  held: number;
}

/**
 * What the settlements add to each key's monthly spend: the cost of every one that pays, and the
 * reserve each reservation `stillHeld` (deleted by this transaction) held.
 */
function spendDeltas(settlements: readonly SpendSettlement[], stillHeld: ReadonlySet<string>): SpendDelta[] {
  const spend = new Map<string, SpendDelta>();
  const add = (apiKeyId: string, month: string, spent: number, held: number) => {
    const id = `${apiKeyId}|${month}`;
    const entry = spend.get(id);
    if (entry) {
      entry.spent += spent;
      entry.held += held;
    } else spend.set(id, { apiKeyId, month, spent, held });
  };
  for (const settlement of settlements) {
    const { reservation, costMicroUsd } = settlement;
    if (reservation)
      add(
        reservation.apiKeyId,
        reservation.month,
        costMicroUsd,
        stillHeld.has(reservation.id) ? reservation.amountMicroUsd : 0,
      );
    else if (costMicroUsd > 0) add(settlement.apiKeyId, monthOf(settlement.at), costMicroUsd, 0);
  }
  // Keys in id order: the order every ledger transaction locks them in (no deadlock across instances).
  return [...spend.values()]
    .filter((delta) => delta.spent !== 0 || delta.held !== 0)
    .sort((a, b) => compare(a.apiKeyId + '|' + a.month, b.apiKeyId + '|' + b.month));
}

interface WindowDelta {
  limitId: string;
  windowStart: number;
  spent: number;
  held: number;
}

/**
 * What the settlements add to each limit window their reservations hold room in: the cost, and
 * the reserve released when the reservation was `stillHeld`; in lock order (limit id), after the keys.
 */
function windowDeltas(settlements: readonly SpendSettlement[], stillHeld: ReadonlySet<string>): WindowDelta[] {
  const spend = new Map<string, WindowDelta>();
  for (const { reservation, costMicroUsd } of settlements) {
    if (!reservation?.windows) continue;
    const held = stillHeld.has(reservation.id) ? reservation.amountMicroUsd : 0;
    for (const { limitId, windowStart } of reservation.windows) {
      const id = `${limitId}|${windowStart}`;
      const entry = spend.get(id);
      if (entry) {
        entry.spent += costMicroUsd;
        entry.held += held;
      } else spend.set(id, { limitId, windowStart, spent: costMicroUsd, held });
    }
  }
  return [...spend.values()]
    .filter((delta) => delta.spent !== 0 || delta.held !== 0)
    .sort((a, b) => compare(a.limitId, b.limitId) || a.windowStart - b.windowStart);
}

function windowParameters({ limitId, windowStart, spent, held }: WindowDelta): unknown[] {
  return [spent, held, limitId, windowStart];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Parameters of the addSpend statement: api_key_id, month, spent (insert), spent (update), held. */
function spendParameters({ apiKeyId, month, spent, held }: SpendDelta): unknown[] {
  return [apiKeyId, month, spent, spent, held];
}
