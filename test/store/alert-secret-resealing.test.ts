import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freshStore } from '../support/fresh-store.js';
import { storeKinds } from '../support/gateway-harness.js';
import { Keyring, masterKeyId } from '../../src/secrets/keyring.js';
import { AlertRuleRepository, type AlertRuleInput } from '../../src/store/alert-rules.js';
import { ALERT_RULE_SECRETS, resealColumn } from '../../src/store/api-key-resealing.js';

/** Alert rules' signing secrets follow a master-key rotation like gateway keys (docs/alerts.md). */
const RULE: AlertRuleInput = {
  name: 'budget',
  target: { kind: 'organization_spend', amount_micro_usd: 1_000_000, window: 'monthly' },
  thresholds: [80],
  destinations: [{ kind: 'signed', url: 'https://hooks.example.com/a' }],
};

for (const kind of storeKinds()) {
  describe(`re-sealing alert rule secrets (${kind})`, () => {
    const fixture = freshStore(kind, 'alertreseal');

    it('re-seals every secret with the current key; after the old key leaves the ring the secrets still open', async () => {
      const store = fixture.store;
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const before = new AlertRuleRepository(store, new Keyring([oldKey]));
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await before.create(`org-${i % 2}`, RULE));

      const rotating = new Keyring([newKey, oldKey]);
      const first = await resealColumn(store, rotating, ALERT_RULE_SECRETS, { batchSize: 2 });
      assert.equal(first.resealed, 5);
      assert.deepEqual(first.byKeyId, { [masterKeyId(oldKey)]: 5 });
      const second = await resealColumn(store, rotating, ALERT_RULE_SECRETS, { batchSize: 2, dryRun: true });
      assert.deepEqual(second.byKeyId, { [masterKeyId(newKey)]: 5 }, 'idempotent: nothing left to re-seal');

      const after = new AlertRuleRepository(store, new Keyring([newKey]));
      for (const { rule, secret } of made) assert.equal(await after.signingSecret(rule.id), secret);
    });
  });
}
