import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/database.js';
import { CompressionConversations, type StoredConversation } from '../../src/store/compression-conversations.js';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';

const state = (over: Partial<StoredConversation> = {}): StoredConversation => ({
  maskBefore: 0,
  rewriteAt: null,
  requests: 1,
  lastRequestAt: 1_000,
  lastCacheRead: null,
  lastCacheWrite: null,
  savedUnits: 12.6,
  ...over,
});

for (const kind of storeKinds()) {
  describe(`compression conversation state (${kind})`, () => {
    let store: Store;
    let dataDir: string;
    let schema: string | undefined;
    let clock = 1_000_000;
    const now = () => clock;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'gateway-conv-'));
      schema = kind === 'postgres' ? `t_conv_${randomBytes(5).toString('hex')}` : undefined;
      store = await openStore({
        dataDir,
        databaseUrl: kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined,
        schema,
      });
    });
    after(async () => {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    });

    it('saves and loads a conversation per key; another key or conversation sees nothing', async () => {
      const repo = new CompressionConversations(store, now);
      await repo.save('k1', 'c1', state({ maskBefore: 3, rewriteAt: 900, lastRequestAt: 950 }));
      assert.deepEqual(
        await repo.load('k1', 'c1'),
        state({ maskBefore: 3, rewriteAt: 900, lastRequestAt: 950, savedUnits: 13 }),
      );
      assert.equal(await repo.load('k2', 'c1'), undefined);
      assert.equal(await repo.load('k1', 'c2'), undefined);
    });

    it('a racing save with an older boundary keeps the newer one', async () => {
      const repo = new CompressionConversations(store, now);
      await repo.save('k1', 'race', state({ maskBefore: 8, requests: 9 }));
      await repo.save('k1', 'race', state({ maskBefore: 4, requests: 10 }));
      const loaded = await repo.load('k1', 'race');
      assert.equal(loaded?.maskBefore, 8);
      assert.equal(loaded?.requests, 10);
    });

    it("the upstream's cache usage lands on the request that produced it only", async () => {
      const repo = new CompressionConversations(store, now);
      await repo.save('k1', 'usage', state({ requests: 5 }));
      await repo.recordUsage('k1', 'usage', 4, { cacheRead: 1, cacheWrite: 2 });
      assert.equal((await repo.load('k1', 'usage'))?.lastCacheRead, null);
      await repo.recordUsage('k1', 'usage', 5, { cacheRead: 7000, cacheWrite: 300 });
      const loaded = await repo.load('k1', 'usage');
      assert.equal(loaded?.lastCacheRead, 7000);
      assert.equal(loaded?.lastCacheWrite, 300);
    });

    it('rows expire, and idle conversations make up the key history, newest first', async () => {
      const repo = new CompressionConversations(store, now, 10 * 60 * 60 * 1000);
      await repo.save('hist', 'a', state({ requests: 30, lastRequestAt: clock - 2 * 3600_000 }));
      await repo.save('hist', 'b', state({ requests: 12, lastRequestAt: clock - 3600_000 }));
      await repo.save('hist', 'live', state({ requests: 5, lastRequestAt: clock - 60_000 }));
      assert.deepEqual(await repo.history('hist'), [12, 30]);
      clock += 11 * 60 * 60 * 1000;
      assert.equal(await repo.load('hist', 'a'), undefined);
      assert.ok((await repo.deleteExpired()) >= 3);
      assert.deepEqual(await new CompressionConversations(store, now).history('hist'), []);
    });
  });
}
