import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
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
import { WindowLimits } from '../../src/store/window-limits.js';
import { touchedLimits } from '../../src/limits/touched-limits.js';
import { BudgetLedger } from '../../src/limits/budget-ledger.js';
import { KeyLimitDirectory } from '../../src/limits/key-limits.js';
import { MinuteRates } from '../../src/limits/minute-rates.js';
import { LimitClock } from '../../src/limits/limit-clock.js';
import pino from 'pino';

const post = (h: Harness, key: { key: string }, body: unknown = limitedBody) =>
  h.gateway('POST', '/v1/chat/completions', { token: key.key, body });

for (const store of storeKinds()) {
  describe(`limits by window, one instance (${store})`, () => {
    let mock: MockUpstream;
    let h: Harness;
    before(async () => {
      mock = await startMockOpenAI();
      h = await startHarness({ store, config: limitsConfig(mock), env: { MOCK_OPENAI_KEY: 'sk-mock' } });
    });
    after(async () => {
      await h?.stop();
      await mock?.close();
    });

    it('a lifetime limit on a key is refused once spent, without Retry-After: no wait helps', async () => {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'lifetime' });
      // $1: two requests of about $0.40 fit, the third does not.
      const limitId = await setLimit(h, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'spend',
        window: 'lifetime',
        amount: 1,
      });
      billingMock(mock, 0);
      assert.equal((await post(h, key)).status, 200);
      assert.equal((await post(h, key)).status, 200);
      const refused = await post(h, key);
      assert.equal(refused.status, 429);
      assert.equal(refused.json.error.code, 'usage_limit_exceeded');
      assert.match(refused.json.error.message, /key's lifetime limit of \$1/);
      assert.equal(refused.headers['retry-after'], undefined);
      // A year later it is still spent.
      h.running.limitClock.shiftMs = 365 * 24 * 3600 * 1000;
      try {
        assert.equal((await post(h, key)).status, 429);
      } finally {
        h.running.limitClock.shiftMs = 0;
      }
      const spend = await waitFor(async () => {
        const s = await limitWindowSpend(h, limitId);
        return s.reserved === 0 ? s : undefined;
      });
      assert.ok(spend.spent <= 1_000_000 + 2 * PER_REQUEST_BOUND_MICRO_USD, `spent ${spend.spent}`);
      assert.equal(spend.spent, 2 * 401_000);
    });

    it("a group's daily limit holds every member of the group together, and no one outside it", async () => {
      const org = await h.organization();
      const one = await addMember(h, org.id, { group: true });
      const other = await h.running.store.db
        .insertInto('organization_members')
        .values({
          id: `${one.memberId}-2`,
          organization_id: org.id,
          email: `${one.memberId}-2@example.test`,
          name: null,
          role: 'member',
          group_id: one.groupId,
          status: 'active',
          invite_digest: null,
          invite_expires_at: null,
          created_at: Date.now(),
          updated_at: Date.now(),
          joined_at: Date.now(),
        })
        .execute()
        .then(() => `${one.memberId}-2`);
      const outsider = await addMember(h, org.id);
      const keyOne = await memberKey(h, org, one.memberId);
      const keyOther = await memberKey(h, org, other);
      const keyOutsider = await memberKey(h, org, outsider.memberId);
      await setLimit(h, org, {
        subject_kind: 'group',
        subject_id: one.groupId!,
        metric: 'spend',
        window: 'daily',
        amount: 1,
      });
      billingMock(mock, 0);
      assert.equal((await post(h, keyOne)).status, 200);
      assert.equal((await post(h, keyOther)).status, 200);
      const refused = await post(h, keyOne);
      assert.equal(refused.status, 429);
      assert.match(refused.json.error.message, /group's daily limit of \$1/);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.equal((await post(h, keyOther)).status, 429, 'the other member shares the group window');
      assert.equal((await post(h, keyOutsider)).status, 200, 'a member outside the group is not held');
    });

    it('a limit set or removed in the console applies within a second (the per-key cache)', async () => {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'cached' });
      billingMock(mock, 0);
      assert.equal((await post(h, key)).status, 200);
      const limitId = await setLimit(h, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'spend',
        window: 'monthly',
        amount: 0,
      });
      await waitFor(async () => (await post(h, key)).status === 429, {
        timeoutMs: 3_000,
        intervalMs: 200,
        what: 'the limit applied',
      });
      const removed = await h.console('DELETE', `/v1/organizations/${org.id}/limits/${limitId}`, { token: org.token });
      assert.equal(removed.status, 200);
      await waitFor(async () => (await post(h, key)).status === 200, {
        timeoutMs: 3_000,
        intervalMs: 200,
        what: 'the limit removed',
      });
    });

    it("a refusal on /v1/messages has Anthropic's error shape and Retry-After at the window's end", async () => {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'anthropic client' });
      await setLimit(h, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'spend',
        window: 'monthly',
        amount: 0,
      });
      const refused = await h.gateway('POST', '/v1/messages', {
        token: key.key,
        body: { model: limitedBody.model, max_tokens: 1, messages: [{ role: 'user', content: 'spend' }] },
      });
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.json.type, 'error');
      assert.equal(refused.json.error.type, 'rate_limit_error');
      assert.match(refused.json.error.message, /key's monthly limit of \$0/);
      const now = new Date();
      const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(Math.abs(retryAfter - (monthEnd - Date.now()) / 1000) <= 5, `retry-after ${retryAfter}`);
    });

    it('a request rate per key, in memory: the 4th request of a minute gets 429 and Retry-After', async () => {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'three a minute' });
      await setLimit(h, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'requests',
        window: 'minute',
        amount: 3,
      });
      billingMock(mock, 0);
      for (let i = 0; i < 3; i++) assert.equal((await post(h, key)).status, 200);
      const refused = await post(h, key);
      assert.equal(refused.status, 429);
      assert.equal(refused.json.error.code, 'rate_limit_exceeded');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60);
    });

    it("a member's token rate counts the prompt and the output cap; a refusal releases the spend reservation", async () => {
      const org = await h.organization();
      const { memberId } = await addMember(h, org.id);
      const key = await memberKey(h, org, memberId);
      const spendId = await setLimit(h, org, {
        subject_kind: 'member',
        subject_id: memberId,
        metric: 'spend',
        window: 'monthly',
        // max_tokens 1000 at $400,000/MTok: $400 a request's worst case.
        amount: 1_000,
      });
      // max_tokens 1000 + a short prompt: one request fits under 1,500 tokens a minute, two do not.
      await setLimit(h, org, {
        subject_kind: 'member',
        subject_id: memberId,
        metric: 'tokens',
        window: 'minute',
        amount: 1_500,
      });
      billingMock(mock, 0);
      const body = { ...limitedBody, max_tokens: 1_000 };
      assert.equal((await post(h, key, body)).status, 200);
      const refused = await post(h, key, body);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.json.error.code, 'rate_limit_exceeded');
      assert.match(refused.json.error.message, /member's limit of 1500 tokens per minute/);
      const spend = await waitFor(async () => {
        const s = await limitWindowSpend(h, spendId);
        return s.reserved === 0 ? s : undefined;
      });
      assert.equal(spend.spent, 1_000 * 1 + 1 * 400_000, 'only the served request is spent');
    });

    it('touchedLimits: the limits a settled request counted against, with their windows and spend', async () => {
      const org = await h.organization();
      const { memberId } = await addMember(h, org.id);
      const key = await memberKey(h, org, memberId);
      const daily = await setLimit(h, org, {
        subject_kind: 'member',
        subject_id: memberId,
        metric: 'spend',
        window: 'daily',
        amount: 50,
      });
      const lifetime = await setLimit(h, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'spend',
        window: 'lifetime',
        amount: 20,
      });
      const windows = new WindowLimits(h.running.store);
      const clock = new LimitClock();
      const directory = new KeyLimitDirectory(windows, new MinuteRates(), clock);
      const ledger = new BudgetLedger(h.running.store, pino({ level: 'silent' }), () => clock.now());
      const limits = await directory.forKey({ id: key.id, organizationId: org.id, memberId });
      const outcome = await ledger.reserveAgainst(
        key.id,
        { ceilingMicroUsd: null, windows: directory.spendWindows(limits) },
        300_000,
        300_000,
      );
      assert.ok(outcome.reservation);
      await ledger.settle(outcome.reservation, 250_000);
      const touched = await touchedLimits(windows, outcome.reservation);
      const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000;
      assert.deepEqual(
        touched.sort((x, y) => x.window.localeCompare(y.window)),
        [
          {
            limitId: daily,
            subject: { kind: 'member', id: memberId },
            window: 'daily',
            windowStart: dayStart,
            limitMicroUsd: 50_000_000,
            spentMicroUsd: 250_000,
          },
          {
            limitId: lifetime,
            subject: { kind: 'key', id: key.id },
            window: 'lifetime',
            windowStart: 0,
            limitMicroUsd: 20_000_000,
            spentMicroUsd: 250_000,
          },
        ],
      );
      assert.deepEqual(await touchedLimits(windows, undefined), []);
    });

    it('a reservation left by a dead process is released from every window it held', async () => {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'crashed' });
      const limitId = await setLimit(h, org, {
        subject_kind: 'key',
        subject_id: key.id,
        metric: 'spend',
        window: 'daily',
        amount: 1,
      });
      let now = Date.now();
      const dead = new BudgetLedger(h.running.store, pino({ level: 'silent' }), () => now);
      const directory = new KeyLimitDirectory(new WindowLimits(h.running.store), new MinuteRates(), new LimitClock());
      const windows = directory.spendWindows(
        await directory.forKey({ id: key.id, organizationId: org.id, memberId: null }),
        now,
      );
      const held = await dead.reserveAgainst(key.id, { ceilingMicroUsd: null, windows }, 900_000, 900_000);
      assert.ok(held.reservation);
      assert.deepEqual(await limitWindowSpend(h, limitId), { spent: 0, reserved: 900_000 });
      billingMock(mock, 0);
      assert.equal((await post(h, key)).status, 429, 'the held room is not given away while it lives');
      now += 16 * 60 * 1000;
      assert.equal(await dead.releaseExpired(), 1);
      assert.deepEqual(await limitWindowSpend(h, limitId), { spent: 0, reserved: 0 });
      assert.equal((await post(h, key)).status, 200);
    });
  });
}
