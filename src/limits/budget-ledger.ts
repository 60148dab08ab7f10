import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { LedgerSettlement } from './ledger-settlement.js';
import { monthOf, type Reservation } from './reservation.js';

export { monthOf, type Reservation } from './reservation.js';
export { LedgerSettlement, type SpendSettlement } from './ledger-settlement.js';

/** A reservation left by a process that died is released after this long (GATEWAY_RESERVATION_TTL_MS). */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;
/** GATEWAY_SWEEP_INTERVAL_MS. */
export const SWEEP_INTERVAL_MS = 30_000;

/** Reservation ids per renewal UPDATE. */
const RENEW_CHUNK = 500;
/** Thrown inside `extend`'s transaction to roll back the reservation's growth. */
const DOES_NOT_FIT = new Error('the extension does not fit under the ceiling');

export interface LedgerTimings {
  reservationTtlMs: number;
  sweepIntervalMs: number;
}

/**
 * Monthly spend ceilings without races. Before forwarding, the request's cost is reserved by
 * one conditional UPDATE (`spent + reserved + amount <= ceiling`), which both PostgreSQL (row
 * lock, WHERE re-checked after the wait) and SQLite (one writer at a time) apply atomically,
 * so N concurrent requests — in one process or many — can never reserve past the ceiling;
 * `reserveWithin` grants as much of a range as fits, under the key row's lock (admission sizes
 * the output cap to the grant: limits/output-allowance.ts).
 * A further upstream call of the same request (a gateway-tool round) grows the request's own
 * reservation under the same condition (`extend`), and the whole of it is settled to the actual
 * cost in one transaction, so no room is given back before the cost that used it is counted.
 *
 * Each reservation is also a row with an expiry, so one held by a crashed process is released
 * by any live instance's sweeper. A live process renews the expiry of the reservations it still
 * holds on every sweep, so a request that outlives the TTL keeps its room: before, the sweeper
 * gave it away, another request was admitted into it, and the first one's settle then took
 * the key past its ceiling by a whole request that had stayed within its estimate.
 *
 * The bound (docs/decisions.md, "Money"): spend passes a ceiling only by what admitted requests
 * cost beyond their reservations, i.e. when a provider counts more prompt tokens than the
 * estimate × 1.1; a key past its ceiling admits nothing more. One request at a time: at most
 * that one request's excess. k requests in flight together: at most their k excesses.
 */
export class BudgetLedger {
  private sweeper: NodeJS.Timeout | undefined;
  /** Reservations this process took and has not seen settled: renewed on every sweep. */
  private readonly held = new Map<string, Reservation>();
  private readonly settlement: LedgerSettlement;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly timings: LedgerTimings = {
      reservationTtlMs: RESERVATION_TTL_MS,
      sweepIntervalMs: SWEEP_INTERVAL_MS,
    },
  ) {
    this.settlement = new LedgerSettlement(store.dialect);
  }

  startSweeper(): void {
    // Renewal must come round several times per TTL, whatever the sweep interval is set to.
    const every = Math.max(10, Math.min(this.timings.sweepIntervalMs, Math.floor(this.timings.reservationTtlMs / 3)));
    this.sweeper = setInterval(() => {
      this.renewHeld()
        .catch((error) => this.logger.warn({ err: error }, 'could not renew held budget reservations'))
        .then(() => this.releaseExpired())
        .catch((error) => this.logger.warn({ err: error }, 'could not release expired budget reservations'));
    }, every);
    this.sweeper.unref();
  }

  stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Returns the reservation, or undefined when it does not fit under the ceiling. */
  reserve(apiKeyId: string, ceilingMicroUsd: number, amountMicroUsd: number): Promise<Reservation | undefined> {
    return this.reserveUnder(apiKeyId, async (trx, month) => {
      const updated = await trx
        .updateTable('key_spend')
        .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
        .where('api_key_id', '=', apiKeyId)
        .where('month', '=', month)
        .where(sql<boolean>`spent_micro_usd + reserved_micro_usd + ${amountMicroUsd} <= ${ceilingMicroUsd}`)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 0 ? undefined : amountMicroUsd;
    });
  }

  /**
   * Reserves as much as the key's room allows between `minimumMicroUsd` and `maximumMicroUsd`,
   * or nothing (undefined) when even the minimum does not fit. The reservation's amount says
   * what was granted; the caller sizes the request to it (admission lowers the output cap to
   * what the grant pays for, limits/output-allowance.ts). Atomic like `reserve`: the key's row is
   * locked first (a write that changes nothing: PostgreSQL's row lock, SQLite's write lock),
   * then read, so no other reservation or settlement moves the room between the read and the
   * write, in this process or any other.
   */
  reserveWithin(
    apiKeyId: string,
    ceilingMicroUsd: number,
    minimumMicroUsd: number,
    maximumMicroUsd: number,
  ): Promise<Reservation | undefined> {
    if (minimumMicroUsd >= maximumMicroUsd) return this.reserve(apiKeyId, ceilingMicroUsd, maximumMicroUsd);
    return this.reserveUnder(apiKeyId, async (trx, month) => {
      const locked = await trx
        .updateTable('key_spend')
        .set({ reserved_micro_usd: sql`reserved_micro_usd` })
        .where('api_key_id', '=', apiKeyId)
        .where('month', '=', month)
        .returning(['spent_micro_usd', 'reserved_micro_usd'])
        .executeTakeFirstOrThrow();
      const room = ceilingMicroUsd - Number(locked.spent_micro_usd) - Number(locked.reserved_micro_usd);
      if (room < minimumMicroUsd) return undefined;
      const amountMicroUsd = Math.min(maximumMicroUsd, room);
      await trx
        .updateTable('key_spend')
        .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
        .where('api_key_id', '=', apiKeyId)
        .where('month', '=', month)
        .execute();
      return amountMicroUsd;
    });
  }

  /**
   * The transaction both reservations run in: the key's spend row for this month is created if
   * missing, `take` adds to its reserved amount what fits (undefined: nothing does), and what it
   * took becomes a reservation row with an expiry, held by this process until it is settled.
   */
  private async reserveUnder(
    apiKeyId: string,
    take: (trx: Transaction<Database>, month: string) => Promise<number | undefined>,
  ): Promise<Reservation | undefined> {
    const now = this.now();
    const month = monthOf(now);
    const id = randomUUID();
    const reservation = await this.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('key_spend')
        .values({ api_key_id: apiKeyId, month, spent_micro_usd: 0, reserved_micro_usd: 0 })
        .onConflict((oc) => oc.columns(['api_key_id', 'month']).doNothing())
        .execute();
      const amountMicroUsd = await take(trx, month);
      if (amountMicroUsd === undefined) return undefined;
      await trx
        .insertInto('budget_reservations')
        .values({
          id,
          api_key_id: apiKeyId,
          month,
          amount_micro_usd: amountMicroUsd,
          expires_at: now + this.timings.reservationTtlMs,
        })
        .execute();
      return { id, apiKeyId, month, amountMicroUsd };
    });
    if (reservation) this.held.set(reservation.id, reservation);
    return reservation;
  }

  /**
   * Grows a reservation this request holds by `amountMicroUsd` (the worst case of a further
   * upstream call) when the key still has that room; false otherwise, and also when the
   * reservation is no longer there. Settling the reservation later releases all of it at once.
   */
  async extend(reservation: Reservation, ceilingMicroUsd: number, amountMicroUsd: number): Promise<boolean> {
    const grown = await this.store.db
      .transaction()
      .execute(async (trx) => {
        // The reservation row first, then the key's: the order the usage writer locks them in.
        const row = await trx
          .updateTable('budget_reservations')
          .set({ amount_micro_usd: sql`amount_micro_usd + ${amountMicroUsd}` })
          .where('id', '=', reservation.id)
          .executeTakeFirst();
        if (Number(row.numUpdatedRows) === 0) return false;
        const key = await trx
          .updateTable('key_spend')
          .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
          .where('api_key_id', '=', reservation.apiKeyId)
          .where('month', '=', reservation.month)
          .where(sql<boolean>`spent_micro_usd + reserved_micro_usd + ${amountMicroUsd} <= ${ceilingMicroUsd}`)
          .executeTakeFirst();
        if (Number(key.numUpdatedRows) === 0) throw DOES_NOT_FIT;
        return true;
      })
      .catch((error: unknown) => {
        if (error === DOES_NOT_FIT) return false;
        throw error;
      });
    if (grown) reservation.amountMicroUsd += amountMicroUsd;
    return grown;
  }

  /**
   * Pushes back the expiry of every reservation this process still holds; one that is gone (its
   * row was settled) is forgotten. Runs before each sweep, so only a dead process's reservations expire.
   */
  async renewHeld(): Promise<void> {
    for (const [id, reservation] of this.held) if (reservation.settled) this.held.delete(id);
    const ids = [...this.held.keys()];
    const expiresAt = this.now() + this.timings.reservationTtlMs;
    for (let from = 0; from < ids.length; from += RENEW_CHUNK) {
      const chunk = ids.slice(from, from + RENEW_CHUNK);
      const renewed = await this.store.db
        .updateTable('budget_reservations')
        .set({ expires_at: expiresAt })
        .where('id', 'in', chunk)
        .returning('id')
        .execute();
      const alive = new Set(renewed.map((row) => row.id));
      for (const id of chunk) if (!alive.has(id)) this.held.delete(id);
    }
  }

  /** Turns a reservation into actual spend. Safe if the sweeper already released it. */
  async settle(reservation: Reservation, actualMicroUsd: number): Promise<void> {
    reservation.settled = true;
    this.held.delete(reservation.id);
    await this.store.db
      .transaction()
      .execute((trx) => this.settlement.settleIn(trx, [{ reservation, costMicroUsd: actualMicroUsd }]));
  }

  async monthToDate(apiKeyId: string, at = this.now()): Promise<{ spentMicroUsd: number; reservedMicroUsd: number }> {
    const row = await this.store.db
      .selectFrom('key_spend')
      .select(['spent_micro_usd', 'reserved_micro_usd'])
      .where('api_key_id', '=', apiKeyId)
      .where('month', '=', monthOf(at))
      .executeTakeFirst();
    return { spentMicroUsd: row?.spent_micro_usd ?? 0, reservedMicroUsd: row?.reserved_micro_usd ?? 0 };
  }

  /** Releases reservations whose holder never settled them (the process died). */
  async releaseExpired(): Promise<number> {
    const expired = await this.store.db
      .selectFrom('budget_reservations')
      .selectAll()
      .where('expires_at', '<=', this.now())
      .limit(1000)
      .execute();
    let released = 0;
    for (const row of expired) {
      await this.store.db.transaction().execute(async (trx) => {
        const removed = await trx.deleteFrom('budget_reservations').where('id', '=', row.id).executeTakeFirst();
        if (Number(removed.numDeletedRows) === 0) return;
        await trx
          .updateTable('key_spend')
          .set({ reserved_micro_usd: sql`reserved_micro_usd - ${row.amount_micro_usd}` })
          .where('api_key_id', '=', row.api_key_id)
          .where('month', '=', row.month)
          .execute();
        released++;
      });
    }
    if (released > 0) this.logger.info({ released }, 'released expired budget reservations');
    return released;
  }
}
