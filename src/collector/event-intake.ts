import type { Logger } from 'pino';
import type { CollectedEventStore, IntakeBatch, StoredEventQuota } from '../store/collected-events.js';

/** `stored`: committed. `quota`: refused whole, the project's stored-event quota is full. */
export type IntakeOutcome = 'stored' | 'quota';

interface Pending {
  batch: IntakeBatch;
  resolve: (outcome: IntakeOutcome) => void;
  reject: (error: unknown) => void;
}

/** Events per transaction: large enough to amortise the commit, small enough to keep latency low. */
const MAX_BATCH_EVENTS = 5_000;

/**
 * Group commit. Each request's events are queued; one writer at a time takes everything queued
 * (up to MAX_BATCH_EVENTS) and writes it — events and outbox rows — in a single transaction,
 * then resolves every request in that batch. A request is acknowledged only after the commit
 * that holds its events, so an acknowledged event survives a crash; a failed commit rejects
 * all of its requests (they answer 503 and the client retries).
 *
 * The writer takes a batch only after the event loop's current turn (setImmediate), so every
 * request read in that turn is in it. This matters on SQLite: better-sqlite3 is synchronous, so
 * a transaction started at once would run to its commit before the next socket of the same turn
 * is even read, and a commit per request would cost more than the request's events. No timer:
 * an idle collector answers after one turn.
 *
 * The project's stored-event quota is checked inside that transaction (CollectedEventStore.insert):
 * a request that does not fit is refused whole and the others of the batch are still stored.
 */
export class EventIntake {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly store: CollectedEventStore,
    private readonly logger: Logger,
    private readonly onCommitted: () => void = () => undefined,
    private readonly quota?: StoredEventQuota,
  ) {}

  /** Resolves once the request's events and their outbox rows are committed, or refused by the quota. */
  submit(batch: IntakeBatch): Promise<IntakeOutcome> {
    return new Promise<IntakeOutcome>((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.writing ??= this.writeAll();
    });
  }

  /** Resolves once everything submitted so far is committed or refused. */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    try {
      for (;;) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.queue.length === 0) return;
        let taken = 0;
        let count = 0;
        while (
          taken < this.queue.length &&
          (count === 0 || count + this.queue[taken]!.batch.events.length <= MAX_BATCH_EVENTS)
        ) {
          count += this.queue[taken]!.batch.events.length;
          taken++;
        }
        const pending = this.queue.splice(0, taken);
        try {
          const stored = await this.store.insert(
            pending.map((p) => p.batch),
            this.quota,
          );
          pending.forEach((p, i) => p.resolve(stored[i] ? 'stored' : 'quota'));
          this.onCommitted();
        } catch (error) {
          this.logger.error({ err: error, events: count }, 'collected events not stored');
          for (const p of pending) p.reject(error);
        }
      }
    } finally {
      // Cleared in the same step as the empty-queue check, so a submit never finds a writer that is leaving.
      this.writing = undefined;
    }
  }
}
