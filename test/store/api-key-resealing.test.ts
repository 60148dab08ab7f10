import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freshStore } from '../support/fresh-store.js';
import { storeKinds } from '../support/gateway-harness.js';
import { Keyring, masterKeyId } from '../../src/secrets/keyring.js';
import { encryptSecret } from '../../src/secrets/secret-codec.js';
import { ApiKeyRepository, sealContext } from '../../src/store/api-keys.js';
import { resealApiKeys } from '../../src/store/api-key-resealing.js';
import { ensureOrganization } from '../../src/store/organizations.js';

for (const kind of storeKinds()) {
  describe(`re-sealing gateway keys with the current master key (${kind})`, () => {
    const fixture = freshStore(kind, 'reseal');

    it('re-seals old-key and pre-key-id values in batches, skips current ones, and is idempotent', async () => {
      const store = fixture.store;
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const { organization } = await ensureOrganization(store, 'reseal', 'reseal');
      const before = new ApiKeyRepository(store, new Keyring([oldKey]));
      const made = [];
      for (let i = 0; i < 7; i++)
        made.push(
          await before.create({
            organizationId: organization.id,
            name: `k${i}`,
            type: 'api',
            codingAssistant: null,
            models: [],
            maxUsageUsd: null,
            expiresInDays: null,
            email: null,
            debugMode: false,
            compression: false,
          }),
        );
      // One value in the format before key ids, as a store from an older version holds.
      const legacy = made[0]!;
      await store.db
        .updateTable('api_keys')
        .set({ key_ciphertext: encryptSecret(oldKey, legacy.secret, sealContext(legacy.apiKey.id)) })
        .where('id', '=', legacy.apiKey.id)
        .execute();
      // One deleted key: nothing sealed left, nothing to do.
      await before.delete(organization.id, made[1]!.apiKey.id);

      const ring = new Keyring([newKey, oldKey]);
      const after = new ApiKeyRepository(store, ring);
      const fresh = await after.create({
        organizationId: organization.id,
        name: 'new',
        type: 'api',
        codingAssistant: null,
        models: [],
        maxUsageUsd: null,
        expiresInDays: null,
        email: null,
        debugMode: false,
        compression: false,
      });

      const batches: number[] = [];
      const first = await resealApiKeys(store, ring, {
        batchSize: 2,
        afterBatch: (p) => void batches.push(p.resealed),
      });
      assert.equal(first.resealed, 6);
      assert.equal(first.alreadyCurrent, 1);
      assert.deepEqual(first.unreadable, []);
      // Sealed with one key: the format before key ids, found to be the old key's by opening them.
      assert.equal(first.byKeyId[masterKeyId(oldKey)], 6);
      assert.equal(first.byKeyId[masterKeyId(newKey)], 1);
      assert.equal(batches.length, 4, 'seven sealed rows in batches of two');

      const second = await resealApiKeys(store, ring, { batchSize: 100 });
      assert.equal(second.resealed, 0);
      assert.equal(second.alreadyCurrent, 7);

      // The old key can go: every live key still reveals under the new key alone.
      const newOnly = new ApiKeyRepository(store, new Keyring([newKey]));
      for (const { apiKey, secret } of [...made.filter((_, i) => i !== 1), fresh])
        assert.equal((await newOnly.reveal(organization.id, apiKey.id))?.secret, secret);
    });

    it('reports values no key of the ring opens, and writes nothing in a dry run', async () => {
      const store = fixture.store;
      const lost = randomBytes(32);
      // Two keys, so the value names its key and the report can name the missing one.
      const { organization } = await ensureOrganization(store, 'reseal-lost', 'reseal-lost');
      const made = await new ApiKeyRepository(store, new Keyring([lost, randomBytes(32)])).create({
        organizationId: organization.id,
        name: 'lost',
        type: 'api',
        codingAssistant: null,
        models: [],
        maxUsageUsd: null,
        expiresInDays: null,
        email: null,
        debugMode: false,
        compression: false,
      });
      const ring = new Keyring([randomBytes(32)]);
      const dry = await resealApiKeys(store, ring, { batchSize: 50, dryRun: true });
      assert.equal(dry.resealed, 0);
      assert.ok(dry.unreadable.some((entry) => entry.id === made.apiKey.id && entry.error.includes(masterKeyId(lost))));
      const row = await store.db
        .selectFrom('api_keys')
        .select('key_ciphertext')
        .where('id', '=', made.apiKey.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.key_ciphertext!.split('.')[1], masterKeyId(lost));
    });
  });
}
