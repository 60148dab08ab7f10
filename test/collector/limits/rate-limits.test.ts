import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CollectorRateLimits } from '../../../src/collector/limits/rate-limits.js';

/** Burst-only budgets over an hour: the counts are exact whatever the machine's speed. */
const limits = () =>
  new CollectorRateLimits({
    address: { rate: 0, burst: 40 },
    project: { rate: 0, burst: 100 },
    burstWindowSeconds: 3600,
  });

describe('collector rate limits: which budget a refusal spends', () => {
  it('events refused by the address budget spend nothing of the project budget', async () => {
    const budgets = limits();
    assert.equal(await budgets.consume('p1', '127.0.3.1', 40), undefined);
    // 1,000 more events from the spent address, straight to consume (the remembered-refusal
    // shortcut is bypassed): every one refused by the address budget.
    for (let i = 0; i < 100; i++)
      assert.equal((await budgets.consume('p1', '127.0.3.1', 10))?.scope, 'address', `request ${i}`);
    // The project still has the 60 events the one accepted request left.
    assert.equal(await budgets.consume('p1', '127.0.0.1', 40), undefined);
    assert.equal(await budgets.consume('p1', '127.0.0.2', 20), undefined);
    assert.equal((await budgets.consume('p1', '127.0.0.2', 1))?.scope, 'project');
  });

  it("a refused address is remembered for its own key only: another address of the project isn't blocked", async () => {
    const budgets = limits();
    await budgets.consume('p1', '127.0.3.1', 40);
    assert.equal((await budgets.consume('p1', '127.0.3.1', 1))?.scope, 'address');
    assert.equal(budgets.blocked('p1', '127.0.3.1')?.scope, 'address');
    assert.equal(budgets.blocked('p1', '127.0.0.1'), undefined);
    assert.equal(budgets.blocked('p2', '127.0.0.1'), undefined);
  });
});
