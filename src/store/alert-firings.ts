import type { Store } from './database.js';
import type { AlertFiringsTable } from './schema.js';
import { timeOrderedId } from './time-ordered-id.js';

export interface AlertFiring {
  id: string;
  organizationId: string;
  ruleId: string;
  /** `organization`, `key:<id>` or `limit:<id>`. */
  subject: string;
  threshold: number;
  window: 'daily' | 'monthly' | 'lifetime';
  windowStart: number;
  windowEnd: number | null;
  limitMicroUsd: number;
  spentMicroUsd: number;
  firedAt: number;
}

export type NewAlertFiring = Omit<AlertFiring, 'id' | 'firedAt'>;

/** Where a fired alert's deliveries stand: `pending` (in the outbox), `failed` (parked after the last attempt) or `done`. */
export type AlertDeliveryState = 'pending' | 'failed' | 'done';

/**
 * The outbox row of one destination of a firing: `event_id` is `<firing id>:<destination index>`,
 * `project_component_id` the rule id, `project_id` the organization (docs/alerts.md, "Delivery").
 */
export function alertDeliveryEventId(firingId: string, destination: number): string {
  return `${firingId}:${destination}`;
}

export function parseAlertDeliveryEventId(eventId: string): { firingId: string; destination: number } | undefined {
  const colon = eventId.lastIndexOf(':');
  const destination = Number(eventId.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(destination) || destination < 0) return undefined;
  return { firingId: eventId.slice(0, colon), destination };
}

function toFiring(row: AlertFiringsTable): AlertFiring {
  return {
    id: row.id,
    organizationId: row.organization_id,
    ruleId: row.rule_id,
    subject: row.subject,
    threshold: Number(row.threshold),
    window: row.window_kind as AlertFiring['window'],
    windowStart: Number(row.window_start),
    windowEnd: row.window_end === null ? null : Number(row.window_end),
    limitMicroUsd: Number(row.limit_micro_usd),
    spentMicroUsd: Number(row.spent_micro_usd),
    firedAt: Number(row.fired_at),
  };
}

/** Fired alerts: each (rule, subject, threshold, window start) at most once, with its outbox rows. */
export class AlertFiringRepository {
  constructor(private readonly store: Store) {}

  /**
   * Fires the alert unless it already fired: the firing and one outbox row per destination are
   * written in one transaction, and the unique index on (rule, subject, threshold, window start)
   * turns a second instance's identical insert into nothing, so exactly one of them fires.
   * Returns the new firing, or undefined when it had fired already.
   */
  async fireOnce(firing: NewAlertFiring, destinations: number, now = Date.now()): Promise<AlertFiring | undefined> {
    const row: AlertFiringsTable = {
      id: timeOrderedId(now),
      organization_id: firing.organizationId,
      rule_id: firing.ruleId,
      subject: firing.subject,
      threshold: firing.threshold,
      window_kind: firing.window,
      window_start: firing.windowStart,
      window_end: firing.windowEnd,
      limit_micro_usd: Math.round(firing.limitMicroUsd),
      spent_micro_usd: Math.round(firing.spentMicroUsd),
      fired_at: now,
    };
    return this.store.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('alert_firings')
        .values(row)
        .onConflict((oc) => oc.columns(['rule_id', 'subject', 'threshold', 'window_start']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return undefined;
      if (destinations > 0)
        await trx
          .insertInto('event_deliveries')
          .values(
            Array.from({ length: destinations }, (_, index) => ({
              id: timeOrderedId(now),
              project_id: firing.organizationId,
              project_component_id: firing.ruleId,
              event_id: alertDeliveryEventId(row.id, index),
              created_at: now,
              next_attempt_at: now,
              attempts: 0,
            })),
          )
          .execute();
      return toFiring(row);
    });
  }

  async get(id: string): Promise<AlertFiring | undefined> {
    const row = await this.store.db.selectFrom('alert_firings').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toFiring(row);
  }

  /** The organization's fired alerts, newest first, `limit` + 1 read to tell whether more follow. */
  async page(
    organizationId: string,
    limit: number,
    startingAfter?: string,
    ruleId?: string,
  ): Promise<{ firings: AlertFiring[]; hasMore: boolean }> {
    let query = this.store.db
      .selectFrom('alert_firings')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (startingAfter !== undefined) query = query.where('id', '<', startingAfter);
    if (ruleId !== undefined) query = query.where('rule_id', '=', ruleId);
    const rows = await query.execute();
    return { firings: rows.slice(0, limit).map(toFiring), hasMore: rows.length > limit };
  }

  /** Where the deliveries of these firings stand, read from their outbox rows (a row gone: delivered). */
  async deliveryStates(
    organizationId: string,
    firings: readonly AlertFiring[],
  ): Promise<Map<string, AlertDeliveryState>> {
    const states = new Map<string, AlertDeliveryState>(firings.map((f) => [f.id, 'done']));
    const ruleIds = [...new Set(firings.map((f) => f.ruleId))];
    if (ruleIds.length === 0) return states;
    const rows = await this.store.db
      .selectFrom('event_deliveries')
      .select(['event_id', 'failed_at'])
      .where('project_id', '=', organizationId)
      .where('project_component_id', 'in', ruleIds)
      .execute();
    for (const row of rows) {
      const firingId = parseAlertDeliveryEventId(row.event_id)?.firingId;
      if (!firingId || !states.has(firingId)) continue;
      if (row.failed_at !== null) states.set(firingId, 'failed');
      else if (states.get(firingId) !== 'failed') states.set(firingId, 'pending');
    }
    return states;
  }

  /**
   * Retention: firings of windows that ended more than `retentionMs` ago leave, `batch` at a
   * time. A lifetime window never ends, so its firings stay while their rule does (a rule's
   * firings are bounded by its thresholds times the limits it watches).
   */
  async prune(now: number, retentionMs: number, batch = 1_000): Promise<number> {
    const old = await this.store.db
      .selectFrom('alert_firings')
      .select('id')
      .where('window_end', 'is not', null)
      .where('window_end', '<', now - retentionMs)
      .limit(batch)
      .execute();
    if (old.length === 0) return 0;
    await this.store.db
      .deleteFrom('alert_firings')
      .where(
        'id',
        'in',
        old.map((r) => r.id),
      )
      .execute();
    return old.length;
  }
}

export function firingKey(ruleId: string, subject: string, threshold: number, windowStart: number): string {
  return `${ruleId}\u0000${subject}\u0000${threshold}\u0000${windowStart}`;
}
