import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';
import {
  PER_REQUEST_BOUND_MICRO_USD,
  addMember,
  billingMock,
  limitWindowSpend,
  limitedBody,
  limitsConfig,
  memberKey,
  setLimit,
} from '../support/window-limits-kit.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Two gateway instances on one PostgreSQL schema (docs/limits.md): each its own connection pool,
 * ledger, caches and limit clock, in this process so that the test can move both clocks to the
 * next day. With Redis they share the per-minute counts.
 */
async function twoInstances(mock: MockUpstream, env: Record<string, string> = {}): Promise<[Harness, Harness]> {
  const first = await startHarness({
    store: 'postgres',
    config: limitsConfig(mock),
    env: { MOCK_OPENAI_KEY: 'sk-mock', ...env },
  });
  const second = await startHarness({
    store: 'postgres',
    schema: first.schema!,
    config: limitsConfig(mock),
    env: { MOCK_OPENAI_KEY: 'sk-mock', ...env },
  });
  return [first, second];
}

describe(
  'a member limit of $5 a day across two instances on PostgreSQL',
  { skip: process.env.GATEWAY_TEST_DATABASE_URL ? false : 'GATEWAY_TEST_DATABASE_URL is not set' },
  () => {
    let mock: MockUpstream;
    let a: Harness;
    let b: Harness;
    before(async () => {
      mock = await startMockOpenAI();
      [a, b] = await twoInstances(mock);
    });
    after(async () => {
      await b?.stop();
      await a?.stop();
      await mock?.close();
    });

    it('20 concurrent requests from two keys stay within $5 plus the per-request bound; the next day the member is served again', async () => {
      const org = await a.organization();
      const { memberId } = await addMember(a, org.id);
      const [first, second] = [await memberKey(a, org, memberId), await memberKey(a, org, memberId)];
      const limitId = await setLimit(a, org, {
        subject_kind: 'member',
        subject_id: memberId,
        metric: 'spend',
        window: 'daily',
        amount: 5,
      });
      billingMock(mock);
      const results: HttpResult[] = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).gateway('POST', '/v1/chat/completions', {
            token: (i % 4 < 2 ? first : second).key,
            body: limitedBody,
          }),
        ),
      );
      const served = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status === 429);
      assert.equal(served + refused.length, 20, JSON.stringify(results.map((r) => [r.status, r.text.slice(0, 200)])));
      // Each reserves about $0.40: 12 fit under $5, the 13th does not.
      assert.equal(served, 12, 'every request that fits is served, no more');
      const endOfDay = Math.ceil((Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS - Date.now()) / 1000);
      for (const r of refused) {
        assert.equal(r.json.error.code, 'usage_limit_exceeded');
        assert.equal(r.json.error.type, 'rate_limit_error');
        assert.match(r.json.error.message, /member's daily limit of \$5/);
        const retryAfter = Number(r.headers['retry-after']);
        assert.ok(
          retryAfter > 0 && Math.abs(retryAfter - endOfDay) <= 5,
          `retry-after ${retryAfter}, ${endOfDay} to midnight UTC`,
        );
      }
      const spend = await waitFor(
        async () => {
          const s = await limitWindowSpend(a, limitId);
          return s.reserved === 0 && s.spent > 0 ? s : undefined;
        },
        { what: 'reservations settled' },
      );
      assert.ok(
        spend.spent <= 5_000_000 + served * PER_REQUEST_BOUND_MICRO_USD,
        `spent ${spend.spent} µUSD, limit $5 + ${served} × ${PER_REQUEST_BOUND_MICRO_USD}`,
      );
      assert.ok(spend.spent > 5_000_000 - 401_000 * 2, 'the day was spent, not left unused');

      // The member is spent today, on both instances.
      for (const h of [a, b])
        assert.equal(
          (await h.gateway('POST', '/v1/chat/completions', { token: first.key, body: limitedBody })).status,
          429,
        );
      // Tomorrow: a new window.
      a.running.limitClock.shiftMs = DAY_MS;
      b.running.limitClock.shiftMs = DAY_MS;
      for (const h of [a, b]) {
        const next = await h.gateway('POST', '/v1/chat/completions', { token: second.key, body: limitedBody });
        assert.equal(next.status, 200, next.text);
      }
    });
  },
);

describe(
  'a key limited to 60 requests a minute across two instances sharing Redis',
  {
    skip:
      process.env.GATEWAY_TEST_DATABASE_URL && process.env.GATEWAY_TEST_REDIS_URL
        ? false
        : 'GATEWAY_TEST_DATABASE_URL or GATEWAY_TEST_REDIS_URL is not set',
  },
  () => {
    let mock: MockUpstream;
    let a: Harness;
    let b: Harness;
    before(async () => {
      mock = await startMockOpenAI();
      [a, b] = await twoInstances(mock, {
        GATEWAY_REDIS_URL: process.env.GATEWAY_TEST_REDIS_URL!,
        GATEWAY_REDIS_KEY_PREFIX: `test-${randomBytes(4).toString('hex')}:`,
      });
    });
    after(async () => {
      await b?.stop();
      await a?.stop();
      await mock?.close();
    });

    it('the 61st request gets 429 rate_limit_exceeded with Retry-After', async () => {
      const org = await a.organization();
      const key = await a.createKey(org, { name: 'sixty a minute' });
      await setLimit(a, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'requests',
        window: 'minute',
        amount: 60,
      });
      billingMock(mock, 0);
      const results: HttpResult[] = [];
      for (let batch = 0; batch < 6; batch++)
        results.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              (i % 2 === 0 ? a : b).gateway('POST', '/v1/chat/completions', { token: key.key, body: limitedBody }),
            ),
          )),
        );
      assert.deepEqual(
        results.map((r) => r.status),
        Array.from({ length: 60 }, () => 200),
      );
      for (const h of [b, a]) {
        const refused = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body: limitedBody });
        assert.equal(refused.status, 429, refused.text);
        assert.equal(refused.json.error.code, 'rate_limit_exceeded');
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${String(refused.headers['retry-after'])}`);
      }
      assert.equal(mock.requests.length, 60, 'refused requests never reach the upstream');
    });
  },
);
