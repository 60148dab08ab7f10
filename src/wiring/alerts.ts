import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Keyring } from '../secrets/keyring.js';
import { AlertRuleRepository } from '../store/alert-rules.js';
import { AlertFiringRepository } from '../store/alert-firings.js';
import { AlertEvaluator } from '../limits/alerts/alert-evaluator.js';
import type { SpendLimits } from './spend-limits.js';

/**
 * Alert rules and their evaluator (docs/alerts.md): organization spend, key ceilings and the
 * windowed limits of keys whose spend settled. `wakeDelivery` tells the outbox worker, where this
 * instance runs one, that a fired alert's rows are committed.
 */
export function createAlerts(
  store: Store,
  keyring: Keyring,
  logger: Logger,
  spendLimits: SpendLimits,
  wakeDelivery: () => void,
): { alertRules: AlertRuleRepository; alertFirings: AlertFiringRepository; alerts: AlertEvaluator } {
  const alertRules = new AlertRuleRepository(store, keyring);
  const alertFirings = new AlertFiringRepository(store);
  const alerts = new AlertEvaluator({
    rules: alertRules,
    firings: alertFirings,
    store,
    logger,
    onFired: wakeDelivery,
    watchedLimits: (keys) => spendLimits.current(keys),
  });
  return { alertRules, alertFirings, alerts };
}
