import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StoredResponses } from '../../src/store/stored-responses.js';
import { storeKinds } from '../support/gateway-harness.js';
import { freshStore } from '../support/fresh-store.js';

/** The stored context of responses the gateway returned (migration 016), read by admission (docs/budgets.md). */
for (const kind of storeKinds()) {
  describe(`stored response contexts (${kind})`, () => {
    const fixture = freshStore(kind, 'stored');
    let clock = 1_000_000;
    const now = () => clock;
    const TTL = 60 * 60 * 1000;

    it("a response's context is found by its organization only", async () => {
      const stored = new StoredResponses(fixture.store, now, TTL);
      await stored.record('org-a', 'key-1', 'resp_1', 12_345);
      assert.equal(await stored.contextTokens('org-a', 'resp_1'), 12_345);
      assert.equal(await stored.contextTokens('org-b', 'resp_1'), undefined);
      assert.equal(await stored.contextTokens('org-a', 'resp_2'), undefined);
    });

    it('an id recorded again holds the latest context', async () => {
      const stored = new StoredResponses(fixture.store, now, TTL);
      await stored.record('org-a', 'key-1', 'resp_again', 100);
      await stored.record('org-a', 'key-2', 'resp_again', 5_000);
      assert.equal(await stored.contextTokens('org-a', 'resp_again'), 5_000);
    });

    it('a context past its time is unknown, and expired rows are swept when another is recorded', async () => {
      const stored = new StoredResponses(fixture.store, now, TTL);
      await stored.record('org-a', 'key-1', 'resp_old', 700);
      clock += TTL;
      assert.equal(await stored.contextTokens('org-a', 'resp_old'), undefined);
      await new StoredResponses(fixture.store, now, TTL).record('org-a', 'key-1', 'resp_new', 1);
      const rows = await fixture.store.db
        .selectFrom('stored_response_contexts')
        .select('response_id')
        .where('response_id', '=', 'resp_old')
        .execute();
      assert.deepEqual(rows, []);
    });
  });
}
