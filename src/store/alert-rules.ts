import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { AlertRulesTable } from './schema.js';
import type { Keyring } from '../secrets/keyring.js';
import { generateSecret } from '../secrets/secret-codec.js';

/** What a rule watches (docs/alerts.md, "Targets"). */
export type AlertTarget =
  | { kind: 'organization_spend'; amount_micro_usd: number; window: 'daily' | 'monthly' }
  | { kind: 'key_ceiling'; api_key_id: string }
  | { kind: 'limit'; limit_id: string }
  | { kind: 'limits_of_kind'; subject_kind: 'key' | 'member' | 'group' };

/** `slack`: `{"text": …}`; `signed`: the alert's JSON, signed with HMAC-SHA256 (docs/alerts.md, "Verifying"). */
export interface AlertDestination {
  kind: 'slack' | 'signed';
  url: string;
}

export interface AlertRule {
  id: string;
  organizationId: string;
  name: string;
  target: AlertTarget;
  /** Percent of the amount, ascending, distinct. */
  thresholds: number[];
  destinations: AlertDestination[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface AlertRuleInput {
  name: string;
  target: AlertTarget;
  thresholds: number[];
  destinations: AlertDestination[];
  enabled?: boolean;
}

export type AlertRulePatch = Partial<Omit<AlertRuleInput, 'target'>>;

/** Prefix of a rule's signing secret: tells a reader of a leaked string what it is. */
export const ALERT_SECRET_PREFIX = 'whsec_';

/** The AES-GCM associated data of a rule's sealed secret: binds it to its rule. */
export const alertSealContext = (ruleId: string) => `alert-rule:${ruleId}`;

function toRule(row: AlertRulesTable): AlertRule {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    target: JSON.parse(row.target) as AlertTarget,
    thresholds: JSON.parse(row.thresholds) as number[],
    destinations: JSON.parse(row.destinations) as AlertDestination[],
    enabled: Number(row.enabled) === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const sorted = (thresholds: number[]) => [...new Set(thresholds)].sort((a, b) => a - b);

/**
 * Alert rules of organizations. Every rule gets a signing secret at creation, returned once and
 * kept sealed with the master key (a signature needs the secret itself, so a digest would not do).
 */
export class AlertRuleRepository {
  constructor(
    private readonly store: Store,
    private readonly keyring: Keyring,
  ) {}

  async create(
    organizationId: string,
    input: AlertRuleInput,
    now = Date.now(),
  ): Promise<{ rule: AlertRule; secret: string }> {
    const id = `alr_${randomUUID().replaceAll('-', '')}`;
    const secret = generateSecret(ALERT_SECRET_PREFIX);
    const row: AlertRulesTable = {
      id,
      organization_id: organizationId,
      name: input.name,
      target: JSON.stringify(input.target),
      thresholds: JSON.stringify(sorted(input.thresholds)),
      destinations: JSON.stringify(input.destinations),
      secret_ciphertext: this.keyring.seal(secret, alertSealContext(id)),
      enabled: input.enabled === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    await this.store.db.insertInto('alert_rules').values(row).execute();
    return { rule: toRule(row), secret };
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.store.db
      .selectFrom('alert_rules')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Every rule of the organization, oldest first (at most the per-organization cap). */
  async list(organizationId: string): Promise<AlertRule[]> {
    const rows = await this.store.db
      .selectFrom('alert_rules')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRule);
  }

  async get(organizationId: string, id: string): Promise<AlertRule | undefined> {
    const row = await this.store.db
      .selectFrom('alert_rules')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRule(row);
  }

  /** Rules by id, whatever their organization: the delivery worker's lookup. */
  async byIds(ids: readonly string[]): Promise<AlertRule[]> {
    if (ids.length === 0) return [];
    const rows = await this.store.db.selectFrom('alert_rules').selectAll().where('id', 'in', ids).execute();
    return rows.map(toRule);
  }

  async update(
    organizationId: string,
    id: string,
    patch: AlertRulePatch,
    now = Date.now(),
  ): Promise<AlertRule | undefined> {
    const set: Partial<AlertRulesTable> = { updated_at: now };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.thresholds !== undefined) set.thresholds = JSON.stringify(sorted(patch.thresholds));
    if (patch.destinations !== undefined) set.destinations = JSON.stringify(patch.destinations);
    if (patch.enabled !== undefined) set.enabled = patch.enabled ? 1 : 0;
    await this.store.db
      .updateTable('alert_rules')
      .set(set)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
    return this.get(organizationId, id);
  }

  /** The rule and the alerts it fired; outbox rows still due are dropped by the worker (no rule, no destination). */
  async delete(organizationId: string, id: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('alert_rules')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('alert_firings').where('rule_id', '=', id).execute();
      return true;
    });
  }

  /** The rule's signing secret, opened; undefined for a rule without one. */
  async signingSecret(id: string): Promise<string | undefined> {
    const row = await this.store.db
      .selectFrom('alert_rules')
      .select('secret_ciphertext')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.secret_ciphertext ? this.keyring.open(row.secret_ciphertext, alertSealContext(id)) : undefined;
  }
}
