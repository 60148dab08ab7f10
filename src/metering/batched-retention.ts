import type { Logger } from 'pino';

const DAY_MS = 86_400_000;
const SWEEP_MS = 3_600_000;
const FIRST_SWEEP_MS = 5_000;
const BATCH = 1_000;

/** Lets queued I/O and timers run between two batches. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes up to `limit` rows created before `cutoff` (ms); returns how many went. */
export type DeleteBefore = (cutoff: number, limit: number) => Promise<number>;

/**
 * A retention sweep: every hour (the first a few seconds after start), rows older than
 * `retentionDays` are deleted BATCH per statement with a turn of the event loop between. Every
 * instance may run one; a row two of them race for is deleted once.
 */
export class BatchedRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private started = false;
  /** Set by stop(): a sweep under way ends after its current batch. */
  private stopped = false;

  constructor(
    private readonly what: string,
    private readonly deleteBefore: DeleteBefore,
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
      const batch = await this.deleteBefore(cutoff, BATCH);
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
          if (rows > 0) this.logger.info({ rows, retentionDays: this.retentionDays }, `${this.what} expired`);
        })
        .catch((error) => this.logger.warn({ err: error }, `${this.what} retention sweep failed; the next one retries`))
        .finally(() => this.schedule(SWEEP_MS));
    }, delayMs);
    this.timer.unref();
  }
}
