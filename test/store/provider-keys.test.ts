import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freshStore } from '../support/fresh-store.js';
import { storeKinds } from '../support/gateway-harness.js';
import { Keyring, masterKeyId } from '../../src/secrets/keyring.js';
import {
  MAX_PROVIDER_KEYS_PER_ORGANIZATION,
  ProviderKeyRepository,
  keyHint,
  providerKeySealContext,
} from '../../src/store/provider-keys.js';
import { resealStoredSecrets } from '../../src/store/api-key-resealing.js';
import { AllowListRepository } from '../../src/store/organization-allow-lists.js';

/** Organizations' own provider keys (migration 029): sealed, one per provider, bounded, re-sealed on rotation. */
for (const kind of storeKinds()) {
  describe(`provider keys of an organization (${kind})`, () => {
    const fixture = freshStore(kind, 'byok');
    // One master key for the suite, so the re-sealing test finds every row readable but the one made unreadable.
    const masterKey = randomBytes(32);
    const secret = (tag: string) => `sk-${tag}-${randomBytes(12).toString('hex')}`;

    it('stores the key sealed to its row, one per provider, shown only by its hint', async () => {
      const keys = new ProviderKeyRepository(fixture.store, new Keyring([masterKey]));
      const first = secret('first');
      const added = await keys.add('org-seal', 'openai', first);
      assert.equal(added.outcome, 'created');
      assert.equal((await keys.add('org-seal', 'openai', secret('again'))).outcome, 'exists');
      const row = await fixture.store.db
        .selectFrom('organization_provider_keys')
        .selectAll()
        .where('organization_id', '=', 'org-seal')
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(first), 'the key is not stored in clear');
      assert.equal(row.key_hint, `…${first.slice(-4)}`);
      assert.deepEqual(Object.keys((await keys.list('org-seal'))[0]!).sort(), [
        'createdAt',
        'hint',
        'id',
        'organizationId',
        'providerId',
        'updatedAt',
      ]);
      assert.equal((await keys.secretsOf('org-seal')).get('openai'), first);
      assert.equal((await keys.secretsOf('another-org')).size, 0, 'another organization holds nothing');
      // A ciphertext copied onto another row does not open there: the seal names the row.
      await keys.add('org-seal', 'anthropic', secret('other'));
      await fixture.store.db
        .updateTable('organization_provider_keys')
        .set({ key_ciphertext: row.key_ciphertext })
        .where('organization_id', '=', 'org-seal')
        .where('provider_id', '=', 'anthropic')
        .execute();
      const unreadable: string[] = [];
      const opened = await keys.secretsOf('org-seal', (provider) => unreadable.push(provider));
      assert.deepEqual([...opened.keys()], ['openai']);
      assert.deepEqual(unreadable, ['anthropic']);
    });

    it('rotates in place and removes; a missing key is reported, not created', async () => {
      const keys = new ProviderKeyRepository(fixture.store, new Keyring([masterKey]));
      assert.equal((await keys.rotate('org-rotate', 'openai', secret('x'))).outcome, 'missing');
      const added = await keys.add('org-rotate', 'openai', secret('old'));
      const next = secret('new');
      const rotated = await keys.rotate('org-rotate', 'openai', next);
      assert.equal(rotated.outcome, 'rotated');
      if (added.outcome === 'created' && rotated.outcome === 'rotated') assert.equal(rotated.key.id, added.key.id);
      assert.equal((await keys.secretsOf('org-rotate')).get('openai'), next);
      assert.equal(await keys.remove('org-rotate', 'openai'), true);
      assert.equal(await keys.remove('org-rotate', 'openai'), false);
      assert.equal((await keys.secretsOf('org-rotate')).size, 0);
    });

    it(`holds at most ${MAX_PROVIDER_KEYS_PER_ORGANIZATION} keys per organization`, async () => {
      const keys = new ProviderKeyRepository(fixture.store, new Keyring([masterKey]));
      for (let i = 0; i < MAX_PROVIDER_KEYS_PER_ORGANIZATION; i++)
        assert.equal((await keys.add('org-full', `p${i}`, secret('k'))).outcome, 'created');
      assert.equal((await keys.add('org-full', 'one-more', secret('k'))).outcome, 'too_many');
      assert.equal((await keys.add('org-other', 'one-more', secret('k'))).outcome, 'created');
    });

    it('gateway admin rotate-master-key re-seals provider keys with gateway keys', async () => {
      const oldKey = masterKey;
      const newKey = randomBytes(32);
      const before = new ProviderKeyRepository(fixture.store, new Keyring([oldKey]));
      const kept = secret('kept');
      await before.add('org-reseal', 'openai', kept);
      const ring = new Keyring([newKey, oldKey]);
      const progress = await resealStoredSecrets(fixture.store, ring, { batchSize: 50 });
      assert.ok(progress.resealed >= 1);
      assert.deepEqual(
        progress.unreadable.filter((entry) => entry.table === 'organization_provider_keys').map((entry) => entry.id),
        // The row made unreadable on purpose by the first test.
        (
          await fixture.store.db
            .selectFrom('organization_provider_keys')
            .select('id')
            .where('organization_id', '=', 'org-seal')
            .where('provider_id', '=', 'anthropic')
            .execute()
        ).map((row) => row.id),
      );
      const row = await fixture.store.db
        .selectFrom('organization_provider_keys')
        .select(['id', 'key_ciphertext'])
        .where('organization_id', '=', 'org-reseal')
        .executeTakeFirstOrThrow();
      assert.equal(ring.sealerOf(row.key_ciphertext, providerKeySealContext(row.id)), masterKeyId(newKey));
      // The old key can go.
      const newOnly = new ProviderKeyRepository(fixture.store, new Keyring([newKey]));
      assert.equal((await newOnly.secretsOf('org-reseal')).get('openai'), kept);
    });

    it('keeps allow-lists per organization; null lifts one, the other is kept', async () => {
      const lists = new AllowListRepository(fixture.store);
      assert.deepEqual(await lists.read('org-lists'), { models: null, providers: null, updatedAt: null });
      await lists.update('org-lists', { models: ['a/b'], providers: ['openai'] });
      await lists.update('org-lists', { models: null });
      const read = await lists.read('org-lists');
      assert.equal(read.models, null);
      assert.deepEqual(read.providers, ['openai']);
      assert.equal((await lists.read('org-other')).providers, null);
    });
  });
}

describe('provider key hints', () => {
  it('show the last 4 characters of a long key and nothing of a short one', () => {
    assert.equal(keyHint('sk-abcdefghijkl1234'), '…1234');
    assert.equal(keyHint('short-key'), '…');
  });
});
