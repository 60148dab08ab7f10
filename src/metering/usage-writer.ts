import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { UsageRecord } from './usage-record.js';
import { monthOf } from '../limits/budget-ledger.js';

interface QueuedRow {
  record: UsageRecord;
  /** True when no budget reservation covers this request, so its cost is added to the key's spend here. */
  addSpend: boolean;
}

const FLUSH_INTERVAL_MS = 100;
const MAX_BATCH = 500;
const RETRY_AFTER_FAILURE_MS = 500;
/** Beyond this many unwritten rows (database away), requests still succeed but rows wait in memory. */
const MAX_PENDING = 100_000;

/**
 * Usage rows are written off the hot path: queued in memory and inserted in batches every
 * 100 ms (or at 500 rows), and flushed completely on shutdown. A failed batch is put back and
 * retried, so a database outage delays rows instead of losing them.
 */
export class UsageWriter {
  private pending: QueuedRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private dropped = 0;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  write(record: UsageRecord, addSpend: boolean): void {
    if (this.pending.length >= MAX_PENDING) {
      this.dropped++;
      if (this.dropped % 1000 === 1) this.logger.error({ dropped: this.dropped }, 'usage queue full: rows dropped');
      return;
    }
    this.pending.push({ record, addSpend });
    if (this.pending.length >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  get queueDepth(): number {
    return this.pending.length;
  }

  /** Writes everything queued so far; concurrent callers share one flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0) return;
    const batch = this.pending.splice(0, MAX_BATCH);
    this.flushing = this.insert(batch).finally(() => (this.flushing = undefined));
    await this.flushing;
    if (this.pending.length > 0) this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  /** Flushes until the queue is empty or `deadlineMs` passes (shutdown). */
  async drain(deadlineMs = 10_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (this.pending.length > 0 && Date.now() < until) {
      await this.flush();
      if (this.pending.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length > 0) this.logger.error({ rows: this.pending.length }, 'usage rows could not be written before shutdown');
  }

  /** Rows and the spend they add go in one transaction, so spend never counts a row twice or misses one. */
  private async insert(batch: QueuedRow[]): Promise<void> {
    const spend = new Map<string, { apiKeyId: string; month: string; amount: number }>();
    for (const { record, addSpend } of batch) {
      if (!addSpend || record.cost_micro_usd <= 0) continue;
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
        for (const { apiKeyId, month, amount } of spend.values()) {
          await trx
            .insertInto('key_spend')
            .values({ api_key_id: apiKeyId, month, spent_micro_usd: amount, reserved_micro_usd: 0 })
            .onConflict((oc) => oc.columns(['api_key_id', 'month']).doUpdateSet({ spent_micro_usd: sql`key_spend.spent_micro_usd + ${amount}` }))
            .execute();
        }
      });
    } catch (error) {
      this.logger.warn({ err: error, rows: batch.length }, 'usage batch not written; will retry');
      this.pending.unshift(...batch);
      this.timer ??= setTimeout(() => void this.flush(), RETRY_AFTER_FAILURE_MS);
    }
  }
}
