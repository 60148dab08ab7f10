import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { deleteFreeFailuresBefore } from '../store/usage-refusal-retention.js';

const DAY_MS = 86_400_000;
const SWEEP_MS = 3_600_000;
const FIRST_SWEEP_MS = 5_000;
const BATCH = 1_000;

/** Lets queued I/O and timers run between two batches. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Bounds what refusals can store (docs/decisions.md, "Refused requests in the Logs page"): every
 * hour, usage rows of refused or failed requests that cost nothing and are older than
 * `retentionDays` are deleted, BATCH rows per statement with a turn of the event loop between.
 * Every instance may run one; a row two of them race for is deleted once.
 */
export class RefusalRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private started = false;
  /** Set by stop(): a sweep under way ends after its current batch. */
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly retentionDays: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    this.schedule(FIRST_SWEEP_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One full sweep; returns the rows deleted. */
  async sweep(): Promise<number> {
    const cutoff = this.now() - this.retentionDays * DAY_MS;
    let deleted = 0;
    for (;;) {
      const batch = await deleteFreeFailuresBefore(this.store, cutoff, BATCH);
      deleted += batch;
      if (batch < BATCH || this.stopped) return deleted;
      await yieldToEventLoop();
    }
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then((rows) => {
          if (rows > 0) this.logger.info({ rows, retentionDays: this.retentionDays }, 'refused requests expired');
        })
        .catch((error) => this.logger.warn({ err: error }, 'refusal retention sweep failed; the next one retries'))
        .finally(() => this.schedule(SWEEP_MS));
    }, delayMs);
    this.timer.unref();
  }
}
