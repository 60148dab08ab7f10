import type { Logger } from 'pino';
import type { CollectedEventRetention } from '../store/collected-events-retention.js';
import { collectorMetrics } from '../metrics/collector-metrics.js';

export interface RetentionOptions {
  /** Events received more than this many days ago are deleted. */
  retentionDays: number;
  /** Pause between sweeps. */
  sweepMs: number;
  /** Rows per transaction. */
  batch: number;
}

export interface SweepResult {
  events: number;
  bytes: number;
  deliveries: number;
  warehouse: number;
  /** Transactions the sweep ran (each deleting at most `batch` rows). */
  transactions: number;
}

const DAY_MS = 86_400_000;

/** Lets queued I/O and timers run between two batches. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes what the collector stored more than `retentionDays` ago, in the background. A sweep
 * fixes one cutoff, then deletes, oldest first and `batch` rows per transaction, with a turn of
 * the event loop between transactions: first the outbox rows of those events (never delivered
 * by now; counted as dropped), then the events (their projects' totals lowered in the same
 * transaction, which frees quota), then the warehouse copies, project by project. No lock is
 * held across batches and no single statement touches more than `batch` rows, so requests keep
 * being answered during a sweep. Every instance may run one; on PostgreSQL they take disjoint
 * batches.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private started = false;
  /** Set by stop(): a sweep under way ends after its current batch. */
  private stopped = false;

  constructor(
    private readonly retention: CollectedEventRetention,
    private readonly options: RetentionOptions,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.started || this.options.retentionDays <= 0) return;
    this.started = true;
    this.stopped = false;
    this.schedule(Math.min(this.options.sweepMs, 5_000));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One full sweep (also called directly by tests and by the `schedule` loop). */
  async sweep(): Promise<SweepResult> {
    const result: SweepResult = { events: 0, bytes: 0, deliveries: 0, warehouse: 0, transactions: 0 };
    const cutoff = this.now() - this.options.retentionDays * DAY_MS;
    const { batch } = this.options;
    // Outbox rows first, with the same cutoff as the events: none is left naming a deleted event.
    for (;;) {
      const deleted = await this.retention.deleteExpiredDeliveries(cutoff, batch);
      result.deliveries += deleted;
      result.transactions++;
      collectorMetrics.retention({ events: 0, deliveries: deleted, warehouse: 0 });
      if (deleted < batch || this.stopped) break;
      await yieldToEventLoop();
    }
    for (;;) {
      const deleted = await this.retention.deleteExpiredEvents(cutoff, batch);
      result.events += deleted.events;
      result.bytes += deleted.bytes;
      result.transactions++;
      collectorMetrics.retention({ events: deleted.events, deliveries: 0, warehouse: 0 });
      if (deleted.events < batch || this.stopped) break;
      await yieldToEventLoop();
    }
    for (const projectId of await this.retention.projects()) {
      for (;;) {
        const deleted = await this.retention.deleteExpiredWarehouse(projectId, cutoff, batch);
        result.warehouse += deleted;
        result.transactions++;
        collectorMetrics.retention({ events: 0, deliveries: 0, warehouse: deleted });
        if (deleted < batch || this.stopped) break;
        await yieldToEventLoop();
      }
      if (this.stopped) break;
      await yieldToEventLoop();
    }
    return result;
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then((result) => {
          if (result.events + result.deliveries + result.warehouse > 0)
            this.logger.info({ ...result, retentionDays: this.options.retentionDays }, 'collector retention sweep');
        })
        .catch((error) => this.logger.warn({ err: error }, 'collector retention sweep failed; the next one retries'))
        .finally(() => this.schedule(this.options.sweepMs));
    }, delayMs);
    this.timer.unref();
  }
}
