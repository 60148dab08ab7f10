import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { WindowLimits } from '../store/window-limits.js';
import { LedgerSettlement } from './ledger-settlement.js';
import {
  inLockOrder,
  monthOf,
  parseWindowsColumn,
  windowsColumn,
  type Reservation,
  type SpendBounds,
  type SpendWindow,
} from './reservation.js';

export { monthOf, type Reservation, type SpendBounds, type SpendWindow } from './reservation.js';
export { LedgerSettlement, type SpendSettlement } from './ledger-settlement.js';

/** A reservation left by a process that died is released after this long (GATEWAY_RESERVATION_TTL_MS). */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;
/** GATEWAY_SWEEP_INTERVAL_MS. */
export const SWEEP_INTERVAL_MS = 30_000;

/** How often old limit windows' rows are deleted. */
const PRUNE_EVERY_MS = 3600 * 1000;
/** Reservation ids per renewal UPDATE. */
const RENEW_CHUNK = 500;
/** Thrown inside `extend`'s transaction to roll back the reservation's growth. */
const DOES_NOT_FIT = new Error('the extension does not fit under the ceiling');

/** A reservation, or the bounds that could not pay for the minimum ('ceiling': the key's month). */
export type ReserveOutcome =
  | { reservation: Reservation; blockedBy?: undefined }
  | { reservation: undefined; blockedBy: ReadonlyArray<'ceiling' | SpendWindow> };

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
  private prunedAt = 0;

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
        .catch((error) => this.logger.warn({ err: error }, 'could not release expired budget reservations'))
        .then(() => this.pruneOldWindows())
        .catch((error) => this.logger.warn({ err: error }, 'could not delete old limit windows'));
    }, every);
    this.sweeper.unref();
  }

  stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Returns the reservation, or undefined when it does not fit under the ceiling. */
  reserve(apiKeyId: string, ceilingMicroUsd: number, amountMicroUsd: number): Promise<Reservation | undefined> {
    return this.reserveWithin(apiKeyId, ceilingMicroUsd, amountMicroUsd, amountMicroUsd);
  }

  /** `reserveAgainst` with the key's monthly ceiling only. */
  async reserveWithin(
    apiKeyId: string,
    ceilingMicroUsd: number,
    minimumMicroUsd: number,
    maximumMicroUsd: number,
  ): Promise<Reservation | undefined> {
    const outcome = await this.reserveAgainst(
      apiKeyId,
      { ceilingMicroUsd, windows: [] },
      minimumMicroUsd,
      maximumMicroUsd,
    );
    return outcome.reservation;
  }

  /**
   * Reserves as much as every bound's room allows between `minimumMicroUsd` and
   * `maximumMicroUsd` — the same amount against the key's monthly ceiling (when it has one) and
   * against each limit window (docs/limits.md) — or nothing when even the minimum does not fit
   * one of them (`blockedBy` names those). The reservation's amount says what was granted; the
   * caller sizes the request to it (admission lowers the output cap to what the grant pays for,
   * limits/output-allowance.ts). Atomic: every row is locked first (a write that changes
   * nothing: PostgreSQL's row lock, SQLite's write lock), the key's then the windows' in limit
   * id order (the order every writer takes them in), then read, so no other reservation or
   * settlement moves the room between the read and the write, in this process or any other.
   */
  async reserveAgainst(
    apiKeyId: string,
    bounds: SpendBounds,
    minimumMicroUsd: number,
    maximumMicroUsd: number,
  ): Promise<ReserveOutcome> {
    const now = this.now();
    const month = monthOf(now);
    const id = randomUUID();
    const windows = inLockOrder(bounds.windows);
    const outcome = await this.store.db.transaction().execute(async (trx): Promise<ReserveOutcome> => {
      const blockedBy: Array<'ceiling' | SpendWindow> = [];
      let room = Infinity;
      const keyRoom = await lockedRoom(trx, 'key', apiKeyId, month, bounds.ceilingMicroUsd);
      if (keyRoom < minimumMicroUsd) blockedBy.push('ceiling');
      room = Math.min(room, keyRoom);
      for (const window of windows) {
        const windowRoom = await lockedRoom(trx, 'window', window.limitId, window.windowStart, window.limitMicroUsd);
        if (windowRoom < minimumMicroUsd) blockedBy.push(window);
        room = Math.min(room, windowRoom);
      }
      if (blockedBy.length > 0) return { reservation: undefined, blockedBy };
      const amountMicroUsd = Math.min(maximumMicroUsd, room);
      await trx
        .updateTable('key_spend')
        .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
        .where('api_key_id', '=', apiKeyId)
        .where('month', '=', month)
        .execute();
      for (const window of windows)
        await trx
          .updateTable('limit_window_spend')
          .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
          .where('limit_id', '=', window.limitId)
          .where('window_start', '=', window.windowStart)
          .execute();
      await trx
        .insertInto('budget_reservations')
        .values({
          id,
          api_key_id: apiKeyId,
          month,
          amount_micro_usd: amountMicroUsd,
          expires_at: now + this.timings.reservationTtlMs,
          limit_windows: windowsColumn(windows),
        })
        .execute();
      const reservation: Reservation = { id, apiKeyId, month, amountMicroUsd };
      if (windows.length > 0) reservation.windows = windows;
      return { reservation };
    });
    if (outcome.reservation) this.held.set(outcome.reservation.id, outcome.reservation);
    return outcome;
  }

  /**
   * Grows a reservation this request holds by `amountMicroUsd` (the worst case of a further
   * upstream call) when the key's ceiling (null: none) and every limit window it holds room in
   * still have that room; false otherwise, and also when the reservation is no longer there.
   * Settling the reservation later releases all of it at once.
   */
  async extend(reservation: Reservation, ceilingMicroUsd: number | null, amountMicroUsd: number): Promise<boolean> {
    const grown = await this.store.db
      .transaction()
      .execute(async (trx) => {
        // The reservation row first, then the key's, then the windows': the order the usage writer locks them in.
        const row = await trx
          .updateTable('budget_reservations')
          .set({ amount_micro_usd: sql`amount_micro_usd + ${amountMicroUsd}` })
          .where('id', '=', reservation.id)
          .executeTakeFirst();
        if (Number(row.numUpdatedRows) === 0) return false;
        let key = trx
          .updateTable('key_spend')
          .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
          .where('api_key_id', '=', reservation.apiKeyId)
          .where('month', '=', reservation.month);
        if (ceilingMicroUsd !== null)
          key = key.where(sql<boolean>`spent_micro_usd + reserved_micro_usd + ${amountMicroUsd} <= ${ceilingMicroUsd}`);
        if (Number((await key.executeTakeFirst()).numUpdatedRows) === 0) throw DOES_NOT_FIT;
        for (const window of reservation.windows ?? []) {
          const grew = await trx
            .updateTable('limit_window_spend')
            .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
            .where('limit_id', '=', window.limitId)
            .where('window_start', '=', window.windowStart)
            .where(sql<boolean>`spent_micro_usd + reserved_micro_usd + ${amountMicroUsd} <= ${window.limitMicroUsd}`)
            .executeTakeFirst();
          if (Number(grew.numUpdatedRows) === 0) throw DOES_NOT_FIT;
        }
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

  /** Deletes the spend rows of limit windows that ended long ago, at most once an hour (docs/limits.md). */
  private async pruneOldWindows(): Promise<void> {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await new WindowLimits(this.store).pruneWindows(now);
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
        const windows = parseWindowsColumn(row.limit_windows).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [limitId, windowStart] of windows)
          await trx
            .updateTable('limit_window_spend')
            .set({ reserved_micro_usd: sql`reserved_micro_usd - ${row.amount_micro_usd}` })
            .where('limit_id', '=', limitId)
            .where('window_start', '=', windowStart)
            .execute();
        released++;
      });
    }
    if (released > 0) this.logger.info({ released }, 'released expired budget reservations');
    return released;
  }
}

/**
 * Locks one ledger row (created at zero if missing: the key's month, or a limit's window) by a
 * write that changes nothing, and returns its room under `limitMicroUsd` (null: no limit, Infinity).
 */
async function lockedRoom(
  trx: Transaction<Database>,
  row: 'key' | 'window',
  id: string,
  period: string | number,
  limitMicroUsd: number | null,
): Promise<number> {
  let locked: { spent_micro_usd: number; reserved_micro_usd: number };
  if (row === 'key') {
    const month = period as string;
    await trx
      .insertInto('key_spend')
      .values({ api_key_id: id, month, spent_micro_usd: 0, reserved_micro_usd: 0 })
      .onConflict((oc) => oc.columns(['api_key_id', 'month']).doNothing())
      .execute();
    locked = await trx
      .updateTable('key_spend')
      .set({ reserved_micro_usd: sql`reserved_micro_usd` })
      .where('api_key_id', '=', id)
      .where('month', '=', month)
      .returning(['spent_micro_usd', 'reserved_micro_usd'])
      .executeTakeFirstOrThrow();
  } else {
    const windowStart = period as number;
    await trx
      .insertInto('limit_window_spend')
      .values({ limit_id: id, window_start: windowStart, spent_micro_usd: 0, reserved_micro_usd: 0 })
      .onConflict((oc) => oc.columns(['limit_id', 'window_start']).doNothing())
      .execute();
    locked = await trx
      .updateTable('limit_window_spend')
      .set({ reserved_micro_usd: sql`reserved_micro_usd` })
      .where('limit_id', '=', id)
      .where('window_start', '=', windowStart)
      .returning(['spent_micro_usd', 'reserved_micro_usd'])
      .executeTakeFirstOrThrow();
  }
  if (limitMicroUsd === null) return Infinity;
  return limitMicroUsd - Number(locked.spent_micro_usd) - Number(locked.reserved_micro_usd);
}
