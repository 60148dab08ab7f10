import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { freshStore } from '../../support/fresh-store.js';
import { storeKinds } from '../../support/gateway-harness.js';
import { usageRecord } from '../../support/usage-rows.js';
import { Keyring } from '../../../src/secrets/keyring.js';
import { AlertRuleRepository, type AlertRuleInput } from '../../../src/store/alert-rules.js';
import { AlertFiringRepository } from '../../../src/store/alert-firings.js';
import { AlertEvaluator } from '../../../src/limits/alerts/alert-evaluator.js';
import { ApiKeyRepository } from '../../../src/store/api-keys.js';
import { UsageWriter } from '../../../src/metering/usage-writer.js';
import type { WatchedLimit } from '../../../src/limits/alerts/watched-limit.js';
import type { Store } from '../../../src/store/database.js';
import { ensureOrganization } from '../../../src/store/organizations.js';

/** Alert evaluation against the store: thresholds per window, each fired once however many evaluate. */
const logger = pino({ level: 'silent' });
const keyring = new Keyring([randomBytes(32)]);
const DAY = 86_400_000;
const HOOK = { kind: 'signed' as const, url: 'https://hooks.example.com/alerts' };

function evaluatorOn(store: Store, now: () => number = Date.now) {
  const rules = new AlertRuleRepository(store, keyring);
  const firings = new AlertFiringRepository(store);
  let woken = 0;
  const evaluator = new AlertEvaluator({ rules, firings, store, logger, now, rulesTtlMs: 0, onFired: () => woken++ });
  return { rules, firings, evaluator, woken: () => woken };
}

async function spend(store: Store, orgId: string, keyId: string, costMicroUsd: number, at = Date.now()) {
  await store.db
    .insertInto('usage_records')
    .values({ ...usageRecord(keyId, costMicroUsd), organization_id: orgId, created_at: at })
    .execute();
}

async function outboxRows(store: Store, ruleId: string) {
  return store.db.selectFrom('event_deliveries').selectAll().where('project_component_id', '=', ruleId).execute();
}

const orgSpendRule = (
  amountMicroUsd: number,
  thresholds: number[],
  window: 'daily' | 'monthly' = 'monthly',
): AlertRuleInput => ({
  name: 'org budget',
  target: { kind: 'organization_spend', amount_micro_usd: amountMicroUsd, window },
  thresholds,
  destinations: [HOOK, { kind: 'slack', url: 'https://hooks.slack.example.com/x' }],
});

for (const kind of storeKinds()) {
  describe(`alert evaluation (${kind})`, () => {
    const fixture = freshStore(kind, 'alerts');

    it('fires each threshold the organization spend reached, once per window, with an outbox row per destination', async () => {
      const { store } = fixture;
      const org = `org-${randomBytes(4).toString('hex')}`;
      const { rules, evaluator, woken } = evaluatorOn(store);
      const { rule } = await rules.create(org, orgSpendRule(1_000_000, [50, 80, 100]));
      await spend(store, org, 'k1', 400_000);
      assert.deepEqual(await evaluator.checkSpend(org, ['k1']), []);
      await spend(store, org, 'k1', 450_000);
      const fired = await evaluator.checkSpend(org, ['k1']);
      assert.deepEqual(
        fired.map((f) => f.threshold),
        [50, 80],
      );
      assert.equal(fired[0]!.spentMicroUsd, 850_000);
      assert.equal(woken(), 1);
      assert.equal((await outboxRows(store, rule.id)).length, 4, 'two firings × two destinations');
      assert.deepEqual(await evaluator.checkSpend(org, ['k1']), [], 'the same window does not fire again');
      await spend(store, org, 'k1', 200_000);
      assert.deepEqual(
        (await evaluator.checkSpend(org, ['k1'])).map((f) => f.threshold),
        [100],
      );
    });

    it('a new daily window fires again; spend of the day before does not count', async () => {
      const { store } = fixture;
      const org = `org-${randomBytes(4).toString('hex')}`;
      let now = Date.UTC(2026, 5, 10, 12);
      const { rules, evaluator } = evaluatorOn(store, () => now);
      await rules.create(org, orgSpendRule(100_000, [80], 'daily'));
      await spend(store, org, 'k1', 90_000, now);
      assert.equal((await evaluator.checkSpend(org, ['k1'])).length, 1);
      now += DAY;
      assert.deepEqual(await evaluator.checkSpend(org, ['k1']), [], "yesterday's spend is not today's");
      await spend(store, org, 'k1', 85_000, now);
      const [fired] = await evaluator.checkSpend(org, ['k1']);
      assert.equal(fired?.windowStart, Date.UTC(2026, 5, 11));
      assert.equal(fired?.windowEnd, Date.UTC(2026, 5, 12));
    });

    it("watches a key's monthly ceiling from the ledger's key_spend", async () => {
      const { store } = fixture;
      const { organization } = await ensureOrganization(store, `o-${randomBytes(4).toString('hex')}`, 'alerts');
      const org = organization.id;
      const { rules, evaluator } = evaluatorOn(store);
      const keys = new ApiKeyRepository(store, keyring);
      const { apiKey } = await keys.create({
        organizationId: org,
        name: 'capped',
        type: 'api',
        codingAssistant: null,
        models: [],
        maxUsageUsd: 2,
        expiresInDays: null,
        email: null,
        debugMode: false,
        compression: false,
      });
      await rules.create(org, { ...orgSpendRule(1, [50]), target: { kind: 'key_ceiling', api_key_id: apiKey.id } });
      const writer = new UsageWriter(store, logger);
      await writer.write({ ...usageRecord(apiKey.id, 1_100_000), organization_id: org }, true);
      const [fired] = await evaluator.checkSpend(org, [apiKey.id]);
      assert.equal(fired?.subject, `key:${apiKey.id}`);
      assert.equal(fired?.limitMicroUsd, 2_000_000);
      assert.equal(fired?.spentMicroUsd, 1_100_000);
    });

    it('evaluateAlerts fires for a limit watched by id or by its kind, not for other limits', async () => {
      const { store } = fixture;
      const org = `org-${randomBytes(4).toString('hex')}`;
      const { rules, evaluator } = evaluatorOn(store);
      const byId = (await rules.create(org, { ...orgSpendRule(1, [80]), target: { kind: 'limit', limit_id: 'lim-1' } }))
        .rule;
      const byKind = (
        await rules.create(org, {
          ...orgSpendRule(1, [80]),
          target: { kind: 'limits_of_kind', subject_kind: 'member' },
        })
      ).rule;
      const watched = (limitId: string, kind: 'key' | 'member'): WatchedLimit => ({
        limitId,
        subject: { kind, id: 'm-1' },
        window: 'daily',
        windowStart: Date.UTC(2026, 0, 2),
        limitMicroUsd: 5_000_000,
        spentMicroUsd: 4_000_000,
      });
      const fired = await evaluator.evaluateAlerts(org, [watched('lim-1', 'member'), watched('lim-2', 'key')]);
      assert.deepEqual(
        fired.map((f) => [f.ruleId, f.subject]).sort(),
        [
          [byId.id, 'limit:lim-1'],
          [byKind.id, 'limit:lim-1'],
        ].sort(),
      );
      assert.equal(fired[0]!.windowEnd, Date.UTC(2026, 0, 3));
    });

    it('two instances evaluating the same crossing at once fire it once', async () => {
      const { store } = fixture;
      const org = `org-${randomBytes(4).toString('hex')}`;
      const a = evaluatorOn(store);
      const b = evaluatorOn(store);
      const { rule } = await a.rules.create(org, orgSpendRule(1_000_000, [80]));
      await spend(store, org, 'k1', 900_000);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).evaluator.checkSpend(org, ['k1'])),
      );
      assert.equal(results.flat().length, 1, 'exactly one evaluation fired');
      const firings = await store.db.selectFrom('alert_firings').selectAll().where('rule_id', '=', rule.id).execute();
      assert.equal(firings.length, 1);
      assert.equal((await outboxRows(store, rule.id)).length, 2, 'one delivery per destination, not per evaluation');
    });

    it('afterSettle evaluates in the background, and a disabled rule never fires', async () => {
      const { store } = fixture;
      const org = `org-${randomBytes(4).toString('hex')}`;
      const { rules, evaluator, firings } = evaluatorOn(store);
      const off = (await rules.create(org, { ...orgSpendRule(1_000, [50]), enabled: false })).rule;
      const on = (await rules.create(org, orgSpendRule(1_000, [50]))).rule;
      await spend(store, org, 'k1', 5_000);
      evaluator.afterSettle([{ organization_id: org, api_key_id: 'k1', cost_micro_usd: 5_000 }]);
      await evaluator.idle();
      const page = await firings.page(org, 10);
      assert.deepEqual(
        page.firings.map((f) => f.ruleId),
        [on.id],
      );
      assert.notEqual(off.id, on.id);
    });

    it('keeps fired alerts of ended windows for the retention period only; lifetime ones stay', async () => {
      const { store } = fixture;
      const org = `org-${randomBytes(4).toString('hex')}`;
      const { rules, firings } = evaluatorOn(store);
      const { rule } = await rules.create(org, orgSpendRule(1, [80]));
      const base = { organizationId: org, ruleId: rule.id, threshold: 80, limitMicroUsd: 1, spentMicroUsd: 1 };
      await firings.fireOnce(
        { ...base, subject: 'organization', window: 'daily', windowStart: 0, windowEnd: DAY },
        0,
        DAY,
      );
      await firings.fireOnce(
        { ...base, subject: 'limit:l', window: 'lifetime', windowStart: 0, windowEnd: null },
        0,
        DAY,
      );
      assert.equal(await firings.prune(DAY + 10 * DAY, 30 * DAY), 0, 'within retention');
      assert.equal(await firings.prune(DAY + 31 * DAY, 30 * DAY), 1);
      assert.deepEqual(
        (await firings.page(org, 10)).firings.map((f) => f.window),
        ['lifetime'],
      );
    });
  });
}
