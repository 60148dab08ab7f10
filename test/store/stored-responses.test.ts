import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/database.js';
import { StoredResponses } from '../../src/store/stored-responses.js';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';

/** The stored context of responses the gateway returned (migration 016), read by admission (docs/budgets.md). */
for (const kind of storeKinds()) {
  describe(`stored response contexts (${kind})`, () => {
    let store: Store;
    let dataDir: string;
    let schema: string | undefined;
    let clock = 1_000_000;
    const now = () => clock;
    const TTL = 60 * 60 * 1000;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'gateway-stored-'));
      schema = kind === 'postgres' ? `t_stored_${randomBytes(5).toString('hex')}` : undefined;
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

    it("a response's context is found by its organization only", async () => {
      const stored = new StoredResponses(store, now, TTL);
      await stored.record('org-a', 'key-1', 'resp_1', 12_345);
      assert.equal(await stored.contextTokens('org-a', 'resp_1'), 12_345);
      assert.equal(await stored.contextTokens('org-b', 'resp_1'), undefined);
      assert.equal(await stored.contextTokens('org-a', 'resp_2'), undefined);
    });

    it('an id recorded again holds the latest context', async () => {
      const stored = new StoredResponses(store, now, TTL);
      await stored.record('org-a', 'key-1', 'resp_again', 100);
      await stored.record('org-a', 'key-2', 'resp_again', 5_000);
      assert.equal(await stored.contextTokens('org-a', 'resp_again'), 5_000);
    });

    it('a context past its time is unknown, and expired rows are swept when another is recorded', async () => {
      const stored = new StoredResponses(store, now, TTL);
      await stored.record('org-a', 'key-1', 'resp_old', 700);
      clock += TTL;
      assert.equal(await stored.contextTokens('org-a', 'resp_old'), undefined);
      await new StoredResponses(store, now, TTL).record('org-a', 'key-1', 'resp_new', 1);
      const rows = await store.db
        .selectFrom('stored_response_contexts')
        .select('response_id')
        .where('response_id', '=', 'resp_old')
        .execute();
      assert.deepEqual(rows, []);
    });
  });
}
