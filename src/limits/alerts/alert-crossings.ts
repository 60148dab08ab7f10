import type { AlertRule } from '../../store/alert-rules.js';
import type { NewAlertFiring } from '../../store/alert-firings.js';
import type { SpendObservation, WatchedLimit } from './watched-limit.js';

/** Whether the rule watches this limit: by its id, or every limit of its subject's kind. */
export function ruleWatchesLimit(rule: AlertRule, limit: WatchedLimit): boolean {
  const { target } = rule;
  if (target.kind === 'limit') return target.limit_id === limit.limitId;
  if (target.kind === 'limits_of_kind') return target.subject_kind === limit.subject.kind;
  return false;
}

/**
 * The firings an observation calls for under a rule: one per threshold the spend has reached
 * (spent ≥ threshold % of the limit). A jump past several thresholds fires each of them, since
 * each is delivered once per window; the store drops those that fired already.
 */
export function crossings(rule: AlertRule, observation: SpendObservation): NewAlertFiring[] {
  if (!rule.enabled || observation.limitMicroUsd <= 0) return [];
  return rule.thresholds
    .filter((threshold) => observation.spentMicroUsd * 100 >= threshold * observation.limitMicroUsd)
    .map((threshold) => ({
      organizationId: rule.organizationId,
      ruleId: rule.id,
      subject: observation.subject,
      threshold,
      window: observation.window,
      windowStart: observation.windowStart,
      windowEnd: observation.windowEnd,
      limitMicroUsd: observation.limitMicroUsd,
      spentMicroUsd: observation.spentMicroUsd,
    }));
}
