import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { BudgetLedger } from '../../src/limits/budget-ledger.js';
import {
  allowanceBounds,
  MIN_ANSWER_TOKENS,
  outputTokensPaidBy,
  reserveOutputAllowance,
  withOutputCap,
  type AllowanceRequest,
} from '../../src/limits/output-allowance.js';
import { worstCaseMicroUsd } from '../../src/catalogue/cost.js';
import { keySpend } from '../support/chat-kit.js';
import { storeKinds } from '../support/gateway-harness.js';
import { twoConnections } from '../support/two-connections.js';

/** A gpt-5-like price: $1.25 in, $10 out per MTok; 128k output maximum. */
const PRICING = { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 };
const MODEL_MAX = 128_000;
const silent = pino({ level: 'silent' });

describe('output allowance arithmetic', () => {
  const request: AllowanceRequest = { pricing: PRICING, promptTokens: 1_000, requestedOutputTokens: MODEL_MAX };

  it('the minimum pays for the prompt and a minimal answer, the maximum for every token asked for', () => {
    const { minimumMicroUsd, maximumMicroUsd } = allowanceBounds(request);
    assert.equal(minimumMicroUsd, worstCaseMicroUsd(PRICING, 1_000, MIN_ANSWER_TOKENS));
    assert.equal(maximumMicroUsd, worstCaseMicroUsd(PRICING, 1_000, MODEL_MAX));
    // A client asking for fewer tokens than the minimal answer needs no more than it asked for.
    const small = allowanceBounds({ ...request, requestedOutputTokens: 10 });
    assert.equal(small.minimumMicroUsd, small.maximumMicroUsd);
  });

  it('a $1 grant pays for the largest cap whose worst case fits in it, never above what was asked', () => {
    const tokens = outputTokensPaidBy(request, 1_000_000);
    assert.ok(worstCaseMicroUsd(PRICING, 1_000, tokens) <= 1_000_000);
    assert.ok(worstCaseMicroUsd(PRICING, 1_000, tokens + 1) > 1_000_000);
    assert.equal(tokens, 99_875);
    assert.equal(outputTokensPaidBy(request, 10_000_000), MODEL_MAX);
  });

  it('holds for awkward prices and grants (property over a grid)', () => {
    for (const input of [0, 0.1, 0.15, 1.25, 3, 15, 190_000])
      for (const output of [0.6, 4.4, 10, 75, 190_000])
        for (const prompt of [0, 1, 17, 999, 120_000])
          for (const granted of [0, 1, 999, 12_345, 1_000_000, 7_777_777]) {
            const pricing = { input_per_mtok: input, output_per_mtok: output };
            const req = { pricing, promptTokens: prompt, requestedOutputTokens: MODEL_MAX };
            const tokens = outputTokensPaidBy(req, granted);
            assert.ok(tokens >= 0 && tokens <= MODEL_MAX);
            if (tokens > 0)
              assert.ok(
                worstCaseMicroUsd(pricing, prompt, tokens) <= granted,
                `${input} ${output} ${prompt} ${granted}`,
              );
            if (tokens < MODEL_MAX)
              assert.ok(
                worstCaseMicroUsd(pricing, prompt, tokens + 1) > granted,
                `${input} ${output} ${prompt} ${granted}`,
              );
          }
  });

  it('withOutputCap adds max_tokens when the client set none and only ever lowers what it set', () => {
    const bare: { model: string; max_tokens?: number } = { model: 'm' };
    assert.deepEqual(withOutputCap(bare, 500), { model: 'm', max_tokens: 500 });
    assert.deepEqual(withOutputCap({ max_tokens: 900 }, 500), { max_tokens: 500 });
    const kept = { max_tokens: 100 };
    assert.equal(withOutputCap(kept, 500), kept, 'a lower cap of the client is kept as is');
    assert.deepEqual(withOutputCap({ max_completion_tokens: 900 }, 500), { max_completion_tokens: 500 });
    assert.deepEqual(withOutputCap({ max_tokens: 900, max_completion_tokens: 300 }, 500), {
      max_tokens: 500,
      max_completion_tokens: 300,
    });
  });
});

for (const kind of storeKinds()) {
  describe(`reserveWithin from two ledgers (${kind})`, () => {
    it('100 concurrent flexible reservations never hold more than the ceiling; each is at least the minimum', async () => {
      const [a, b] = await twoConnections(kind);
      const ledgers = [new BudgetLedger(a, silent), new BudgetLedger(b, silent)];
      const ceiling = 1_000_000;
      const request: AllowanceRequest = { pricing: PRICING, promptTokens: 500, requestedOutputTokens: 4_000 };
      const { minimumMicroUsd, maximumMicroUsd } = allowanceBounds(request);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => reserveOutputAllowance(ledgers[i % 2]!, 'key-1', ceiling, request)),
      );
      const granted = results.filter((r) => r !== undefined);
      const held = granted.reduce((sum, r) => sum + r.reservation.amountMicroUsd, 0);
      assert.ok(held <= ceiling, `held ${held}`);
      for (const r of granted) {
        assert.ok(r.reservation.amountMicroUsd >= minimumMicroUsd && r.reservation.amountMicroUsd <= maximumMicroUsd);
        assert.ok(worstCaseMicroUsd(PRICING, 500, r.outputTokens) <= r.reservation.amountMicroUsd);
      }
      // Full grants until the room is smaller than one; then at most one partial grant.
      const partial = granted.filter((r) => r.reservation.amountMicroUsd < maximumMicroUsd);
      assert.ok(partial.length <= 1, `${partial.length} partial grants`);
      assert.equal(
        granted.length,
        Math.floor(ceiling / maximumMicroUsd) + (ceiling % maximumMicroUsd >= minimumMicroUsd ? 1 : 0),
      );
      assert.deepEqual(await keySpend(a, 'key-1'), { spent: 0, reserved: held });
      // Everything settled at the grant: the key is exactly as spent as the ledger said.
      for (const [i, r] of granted.entries()) await ledgers[i % 2]!.settle(r.reservation, r.reservation.amountMicroUsd);
      assert.deepEqual(await keySpend(b, 'key-1'), { spent: held, reserved: 0 });
    });
  });
}
