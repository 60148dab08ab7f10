import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClaimedDelivery, CollectedEventStore } from '../../store/collected-events.js';
import type { ProjectComponentRepository } from '../../store/project-components.js';
import type { ComponentCatalogue } from '../../console/components/component-catalogue.js';
import type { Deliverer, DeliveryDestination, DeliveryRoute } from './deliverer.js';

export interface WorkerOptions {
  leaseMs: number;
  pollMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxAttempts: number;
  /** Rows claimed per round. */
  claimLimit?: number;
  /** While rows keep coming, at most one round per this many milliseconds (a backlog is worked off without pause). */
  roundIntervalMs?: number;
}

const DEFAULT_CLAIM_LIMIT = 1_000;
/**
 * Under steady intake every commit wakes the worker; a round per commit would claim, deliver and
 * settle a handful of rows each time, and the fixed cost of a round would then cost as much CPU
 * as the intake itself. Waiting this long lets one round take what several commits wrote.
 */
const DEFAULT_ROUND_INTERVAL_MS = 50;

/** Exponential backoff with jitter: base·2^(n-1), capped, then scaled by 0.5–1. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(raw * (0.5 + random() * 0.5));
}

/**
 * Delivers the outbox. A round that finds rows due first moves those of warehouse components
 * into the warehouse, without a lease (CollectedEventStore.moveDueToWarehouse). Then it claims
 * due rows under a fresh lease token (see CollectedEventStore.claim), groups them by project
 * component, delivers each group in the component's batch size (groups run concurrently), then
 * deletes delivered rows or reschedules failed ones with backoff. A row claimed by a worker that
 * dies comes due again when its lease expires, so nothing is lost across a crash; it may be
 * delivered twice, never zero times. Stop: no new rounds; the current round gets `graceMs` to
 * finish, then its requests are aborted and their rows released for immediate retry by the next
 * instance.
 */
export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private endPause: (() => void) | undefined;
  private woken = false;
  private abort = new AbortController();
  /** Catalogue ids of the components delivered by the warehouse runtime. */
  private readonly warehouseComponents: string[];

  constructor(
    private readonly events: CollectedEventStore,
    private readonly components: ProjectComponentRepository,
    private readonly catalogue: ComponentCatalogue,
    private readonly deliverers: Record<'webhook' | 'warehouse', Deliverer>,
    private readonly options: WorkerOptions,
    private readonly logger: Logger,
    /** Destinations other than project components sharing the outbox (alert rules). */
    private readonly routes: readonly DeliveryRoute[] = [],
  ) {
    const dataCollection = catalogue.list({ category: 'data_collection', limit: Number.MAX_SAFE_INTEGER })?.data ?? [];
    this.warehouseComponents = dataCollection.filter((c) => c.runtime === 'warehouse').map((c) => c.id);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** New rows were committed: look now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeUp?.();
    this.endPause?.();
    const timer = setTimeout(() => this.abort.abort(new Error('gateway stopping')), graceMs);
    try {
      await this.loop;
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(): Promise<void> {
    const limit = this.options.claimLimit ?? DEFAULT_CLAIM_LIMIT;
    const interval = this.options.roundIntervalMs ?? DEFAULT_ROUND_INTERVAL_MS;
    while (this.running) {
      const started = Date.now();
      let handled = 0;
      try {
        handled = await this.runOnce();
      } catch (error) {
        this.logger.warn({ err: error }, 'outbox round failed; will retry');
      }
      if (!this.running || handled >= limit) continue;
      if (handled === 0) await this.idle();
      else await this.pause(started + interval - Date.now());
    }
  }

  /** Sleeps `ms` (ended early by stop). */
  private pause(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.endPause = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.endPause = done;
    });
  }

  private idle(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        this.woken = false;
        done();
      };
    });
  }

  /** One round: warehouse rows moved in place, then a claim-deliver-settle; returns how many rows it settled or claimed. */
  async runOnce(): Promise<number> {
    const limit = this.options.claimLimit ?? DEFAULT_CLAIM_LIMIT;
    if (!(await this.events.anyDue(Date.now()))) return 0;
    let moved = 0;
    try {
      moved = await this.events.moveDueToWarehouse(Date.now(), limit, this.warehouseComponents);
    } catch (error) {
      // The rows stay due: the claim below delivers them the ordinary way, with backoff if it fails too.
      this.logger.warn({ err: error }, 'warehouse rows not moved; the claim delivers them');
    }
    return moved + (await this.claimAndDeliver(limit));
  }

  private async claimAndDeliver(limit: number): Promise<number> {
    const token = randomUUID();
    const claimed = await this.events.claim(token, Date.now(), this.options.leaseMs, limit);
    if (claimed.length === 0) return 0;
    const groups = new Map<string, ClaimedDelivery[]>();
    for (const row of claimed) {
      const group = groups.get(row.project_component_id);
      if (group) group.push(row);
      else groups.set(row.project_component_id, [row]);
    }
    const destinations = await this.destinationsOf([...groups.keys()]);
    await Promise.all(
      [...groups].map(async ([componentId, rows]) => {
        const destination = destinations.get(componentId);
        if (!destination) {
          // The project component (or alert rule) was deleted: its undelivered rows have nowhere to go.
          await this.events.discard(rows.map((r) => r.id));
          return;
        }
        await this.deliverGroup(
          token,
          rows,
          destination.projectId,
          componentId,
          destination.settings,
          destination.deliverer,
        );
      }),
    );
    return claimed.length;
  }

  /** Project components first; the ids they leave are asked of the other routes in turn. */
  private async destinationsOf(ids: string[]): Promise<Map<string, DeliveryDestination>> {
    const found = new Map<string, DeliveryDestination>();
    for (const pc of await this.components.byIds(ids)) {
      const runtime = this.catalogue.get(pc.componentId)?.runtime;
      if (runtime)
        found.set(pc.id, { projectId: pc.projectId, settings: pc.settings ?? {}, deliverer: this.deliverers[runtime] });
    }
    for (const route of this.routes) {
      const rest = ids.filter((id) => !found.has(id));
      if (rest.length === 0) break;
      for (const [id, destination] of await route.resolve(rest)) found.set(id, destination);
    }
    return found;
  }

  private async deliverGroup(
    token: string,
    rows: ClaimedDelivery[],
    projectId: string,
    componentId: string,
    settings: Record<string, unknown>,
    deliverer: Deliverer,
  ): Promise<void> {
    const size = deliverer.batchSize(settings);
    for (let i = 0; i < rows.length; i += size) {
      const part = rows.slice(i, i + size);
      const ids = part.map((r) => r.id);
      if (this.abort.signal.aborted) {
        await this.events.release(ids, token, Date.now());
        continue;
      }
      let attempt = 0;
      for (const r of part) attempt = Math.max(attempt, r.attempts);
      try {
        await deliverer.deliver({
          projectId,
          projectComponentId: componentId,
          settings,
          eventIds: part.map((r) => r.event_id),
          attempt,
          signal: this.abort.signal,
        });
        await this.events.complete(ids, token);
      } catch (error) {
        const now = Date.now();
        if (this.abort.signal.aborted) {
          await this.events.release(ids, token, now);
          continue;
        }
        const delay = backoffMs(attempt, this.options.retryBaseMs, this.options.retryMaxMs);
        this.logger.warn(
          { err: error, projectComponentId: componentId, events: part.length, attempt, retryInMs: delay },
          'event delivery failed',
        );
        await this.events.fail(
          ids,
          token,
          now + delay,
          (error as Error).message ?? String(error),
          this.options.maxAttempts,
          now,
        );
      }
    }
  }
}
