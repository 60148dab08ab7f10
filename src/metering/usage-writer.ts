import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { UsageRecord } from './usage-record.js';
import { monthOf, type Reservation } from '../limits/budget-ledger.js';

interface QueuedRow {
  record: UsageRecord;
  /** True when no budget reservation covers this request, so its cost is added to the key's spend here. */
  addSpend: boolean;
  /** Settled in the same transaction as the row: the row and the key's spend can never disagree. */
  reservation: Reservation | undefined;
  committed: () => void;
}

const MAX_BATCH = 500;
const RETRY_AFTER_FAILURE_MS = 500;
/** Beyond this many unwritten rows (database away), new rows are refused rather than growing memory. */
const MAX_PENDING = 100_000;

/**
 * Group commit for usage rows. `write` queues a row and returns a promise that resolves once the
 * row is committed. Rows that arrive while a batch is being written go into the next batch, so
 * under load one INSERT carries many rows, and when idle a row is written at once (next tick).
 * Callers await it before completing their response, so a request whose answer reached the
 * client has its row even if the process is killed right after. A failed batch is put back and
 * retried: a database outage delays rows (and the callers, up to their own wait limit) instead
 * of losing them.
 */
export class UsageWriter {
  private pending: QueuedRow[] = [];
  private scheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<boolean> | undefined;
  private dropped = 0;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /**
   * Queues a row. Its cost is added to the key's monthly spend in the same transaction: either
   * by settling `reservation` (held reserve released, actual cost added) or, for keys without a
   * ceiling (`addSpend`), directly.
   */
  write(record: UsageRecord, addSpend: boolean, reservation?: Reservation): Promise<void> {
    if (this.pending.length >= MAX_PENDING) {
      this.dropped++;
      if (this.dropped % 1000 === 1) this.logger.error({ dropped: this.dropped }, 'usage queue full: rows dropped');
      return Promise.resolve();
    }
    return new Promise((committed) => {
      this.pending.push({ record, addSpend, reservation, committed });
      this.schedule();
    });
  }

  get queueDepth(): number {
    return this.pending.length;
  }

  /** Writes everything queued so far (a batch at a time); concurrent callers share each flush. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      this.flushing = this.insert(batch).finally(() => (this.flushing = undefined));
      const ok = await this.flushing;
      if (!ok) return;
    }
  }

  /** Flushes until the queue is empty or `deadlineMs` passes (shutdown). */
  async drain(deadlineMs = 10_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (this.pending.length > 0 && Date.now() < until) {
      await this.flush();
      if (this.pending.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pending.length > 0) this.logger.error({ rows: this.pending.length }, 'usage rows could not be written before shutdown');
  }

  private schedule(): void {
    if (this.scheduled || this.retryTimer) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Rows and the spend they add go in one transaction, so spend never counts a row twice or misses one. */
  private async insert(batch: QueuedRow[]): Promise<boolean> {
    const spend = new Map<string, { apiKeyId: string; month: string; amount: number }>();
    for (const { record, addSpend, reservation } of batch) {
      if (!addSpend || reservation || record.cost_micro_usd <= 0) continue;
      const month = monthOf(record.created_at);
      const entry = spend.get(`${record.api_key_id}|${month}`) ?? { apiKeyId: record.api_key_id, month, amount: 0 };
      entry.amount += record.cost_micro_usd;
      spend.set(`${record.api_key_id}|${month}`, entry);
    }
    try {
      await this.store.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('usage_records')
          .values(batch.map((row) => row.record))
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        for (const { reservation, record } of batch) {
          if (!reservation) continue;
          const removed = await trx.deleteFrom('budget_reservations').where('id', '=', reservation.id).executeTakeFirst();
          const held = Number(removed.numDeletedRows) > 0 ? reservation.amountMicroUsd : 0;
          await trx
            .updateTable('key_spend')
            .set({
              spent_micro_usd: sql`spent_micro_usd + ${record.cost_micro_usd}`,
              reserved_micro_usd: sql`reserved_micro_usd - ${held}`,
            })
            .where('api_key_id', '=', reservation.apiKeyId)
            .where('month', '=', reservation.month)
            .execute();
        }
        for (const { apiKeyId, month, amount } of spend.values()) {
          await trx
            .insertInto('key_spend')
            .values({ api_key_id: apiKeyId, month, spent_micro_usd: amount, reserved_micro_usd: 0 })
            .onConflict((oc) => oc.columns(['api_key_id', 'month']).doUpdateSet({ spent_micro_usd: sql`key_spend.spent_micro_usd + ${amount}` }))
            .execute();
        }
      });
      for (const row of batch) row.committed();
      return true;
    } catch (error) {
      this.logger.warn({ err: error, rows: batch.length }, 'usage batch not written; will retry');
      this.pending.unshift(...batch);
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        void this.flush();
      }, RETRY_AFTER_FAILURE_MS);
      return false;
    }
  }
}
