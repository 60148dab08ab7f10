import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { addMember } from '../support/window-limits-kit.js';
import { MAX_LIMITS_PER_ORGANIZATION } from '../../src/store/window-limits.js';

type Org = { id: string; token: string; slug: string };

for (const store of storeKinds()) {
  describe(`console limits API (${store})`, () => {
    let h: Harness;
    let a: Org;
    let b: Org;
    before(async () => {
      h = await startHarness({ store });
      a = await h.organization();
      b = await h.organization();
    });
    after(async () => h.stop());

    const limitsOf = (org: Org) => `/v1/organizations/${org.id}/limits`;

    it('sets, lists with the current window, replaces and removes a limit', async () => {
      const key = await h.createKey(a, { name: 'limited' });
      const body = { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 2.5 };
      const created = await h.console('POST', limitsOf(a), { token: a.token, body });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.amount, 2.5);
      assert.equal(created.json.current.spent_usd, 0);
      const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000;
      assert.equal(created.json.current.window_start, new Date(dayStart).toISOString());
      assert.equal(created.json.current.window_end, new Date(dayStart + 86_400_000).toISOString());

      const replaced = await h.console('POST', limitsOf(a), { token: a.token, body: { ...body, amount: 7 } });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.json.id, created.json.id, 'one limit per subject, metric and window');
      const rate = await h.console('POST', limitsOf(a), {
        token: a.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'requests', window: 'minute', amount: 60 },
      });
      assert.equal(rate.status, 201);
      assert.equal(rate.json.current, null);

      const list = await h.console('GET', `${limitsOf(a)}?subject_kind=key&subject_id=${key.id}`, { token: a.token });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.json.data.map((l: { metric: string; amount: number }) => [l.metric, l.amount]),
        [
          ['spend', 7],
          ['requests', 60],
        ],
      );
      const removed = await h.console('DELETE', `${limitsOf(a)}/${created.json.id}`, { token: a.token });
      assert.equal(removed.status, 200);
      assert.equal(removed.json.deleted, true);
      assert.equal((await h.console('DELETE', `${limitsOf(a)}/${created.json.id}`, { token: a.token })).status, 404);
      const after = await h.console('GET', limitsOf(a), { token: a.token });
      assert.deepEqual(
        after.json.data.map((l: { id: string }) => l.id),
        [rate.json.id],
      );
    });

    it('refuses bad bodies with 400 naming the member at fault', async () => {
      const key = await h.createKey(a, { name: 'bad bodies' });
      const { groupId } = await addMember(h, a.id, { group: true });
      const base = { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 1 };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...base, window: 'minute' }, 'window'],
        [{ ...base, metric: 'requests' }, 'window'],
        [{ ...base, metric: 'requests', window: 'minute', amount: 1.5 }, 'amount'],
        [{ ...base, metric: 'tokens', window: 'minute', amount: 0 }, 'amount'],
        [
          { ...base, subject_kind: 'group', subject_id: groupId!, metric: 'requests', window: 'minute' },
          'subject_kind',
        ],
        [{ ...base, amount: 0.0000001 }, 'amount'],
        [{ ...base, amount: -1 }, 'amount'],
        [{ ...base, subject_id: 'no-such-key' }, 'subject_id'],
        [{ ...base, subject_kind: 'member' }, 'subject_id'],
        [{ ...base, window: 'weekly' }, 'window'],
        [{ ...base, extra: true }, ''],
      ];
      for (const [body, param] of cases) {
        const result = await h.console('POST', limitsOf(a), { token: a.token, body });
        assert.equal(result.status, 400, `${JSON.stringify(body)}: ${result.text}`);
        if (param) assert.match(JSON.stringify(result.json), new RegExp(param), JSON.stringify(body));
      }
      const offset = await h.console('PUT', `/v1/organizations/${a.id}/limit_settings`, {
        token: a.token,
        body: { window_offset_minutes: 900 },
      });
      assert.equal(offset.status, 400);
    });

    it("another organization's token gets 403 on every limits route; another organization's key is not a subject", async () => {
      const key = await h.createKey(a, { name: 'a key' });
      const set = await h.console('POST', limitsOf(a), {
        token: a.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'monthly', amount: 3 },
      });
      for (const [method, path, body] of [
        ['GET', limitsOf(a), undefined],
        ['POST', limitsOf(a), { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 1 }],
        ['DELETE', `${limitsOf(a)}/${set.json.id}`, undefined],
        ['GET', `/v1/organizations/${a.id}/limit_settings`, undefined],
        ['PUT', `/v1/organizations/${a.id}/limit_settings`, { window_offset_minutes: 60 }],
      ] as const) {
        const result = await h.console(method, path, { token: b.token, ...(body ? { body } : {}) });
        assert.equal(result.status, 403, `${method} ${path}`);
        assert.ok(!result.text.includes(key.id));
      }
      // B names A's key as its own subject: refused, and B cannot remove A's limit through its own scope.
      const foreign = await h.console('POST', limitsOf(b), {
        token: b.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 1 },
      });
      assert.equal(foreign.status, 400);
      assert.equal((await h.console('DELETE', `${limitsOf(b)}/${set.json.id}`, { token: b.token })).status, 404);
      const still = await h.console('GET', limitsOf(a), { token: a.token });
      assert.ok(still.json.data.some((l: { id: string }) => l.id === set.json.id));
    });

    it('the window offset moves daily windows; an organization holds a bounded number of limits', async () => {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'offset' });
      const put = await h.console('PUT', `/v1/organizations/${org.id}/limit_settings`, {
        token: org.token,
        body: { window_offset_minutes: 120 },
      });
      assert.equal(put.status, 200);
      assert.equal(
        (await h.console('GET', `/v1/organizations/${org.id}/limit_settings`, { token: org.token })).json
          .window_offset_minutes,
        120,
      );
      const set = await h.console('POST', limitsOf(org), {
        token: org.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 1 },
      });
      const start = Date.parse(set.json.current.window_start);
      assert.equal((start + 120 * 60_000) % 86_400_000, 0, 'the window starts at midnight UTC+2');

      const now = Date.now();
      await h.running.store.db
        .insertInto('window_limits')
        .values(
          Array.from({ length: MAX_LIMITS_PER_ORGANIZATION }, (_, i) => ({
            id: `lim_fill_${org.id}_${i}`,
            organization_id: org.id,
            subject_kind: 'key' as const,
            subject_id: `filler-${i}`,
            metric: 'spend' as const,
            period: 'daily' as const,
            amount: 1,
            created_at: now,
            updated_at: now,
          })).slice(0, MAX_LIMITS_PER_ORGANIZATION - 1),
        )
        .execute();
      const full = await h.console('POST', limitsOf(org), {
        token: org.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'monthly', amount: 1 },
      });
      assert.equal(full.status, 409, full.text);
      const replaced = await h.console('POST', limitsOf(org), {
        token: org.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 2 },
      });
      assert.equal(replaced.status, 200, 'an existing limit can still be changed');
    });
  });
}
