/** One dependency a listener needs to serve: resolves when it answers, rejects (or never settles) when not. */
export type ReadinessCheck = () => Promise<unknown>;

export type CheckState = 'ok' | 'failed' | 'timeout';

/** What `/readyz` answers: ready only when not draining and every check of the listener is ok. */
export interface ReadinessReport {
  ready: boolean;
  draining: boolean;
  checks: Record<string, CheckState>;
}

export interface ReadinessOptions {
  /** How long a check's outcome is reused: probes from several load balancers cost one query a period. */
  cacheMs?: number;
  /** How long a probe waits for a check: a hung database makes `/readyz` answer 503, not hang. */
  deadlineMs?: number;
  now?: () => number;
}

interface CheckEntry {
  run: ReadinessCheck;
  state: CheckState | undefined;
  checkedAt: number;
  /** At most one run at a time: a hung database holds one connection for the probes, not one per probe. */
  running: Promise<void> | undefined;
}

/**
 * The process's readiness (docs/configuration.md, "Health probes"): named dependency checks,
 * each cached for `cacheMs` and bounded by `deadlineMs`, and the draining flag a SIGTERM sets.
 * Listeners ask for the checks they depend on, so the collector's Redis does not take the
 * gateway out of a load balancer.
 */
export class Readiness {
  private isDraining = false;
  private readonly entries = new Map<string, CheckEntry>();
  private readonly cacheMs: number;
  private readonly deadlineMs: number;
  private readonly now: () => number;

  constructor(checks: Record<string, ReadinessCheck>, options: ReadinessOptions = {}) {
    for (const [name, run] of Object.entries(checks))
      this.entries.set(name, { run, state: undefined, checkedAt: 0, running: undefined });
    this.cacheMs = options.cacheMs ?? 1_000;
    this.deadlineMs = options.deadlineMs ?? 2_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** From now on every probe answers not ready: load balancers stop sending before connections close. */
  startDraining(): void {
    this.isDraining = true;
  }

  get draining(): boolean {
    return this.isDraining;
  }

  /** The probe of a listener that depends on `names` (each must be a check given to the constructor). */
  probe(names: readonly string[]): () => Promise<ReadinessReport> {
    const entries = names.map((name) => {
      const entry = this.entries.get(name);
      if (!entry) throw new Error(`no readiness check named ${name}`);
      return [name, entry] as const;
    });
    return async () => {
      if (this.draining) return { ready: false, draining: true, checks: {} };
      await this.settle(entries.map(([, entry]) => entry));
      const checks: Record<string, CheckState> = {};
      let ready = !this.draining;
      for (const [name, entry] of entries) {
        const state = entry.state ?? 'timeout';
        checks[name] = state;
        if (state !== 'ok') ready = false;
      }
      return { ready, draining: this.draining, checks };
    };
  }

  /** Runs the stale checks (not those still running) and waits for them up to the deadline. */
  private async settle(entries: CheckEntry[]): Promise<void> {
    const now = this.now();
    const waits: Array<Promise<void>> = [];
    for (const entry of entries) {
      if (entry.running) waits.push(entry.running);
      else if (entry.state === undefined || now - entry.checkedAt >= this.cacheMs) waits.push(this.run(entry));
    }
    if (waits.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.deadlineMs);
    });
    await Promise.race([Promise.all(waits), deadline]);
    clearTimeout(timer);
    // A check still running past the deadline is reported as timed out until it settles.
    for (const entry of entries) if (entry.running) entry.state = 'timeout';
  }

  private run(entry: CheckEntry): Promise<void> {
    const finish = (state: CheckState) => {
      entry.state = state;
      entry.checkedAt = this.now();
      entry.running = undefined;
    };
    let started: Promise<unknown>;
    try {
      started = entry.run();
    } catch (error) {
      started = Promise.reject(error as Error);
    }
    entry.running = started.then(
      () => finish('ok'),
      () => finish('failed'),
    );
    return entry.running;
  }
}
