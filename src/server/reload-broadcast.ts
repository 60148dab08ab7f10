import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { currentReloadGeneration, requestReload } from '../store/reload-generation.js';
import type { Reloader, ReloadReport } from './reloader.js';

export interface BroadcastReload {
  /** The store's reload count after this request; undefined when this instance refused the reload. */
  generation: number | undefined;
  report: ReloadReport;
}

/**
 * A reload on every instance of a store: the console action reloads this instance at once and,
 * when its configuration and keyring were accepted, increments the store's reload count; every
 * instance polls the count (one primary-key read every `pollMs`) and reloads when it moved.
 */
export class ReloadBroadcast {
  private seen = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private failing = false;

  constructor(
    private readonly store: Store,
    private readonly reloader: Reloader,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.seen = await currentReloadGeneration(this.store);
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The console action: reload here, then, if this instance took the files, ask the others. */
  async everywhere(requestedBy: string): Promise<BroadcastReload> {
    const report = await this.reloader.reload(`console (${requestedBy})`);
    if (report.config.result === 'rejected' || report.keyring.result === 'rejected')
      return { generation: undefined, report };
    const generation = await requestReload(this.store, requestedBy);
    // This instance already reloaded: its next poll must not do it again.
    this.seen = Math.max(this.seen, generation);
    return { generation, report };
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const generation = await currentReloadGeneration(this.store);
      this.failing = false;
      if (generation <= this.seen) return;
      this.seen = generation;
      await this.reloader.reload(`console generation ${generation}`);
    } catch (error) {
      // Once per outage: the store's own errors are logged where they happen.
      if (!this.failing)
        this.logger.warn({ error: (error as Error).message }, 'could not read the reload count; retrying');
      this.failing = true;
    } finally {
      this.polling = false;
    }
  }
}
