import type { Logger } from 'pino';
import type { Store } from '../../store/database.js';
import type { AlertRule, AlertRuleRepository } from '../../store/alert-rules.js';
import {
  firingKey,
  type AlertFiring,
  type AlertFiringRepository,
  type NewAlertFiring,
} from '../../store/alert-firings.js';
import { crossings, ruleWatchesLimit } from './alert-crossings.js';
import { keyCeilings, organizationSpend } from './spend-observations.js';
import { observationOfLimit, type WatchedLimit } from './watched-limit.js';

/** What a settled usage row tells the evaluator: whose spend moved. */
export interface SettledSpend {
  organization_id: string;
  api_key_id: string;
  /** The key's member when the row was written (its member's and group's limits apply). */
  member_id?: string | null;
  cost_micro_usd: number;
}

/** A key whose spend moved, as the windowed limits look it up. */
export interface SettledKey {
  id: string;
  organizationId: string;
  memberId: string | null;
}

export interface AlertEvaluatorOptions {
  rules: AlertRuleRepository;
  firings: AlertFiringRepository;
  store: Store;
  logger: Logger;
  now?: () => number;
  /**
   * The windowed spend limits (docs/limits.md) that apply to keys whose spend moved, with what
   * their current windows have spent: evaluated by `evaluateAlerts`. Absent: only organization
   * spend and key ceilings are watched.
   */
  watchedLimits?: (keys: readonly SettledKey[]) => Promise<WatchedLimit[]>;
  /** Called after an alert fired (its outbox rows are committed): wakes the delivery worker. */
  onFired?: () => void;
  /** How long an organization's rules are reused before being read again. */
  rulesTtlMs?: number;
  /** Fired alerts of windows that ended longer ago than this are deleted. */
  retentionMs?: number;
}

const DEFAULT_RULES_TTL_MS = 1_000;

const watchesLimits = (rule: AlertRule) => rule.target.kind === 'limit' || rule.target.kind === 'limits_of_kind';
export const ALERT_RETENTION_MS = 90 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Organizations whose rules are held at once; past this the cache starts again empty. */
const MAX_CACHED_ORGANIZATIONS = 10_000;
const MAX_SETTLED_KEYS = 100_000;

/**
 * Evaluates alert rules after spend settles (docs/alerts.md, "Evaluation"). `afterSettle` is
 * called with each committed batch of usage rows and returns at once: the evaluation runs after
 * the response, one at a time per organization; rows that settle meanwhile are folded into one
 * more evaluation, so a busy organization costs at most one evaluation in flight. Each crossing
 * is written with `fireOnce`, whose unique row makes it fire once across every instance.
 */
export class AlertEvaluator {
  private readonly rulesCache = new Map<string, { rules: AlertRule[]; readAt: number }>();
  /** Per organization: keys whose spend moved since its evaluation in flight started. */
  private readonly pending = new Map<string, Map<string, string | null>>();
  private readonly running = new Map<string, Promise<void>>();
  /** Crossings this process knows are in the store: a spend above a threshold re-evaluated skips the write. */
  private readonly settled = new Set<string>();
  private lastPrune = 0;
  private readonly now: () => number;

  constructor(private readonly options: AlertEvaluatorOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The entry point for the windowed limits a settled request touched: every enabled rule of the
   * organization that watches one of them fires for each threshold it reached. Returns what fired.
   */
  async evaluateAlerts(orgId: string, watched: readonly WatchedLimit[]): Promise<AlertFiring[]> {
    if (watched.length === 0) return [];
    const rules = await this.rulesOf(orgId);
    const due: Array<{ rule: AlertRule; firing: NewAlertFiring }> = [];
    for (const limit of watched)
      for (const rule of rules)
        if (ruleWatchesLimit(rule, limit))
          for (const firing of crossings(rule, observationOfLimit(limit))) due.push({ rule, firing });
    return this.fire(due);
  }

  /** The organization's own spend and its keys' ceilings, for the keys whose spend moved. */
  async checkSpend(orgId: string, apiKeyIds: readonly string[]): Promise<AlertFiring[]> {
    const rules = await this.rulesOf(orgId);
    if (rules.length === 0) return [];
    const now = this.now();
    const due: Array<{ rule: AlertRule; firing: NewAlertFiring }> = [];
    const watchedKeys = rules.flatMap((r) =>
      r.target.kind === 'key_ceiling' && apiKeyIds.includes(r.target.api_key_id) ? [r.target.api_key_id] : [],
    );
    const ceilings = await keyCeilings(this.options.store, orgId, [...new Set(watchedKeys)], now);
    /** One sum per (window, amount) however many rules share it. */
    const sums = new Map<string, ReturnType<typeof organizationSpend>>();
    for (const rule of rules) {
      const { target } = rule;
      if (target.kind === 'organization_spend') {
        const key = `${target.window}:${target.amount_micro_usd}`;
        if (!sums.has(key))
          sums.set(key, organizationSpend(this.options.store, orgId, target.window, target.amount_micro_usd, now));
        for (const firing of crossings(rule, await sums.get(key)!)) due.push({ rule, firing });
      } else if (target.kind === 'key_ceiling') {
        const observation = ceilings.get(target.api_key_id);
        if (observation) for (const firing of crossings(rule, observation)) due.push({ rule, firing });
      }
    }
    return this.fire(due);
  }

  /** Called with each committed batch of usage rows; never throws, never waits. */
  afterSettle(rows: readonly SettledSpend[]): void {
    for (const row of rows) {
      if (!(row.cost_micro_usd > 0)) continue;
      let keys = this.pending.get(row.organization_id);
      if (!keys) this.pending.set(row.organization_id, (keys = new Map<string, string | null>()));
      keys.set(row.api_key_id, row.member_id ?? null);
    }
    for (const orgId of this.pending.keys()) if (!this.running.has(orgId)) this.startRun(orgId);
    this.maybePrune();
  }

  /** The organization's rules changed on this instance: read them again at the next evaluation (others: within the TTL). */
  forgetRules(orgId: string): void {
    this.rulesCache.delete(orgId);
  }

  /** Resolves once no evaluation is in flight (tests; shutdown before the store closes). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private startRun(orgId: string): void {
    const run = (async () => {
      for (let keys = this.pending.get(orgId); keys; keys = this.pending.get(orgId)) {
        this.pending.delete(orgId);
        try {
          await this.checkSpend(orgId, [...keys.keys()]);
          const { watchedLimits } = this.options;
          // The limits are read only for an organization with a rule that watches them.
          if (watchedLimits && (await this.rulesOf(orgId)).some(watchesLimits)) {
            const settledKeys = [...keys].map(([id, memberId]) => ({ id, organizationId: orgId, memberId }));
            await this.evaluateAlerts(orgId, await watchedLimits(settledKeys));
          }
        } catch (error) {
          this.options.logger.warn({ err: error, organizationId: orgId }, 'alert evaluation failed');
        }
      }
    })().finally(() => {
      this.running.delete(orgId);
      // Rows that settled between the loop's last look and here would otherwise wait for the next settlement.
      if (this.pending.has(orgId)) this.startRun(orgId);
    });
    this.running.set(orgId, run);
  }

  private async fire(due: Array<{ rule: AlertRule; firing: NewAlertFiring }>): Promise<AlertFiring[]> {
    if (due.length === 0) return [];
    const fired: AlertFiring[] = [];
    const now = this.now();
    for (const { rule, firing } of due) {
      const key = firingKey(firing.ruleId, firing.subject, firing.threshold, firing.windowStart);
      if (this.settled.has(key)) continue;
      const done = await this.options.firings.fireOnce(firing, rule.destinations.length, now);
      if (done) fired.push(done);
      // Fired here or elsewhere: either way the store holds it, and asking again would only write nothing.
      if (this.settled.size >= MAX_SETTLED_KEYS) this.settled.clear();
      this.settled.add(key);
    }
    if (fired.length > 0) this.options.onFired?.();
    return fired;
  }

  private async rulesOf(orgId: string): Promise<AlertRule[]> {
    const now = this.now();
    const cached = this.rulesCache.get(orgId);
    if (cached && now - cached.readAt < (this.options.rulesTtlMs ?? DEFAULT_RULES_TTL_MS)) return cached.rules;
    const rules = (await this.options.rules.list(orgId)).filter((rule) => rule.enabled);
    if (this.rulesCache.size >= MAX_CACHED_ORGANIZATIONS) this.rulesCache.clear();
    this.rulesCache.set(orgId, { rules, readAt: now });
    return rules;
  }

  private maybePrune(): void {
    const now = this.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.options.firings
      .prune(now, this.options.retentionMs ?? ALERT_RETENTION_MS)
      .catch((error) => this.options.logger.warn({ err: error }, 'old fired alerts not pruned; next hour tries again'));
  }
}
