import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';

/**
 * Alerts end to end (docs/alerts.md): rules through the console API, a request settled by the
 * gateway crossing 80 % of the organization budget, the alert delivered through the outbox to a
 * local receiver (after a 500, retried), its HMAC signature verified as a receiver would.
 */
const MODEL = 'test/priced';
const PRICING = { input_per_mtok: 1.25, output_per_mtok: 10 };
type Org = { id: string; token: string };

/** What docs/alerts.md tells a receiver to do: HMAC-SHA256 of `<timestamp>.<raw body>`, compared in constant time. */
function verifySignature(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const timestamp = String(headers['x-gateway-alert-timestamp']);
  const given = Buffer.from(String(headers['x-gateway-alert-signature']));
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

for (const store of storeKinds()) {
  describe(`alerts (${store})`, () => {
    let h: Harness;
    let hook: WebhookReceiver;
    let upstream: MockUpstream;
    let org: Org;

    before(async () => {
      hook = await startWebhookReceiver();
      upstream = await startMockOpenAI();
      h = await startHarness({
        store,
        config: {
          providers: [{ id: 'mock', kind: 'openai', base_url: upstream.baseUrl, api_key_env: 'MOCK_KEY' }],
          models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'priced' }], pricing: PRICING }],
          retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
        },
        env: {
          MOCK_KEY: 'sk-mock',
          GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1',
          GATEWAY_OUTBOX_POLL_MS: '50',
          GATEWAY_OUTBOX_RETRY_BASE_MS: '50',
          GATEWAY_OUTBOX_RETRY_MAX_MS: '200',
          GATEWAY_OUTBOX_MAX_ATTEMPTS: '3',
        },
      });
      org = await h.organization();
    });
    after(async () => {
      await h.stop();
      await hook.close();
      await upstream.close();
    });

    const rule = (o: Org, body: Record<string, unknown>) =>
      h.console('POST', `/v1/organizations/${o.id}/alert_rules`, { token: o.token, body });
    const orgBudget = (url: string, kind = 'signed', amount = 1_000_000) => ({
      name: 'monthly budget',
      target: { kind: 'organization_spend', amount_micro_usd: amount, window: 'monthly' },
      thresholds: [80, 100],
      destinations: [{ kind, url }],
    });

    it('an 80 % alert is delivered exactly once, retried after a 500, its HMAC verified by the receiver', async () => {
      const own = await h.organization();
      const created = await rule(own, orgBudget(hook.url));
      assert.equal(created.status, 201, created.text);
      const secret = created.json.signing_secret as string;
      assert.match(secret, /^whsec_/);
      const key = await h.createKey(own);
      hook.failNext(1, 500);
      // 700k billed prompt tokens at $1.25/MTok: $0.875 of a $1 budget, past 80 %, short of 100 %.
      upstream.setScenario(() => ({ text: 'ok', usage: { inputTokens: 700_000, outputTokens: 10 } }));
      const chat = () =>
        h.gateway('POST', '/v1/chat/completions', {
          token: key.key,
          body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
        });
      assert.equal((await chat()).status, 200);
      const mine = () => hook.requests.filter((r) => r.headers['x-gateway-alert-id'] !== undefined);
      await waitFor(() => mine().some((r) => r.status === 200), { timeoutMs: 10_000, what: 'the alert delivered' });
      // More spend in the same window, still under 100 %: no second 80 % alert.
      upstream.setScenario(() => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 10 } }));
      assert.equal((await chat()).status, 200);
      await h.running.alerts.idle();
      await new Promise((resolve) => setTimeout(resolve, 400));
      const requests = mine();
      assert.deepEqual(
        requests.map((r) => r.status),
        [500, 200],
        'the first attempt failed, the retry was delivered, nothing more',
      );
      for (const r of requests) assert.ok(verifySignature(secret, r.headers, r.body), 'signature verifies');
      assert.ok(!verifySignature('whsec_wrong', requests[1]!.headers, requests[1]!.body));
      const alert = JSON.parse(requests[1]!.body);
      assert.equal(alert.object, 'alert');
      assert.equal(alert.threshold_percent, 80);
      assert.equal(alert.organization_id, own.id);
      assert.deepEqual(alert.subject, { kind: 'organization', id: null });
      assert.equal(alert.limit_micro_usd, 1_000_000);
      assert.ok(alert.spent_micro_usd >= 800_000 && alert.spent_micro_usd < 1_000_000);
      assert.equal(alert.attempt, 2);
      const listed = await h.console('GET', `/v1/organizations/${own.id}/alerts`, { token: own.token });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.json.data.length, 1);
      assert.equal(listed.json.data[0].id, alert.id);
      assert.equal(listed.json.data[0].delivery, 'done');
      assert.equal(listed.json.data[0].rule_name, 'monthly budget');
    });

    it("a key's daily spend limit crossing 80 % through the gateway alerts once, naming the limit", async () => {
      const own = await h.organization();
      const key = await h.createKey(own);
      const limit = await h.console('POST', `/v1/organizations/${own.id}/limits`, {
        token: own.token,
        body: { subject_kind: 'key', subject_id: key.id, metric: 'spend', window: 'daily', amount: 1 },
      });
      assert.equal(limit.status < 300, true, limit.text);
      const created = await rule(own, {
        name: 'key daily',
        target: { kind: 'limits_of_kind', subject_kind: 'key' },
        thresholds: [80],
        destinations: [{ kind: 'signed', url: `${hook.url}?key-daily` }],
      });
      assert.equal(created.status, 201, created.text);
      const mine = () => hook.requests.filter((r) => r.status === 200 && r.body.includes('"key daily"'));
      // 700k prompt tokens at $1.25/MTok: $0.875 of the key's $1 a day.
      upstream.setScenario(() => ({ text: 'ok', usage: { inputTokens: 700_000, outputTokens: 10 } }));
      const chat = () =>
        h.gateway('POST', '/v1/chat/completions', {
          token: key.key,
          body: { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
        });
      assert.equal((await chat()).status, 200);
      await waitFor(() => mine().length > 0, { timeoutMs: 10_000, what: "the key limit's alert" });
      upstream.setScenario(() => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 10 } }));
      assert.equal((await chat()).status, 200);
      await h.running.alerts.idle();
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(mine().length, 1, 'one alert for the threshold and window');
      const alert = JSON.parse(mine()[0]!.body);
      assert.equal(alert.threshold_percent, 80);
      assert.equal(alert.limit_micro_usd, 1_000_000);
      assert.deepEqual(alert.subject, { kind: 'limit', id: limit.json.id });
    });

    it('a Slack destination gets {"text": …} naming the limit and the threshold', async () => {
      const own = await h.organization();
      const created = await rule(own, {
        name: 'member daily',
        target: { kind: 'limits_of_kind', subject_kind: 'member' },
        thresholds: [80],
        destinations: [{ kind: 'slack', url: hook.url }],
      });
      assert.equal(created.status, 201, created.text);
      const fired = await h.running.alerts.evaluateAlerts(own.id, [
        {
          limitId: 'lim-member-1',
          subject: { kind: 'member', id: 'mem-1' },
          window: 'daily',
          windowStart: Date.UTC(2026, 2, 3),
          limitMicroUsd: 5_000_000,
          spentMicroUsd: 4_100_000,
        },
      ]);
      assert.equal(fired.length, 1);
      const slack = await waitFor(
        () => hook.requests.find((r) => r.status === 200 && r.body.includes('member daily')),
        { timeoutMs: 10_000, what: 'the Slack message' },
      );
      const body = JSON.parse(slack.body);
      assert.deepEqual(Object.keys(body), ['text']);
      assert.equal(
        body.text,
        'Alert "member daily": Limit lim-member-1 reached 80% of $5.00 (daily window from 2026-03-03): $4.10 spent.',
      );
      assert.equal(slack.headers['x-gateway-alert-signature'], undefined, 'Slack bodies are not signed');
    });

    it('a destination that keeps failing is parked as failed; a deleted rule takes its alerts out of the list and the outbox', async () => {
      const own = await h.organization();
      const watched = (limitId: string) => ({
        limitId,
        subject: { kind: 'group' as const, id: 'g-1' },
        window: 'monthly' as const,
        windowStart: Date.UTC(2026, 11, 1),
        limitMicroUsd: 100,
        spentMicroUsd: 100,
      });
      const failing = await rule(own, {
        name: 'parks',
        target: { kind: 'limit', limit_id: 'lim-parks' },
        thresholds: [100],
        destinations: [{ kind: 'signed', url: `${hook.url}?parks` }],
      });
      assert.equal(failing.status, 201, failing.text);
      const before = hook.requests.length;
      hook.failNext(3, 500);
      await h.running.alerts.evaluateAlerts(own.id, [watched('lim-parks')]);
      const listed = await waitFor(
        async () => {
          const page = await h.console('GET', `/v1/organizations/${own.id}/alerts`, { token: own.token });
          return page.json.data[0]?.delivery === 'failed' ? page.json : undefined;
        },
        { timeoutMs: 10_000, what: 'the delivery parked' },
      );
      assert.equal(listed.data.length, 1);
      assert.equal(hook.requests.length - before, 3, 'GATEWAY_OUTBOX_MAX_ATTEMPTS attempts, then parked');

      const doomed = await rule(own, {
        name: 'deleted',
        target: { kind: 'limit', limit_id: 'lim-deleted' },
        thresholds: [100],
        destinations: [{ kind: 'signed', url: `${hook.url}?deleted` }],
      });
      hook.failNext(1, 500);
      await h.running.alerts.evaluateAlerts(own.id, [watched('lim-deleted')]);
      // Deleted while its delivery is between attempts (or just after the retry: the backoff is short here).
      await waitFor(() => hook.requests.some((r) => r.status === 500 && r.body.includes('lim-deleted')), {
        what: 'the first attempt',
      });
      const path = `/v1/organizations/${own.id}/alert_rules/${doomed.json.id}`;
      assert.equal((await h.console('DELETE', path, { token: own.token })).status, 200);
      await waitFor(
        async () => {
          const rows = await h.running.store.db
            .selectFrom('event_deliveries')
            .select('id')
            .where('project_component_id', '=', doomed.json.id)
            .execute();
          return rows.length === 0;
        },
        { timeoutMs: 10_000, what: 'the outbox row discarded' },
      );
      const left = await h.console('GET', `/v1/organizations/${own.id}/alerts`, { token: own.token });
      assert.deepEqual(
        left.json.data.map((a: { rule_id: string }) => a.rule_id),
        [failing.json.id],
      );
    });

    it('shows the signing secret once, validates rules, and keeps them to their organization', async () => {
      const created = await rule(org, orgBudget('https://hooks.example.com/a'));
      assert.equal(created.status, 201, created.text);
      const path = `/v1/organizations/${org.id}/alert_rules/${created.json.id}`;
      const read = await h.console('GET', path, { token: org.token });
      assert.equal(read.status, 200);
      assert.equal(read.json.signing_secret, undefined);
      assert.doesNotMatch(read.text, /whsec_/);

      const bad = async (body: Record<string, unknown>, param?: string) => {
        const result = await rule(org, body);
        assert.equal(result.status, 400, result.text);
        if (param) assert.equal(result.json.param, param);
      };
      await bad({ ...orgBudget('ftp://hooks.example.com/a') }, 'destinations.0.url');
      await bad({ ...orgBudget('not a url') }, 'destinations.0.url');
      await bad({ ...orgBudget('https://user:pw@hooks.example.com/a') }, 'destinations.0.url');
      await bad({ ...orgBudget('https://hooks.example.com/a'), thresholds: [] });
      await bad({ ...orgBudget('https://hooks.example.com/a'), thresholds: [0] });
      await bad({ ...orgBudget('https://hooks.example.com/a'), organization_id: 'other' });
      await bad(
        { ...orgBudget('https://hooks.example.com/a'), target: { kind: 'key_ceiling', api_key_id: 'nope' } },
        'target.api_key_id',
      );
      const tooMany = Array.from({ length: 6 }, () => ({ kind: 'slack', url: 'https://hooks.example.com/a' }));
      await bad({ ...orgBudget('https://hooks.example.com/a'), destinations: tooMany });

      const other = await h.organization();
      const theirs = await rule(other, orgBudget('https://hooks.example.com/b'));
      for (const [method, p] of [
        ['GET', path],
        ['DELETE', path],
        ['GET', `/v1/organizations/${org.id}/alerts`],
        ['GET', `/v1/organizations/${org.id}/alert_rules`],
      ] as const) {
        const refused = await h.console(method, p, { token: other.token });
        assert.equal(refused.status, 403, `${method} ${p}: ${refused.text}`);
      }
      const elsewhere = await h.console('GET', `/v1/organizations/${other.id}/alert_rules/${created.json.id}`, {
        token: other.token,
      });
      assert.equal(elsewhere.status, 404, "another organization's rule id is unknown here");
      const listed = await h.console('GET', `/v1/organizations/${org.id}/alert_rules`, { token: org.token });
      assert.ok(!listed.json.data.some((r: { id: string }) => r.id === theirs.json.id));

      const updated = await h.console('POST', path, {
        token: org.token,
        body: { thresholds: [100, 50], enabled: false },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.json.thresholds, [50, 100]);
      assert.equal(updated.json.enabled, false);
      const noTarget = await h.console('POST', path, {
        token: org.token,
        body: { target: { kind: 'limit', limit_id: 'x' } },
      });
      assert.equal(noTarget.status, 400, 'the target is fixed at creation');
      assert.equal((await h.console('DELETE', path, { token: org.token })).status, 200);
      assert.equal((await h.console('GET', path, { token: org.token })).status, 404);
    });

    it('holds at most 50 rules per organization', async () => {
      const own = await h.organization();
      for (let i = 0; i < 50; i++)
        assert.equal((await rule(own, orgBudget('https://hooks.example.com/a'))).status, 201);
      const refused = await rule(own, orgBudget('https://hooks.example.com/a'));
      assert.equal(refused.status, 409, refused.text);
    });
  });
}
