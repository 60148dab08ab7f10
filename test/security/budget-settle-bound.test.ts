import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { keySpend, usageRowsByKey, waitFor } from '../support/chat-kit.js';

/**
 * Issue 16, row 8 (budget): a settle could take a key past its monthly ceiling. The bound now
 * held (docs/decisions.md, "Money"): spend passes the ceiling only by what admitted requests
 * cost beyond their own reservations, and nothing is admitted once it is passed.
 *
 * 1. A request that outlived the reservation TTL lost its reservation to the sweeper; another
 *    request was admitted into that room, and both settled: the key passed its ceiling by a
 *    whole request although no request cost more than its estimate. Live reservations are now
 *    renewed on every sweep.
 * 2. Concurrent requests that each cost more than their estimate (the provider counts more
 *    prompt tokens than the gateway's estimate × 1.1): spend is recorded honestly, the overshoot
 *    is at most the sum of the admitted requests' excesses, and the key then admits nothing.
 */
const MODEL = 'test/priced';
const CEILING_USD = 1;

function config(mock: MockUpstream, pricing: { input_per_mtok: number; output_per_mtok: number }) {
  return {
    providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
    models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'priced' }], pricing }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

const body = { model: MODEL, messages: [{ role: 'user', content: 'spend' }], max_tokens: 1 };

for (const store of storeKinds()) {
  describe(`a request that outlives the reservation TTL keeps its room (${store})`, () => {
    // One output token costs $0.60: the ceiling of $1 covers exactly one request.
    const PER_REQUEST = 600_000;
    let h: Harness;
    let mock: MockUpstream;
    before(async () => {
      mock = await startMockOpenAI();
      h = await startHarness({
        store,
        config: config(mock, { input_per_mtok: 0, output_per_mtok: PER_REQUEST }),
        env: { MOCK_KEY: 'sk', GATEWAY_RESERVATION_TTL_MS: '1000', GATEWAY_SWEEP_INTERVAL_MS: '100' },
      });
    });
    after(async () => {
      await h.stop();
      await mock.close();
    });

    it('a second request is refused while the first, older than the TTL, is still running', async () => {
      const key = await h.createKey(await h.organization(), { name: 'long', max_usage: CEILING_USD });
      mock.setScenario([
        { hangBeforeHeadersMs: 4_000, usage: { inputTokens: 3, outputTokens: 1 } },
        { usage: { inputTokens: 3, outputTokens: 1 } },
      ]);
      const first = h.gateway('POST', '/v1/chat/completions', { token: key.key, body });
      // Past the TTL, with many sweeps run meanwhile.
      await delay(3_000);
      const second = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body });
      assert.equal(second.status, 429, `the first request's room was given away: ${second.text}`);
      assert.equal(second.json.error.code, 'usage_limit_exceeded');
      assert.equal((await first).status, 200);
      const spend = await waitFor(async () => {
        const s = await keySpend(h.running.store, key.id);
        return s.reserved === 0 ? s : undefined;
      });
      assert.equal(spend.spent, PER_REQUEST);
      assert.ok(spend.spent <= CEILING_USD * 1_000_000, `spent ${spend.spent} past the ceiling`);
    });
  });

  describe(`concurrent requests that cost more than their estimate (${store})`, () => {
    // Prompt tokens at $0.01 each, one output token at $0.09: the provider reports twice the
    // prompt tokens the gateway estimated, so every request costs more than its reservation.
    const PRICING = { input_per_mtok: 10_000, output_per_mtok: 90_000 };
    const CONCURRENCY = 20;
    let h: Harness;
    let mock: MockUpstream;
    before(async () => {
      mock = await startMockOpenAI();
      h = await startHarness({ store, config: config(mock, PRICING), env: { MOCK_KEY: 'sk' } });
    });
    after(async () => {
      await h.stop();
      await mock.close();
    });

    it('spend is honest, the overshoot is at most the admitted requests’ excess, and then nothing is admitted', async () => {
      const key = await h.createKey(await h.organization(), { name: 'overrun', max_usage: CEILING_USD });
      mock.setScenario((request) => ({
        hangBeforeHeadersMs: 400,
        // Twice the prompt the request carried, by any tokenizer's count (its length in characters).
        usage: { inputTokens: 2 * request.rawBody.length, outputTokens: 1 },
      }));
      const inFlight = Array.from({ length: CONCURRENCY }, () =>
        h.gateway('POST', '/v1/chat/completions', { token: key.key, body }),
      );
      // Every request is the same, so every reservation is the same: read one while it is held.
      const reservation = await waitFor(
        () =>
          h.running.store.db
            .selectFrom('budget_reservations')
            .select('amount_micro_usd')
            .where('api_key_id', '=', key.id)
            .executeTakeFirst(),
        { what: 'a reservation' },
      );
      const reserved = Number(reservation.amount_micro_usd);
      const results = await Promise.all(inFlight);
      const served = results.filter((r) => r.status === 200).length;
      assert.equal(served + results.filter((r) => r.status === 429).length, CONCURRENCY);
      assert.ok(served * reserved <= CEILING_USD * 1_000_000, 'admission never reserves past the ceiling');
      assert.ok((served + 1) * reserved > CEILING_USD * 1_000_000, 'every request that fits is served');

      const spend = await waitFor(async () => {
        const s = await keySpend(h.running.store, key.id);
        return s.reserved === 0 ? s : undefined;
      });
      const rows = (await usageRowsByKey(h.running.store, key.id)).filter((r) => r.status_code === 200);
      assert.equal(rows.length, served);
      const actual = rows.map((r) => Number(r.cost_micro_usd));
      const total = actual.reduce((a, b) => a + b, 0);
      assert.equal(spend.spent, total, 'the key’s spend is the sum of its usage rows');
      assert.ok(Math.min(...actual) > reserved, 'each request cost more than its reservation');
      assert.ok(spend.spent > CEILING_USD * 1_000_000, 'the scenario does pass the ceiling');
      const excess = total - served * reserved;
      assert.ok(
        spend.spent - CEILING_USD * 1_000_000 <= excess,
        `over the ceiling by ${spend.spent - CEILING_USD * 1_000_000}, more than the admitted requests' excess ${excess}`,
      );
      const after = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body });
      assert.equal(after.status, 429, 'a key past its ceiling admits nothing');
    });
  });
}
