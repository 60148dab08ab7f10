import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';

export interface Reservation {
  id: string;
  apiKeyId: string;
  month: string;
  amountMicroUsd: number;
}

/** A reservation left by a process that died is released after this long (GATEWAY_RESERVATION_TTL_MS). */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;
/** GATEWAY_SWEEP_INTERVAL_MS. */
export const SWEEP_INTERVAL_MS = 30_000;

export interface LedgerTimings {
  reservationTtlMs: number;
  sweepIntervalMs: number;
}

/** The calendar month (UTC) last asked for, with its bounds: nearly every call falls in it. */
let lastMonth = { start: 0, end: 0, label: '' };

export function monthOf(ms: number): string {
  if (ms >= lastMonth.start && ms < lastMonth.end) return lastMonth.label;
  const date = new Date(ms);
  const label = date.toISOString().slice(0, 7);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  lastMonth = { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1), label };
  return label;
}

/**
 * Monthly spend ceilings without races. Before forwarding, the worst-case cost is reserved by
 * one conditional UPDATE (`spent + reserved + amount <= ceiling`), which both PostgreSQL (row
 * lock, WHERE re-checked after the wait) and SQLite (one writer at a time) apply atomically,
 * so N concurrent requests — in one process or many — can never reserve past the ceiling.
 * Afterwards the reservation is settled to the actual cost. Each reservation is also a row with
 * an expiry, so one held by a crashed process is released by any live instance's sweeper.
 */
export class BudgetLedger {
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly timings: LedgerTimings = {
      reservationTtlMs: RESERVATION_TTL_MS,
      sweepIntervalMs: SWEEP_INTERVAL_MS,
    },
  ) {}

  startSweeper(): void {
    this.sweeper = setInterval(() => {
      this.releaseExpired().catch((error) =>
        this.logger.warn({ err: error }, 'could not release expired budget reservations'),
      );
    }, this.timings.sweepIntervalMs);
    this.sweeper.unref();
  }

  stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Returns the reservation, or undefined when it does not fit under the ceiling. */
  async reserve(apiKeyId: string, ceilingMicroUsd: number, amountMicroUsd: number): Promise<Reservation | undefined> {
    const now = this.now();
    const month = monthOf(now);
    const id = randomUUID();
    return this.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('key_spend')
        .values({ api_key_id: apiKeyId, month, spent_micro_usd: 0, reserved_micro_usd: 0 })
        .onConflict((oc) => oc.columns(['api_key_id', 'month']).doNothing())
        .execute();
      const updated = await trx
        .updateTable('key_spend')
        .set({ reserved_micro_usd: sql`reserved_micro_usd + ${amountMicroUsd}` })
        .where('api_key_id', '=', apiKeyId)
        .where('month', '=', month)
        .where(sql<boolean>`spent_micro_usd + reserved_micro_usd + ${amountMicroUsd} <= ${ceilingMicroUsd}`)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return undefined;
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
  }

  /** Turns a reservation into actual spend. Safe if the sweeper already released it. */
  async settle(reservation: Reservation, actualMicroUsd: number): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('budget_reservations').where('id', '=', reservation.id).executeTakeFirst();
      const held = Number(removed.numDeletedRows) > 0 ? reservation.amountMicroUsd : 0;
      await trx
        .updateTable('key_spend')
        .set({
          spent_micro_usd: sql`spent_micro_usd + ${actualMicroUsd}`,
          reserved_micro_usd: sql`reserved_micro_usd - ${held}`,
        })
        .where('api_key_id', '=', reservation.apiKeyId)
        .where('month', '=', reservation.month)
        .execute();
    });
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
