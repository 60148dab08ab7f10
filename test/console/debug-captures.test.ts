import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { trajectoryMessages } from '../support/trajectory-messages.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';
import { setDebugCaptureUntil } from '../../src/store/debug-captures.js';

const MODEL = 'openai/gpt-4o-mini';
const PROVIDER_KEY = 'sk-mock-provider-secret-0123456789';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const store of storeKinds()) {
  describe(`debug capture through the gateway (${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    let org: { id: string; token: string };
    let other: { id: string; token: string };
    let key: { id: string; key: string };
    const messages = trajectoryMessages();

    before(async () => {
      mock = await startMockOpenAI();
      h = await startHarness({
        store,
        config: {
          providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
          models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }], pricing: PRICING }],
        },
        // Key changes made straight in the store are seen at once.
        env: { MOCK_KEY: PROVIDER_KEY, GATEWAY_KEY_CACHE_TTL_MS: '1' },
      });
      org = await h.organization();
      other = await h.organization();
      key = await h.createKey(org, { name: 'captured', compression: true });
    });
    after(async () => {
      await h.stop();
      await mock.close();
    });
    beforeEach(() => {
      mock.reset();
      mock.setScenario({ text: 'Next step.', usage: { inputTokens: 5_000, outputTokens: 3 } });
    });

    const captureSetting = (method: string, body?: unknown, token = org.token, orgId = org.id, keyId = key.id) =>
      h.console(method, `/v1/organizations/${orgId}/api_keys/${keyId}/debug_capture`, { token, body });
    const list = (query = '', token = org.token, orgId = org.id) =>
      h.console('GET', `/v1/organizations/${orgId}/debug_captures${query}`, { token });
    const chat = (body: Record<string, unknown> = {}) =>
      h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        headers: { cookie: 'sid=secret-cookie', 'x-gateway-session-id': 'debug-session' },
        body: { model: MODEL, messages, ...body },
      });
    /** Waits for the key's captures to reach `count` (they are written after the answer). */
    async function capturesOf(count: number): Promise<any[]> {
      for (let i = 0; i < 100; i++) {
        const page = await list(`?api_key_id=${key.id}&limit=100`);
        assert.equal(page.status, 200, page.text);
        if (page.json.data.length >= count) return page.json.data;
        await sleep(50);
      }
      throw new Error(`fewer than ${count} captures`);
    }

    it('is refused outside its bounds: no duration, more than a day, another key', async () => {
      assert.equal((await captureSetting('PUT', {})).status, 400);
      assert.equal((await captureSetting('PUT', { duration_minutes: 0 })).status, 400);
      assert.equal((await captureSetting('PUT', { duration_minutes: 1441 })).status, 400);
      const unknown = await captureSetting('PUT', { duration_minutes: 5 }, org.token, org.id, 'no-such-key');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.error, 'Not Found');
    });

    it('captures nothing while off', async () => {
      const state = await captureSetting('GET');
      assert.deepEqual([state.json.capturing, state.json.until], [false, null]);
      assert.equal((await chat()).status, 200);
      await sleep(300);
      assert.equal((await list()).json.data.length, 0);
    });

    it('on: the capture holds the body received, the compressed body sent, and the answer, with no secret', async () => {
      const on = await captureSetting('PUT', { duration_minutes: 30 });
      assert.equal(on.status, 200, on.text);
      assert.equal(on.json.capturing, true);
      const until = Date.parse(on.json.until);
      assert.ok(until > Date.now() + 29 * 60_000 && until <= Date.now() + 30 * 60_000);

      const answer = await chat();
      assert.equal(answer.status, 200, answer.text);
      assert.ok(answer.json.compression?.saved_tokens > 0, 'compression acted');
      const [summary] = await capturesOf(1);
      assert.equal(summary.request_id, answer.headers['x-request-id']);
      assert.equal(summary.status_code, 200);
      assert.equal(summary.model, MODEL);

      const detail = await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${summary.id}`, {
        token: org.token,
      });
      assert.equal(detail.status, 200, detail.text);
      const received = JSON.parse(detail.json.received.body.text);
      assert.deepEqual(received.messages, messages, 'the body as received, before compression');
      assert.equal(detail.json.received.headers['x-gateway-session-id'], 'debug-session');
      const [attempt] = detail.json.upstream.attempts;
      assert.equal(attempt.provider, 'mock-openai');
      const sent = JSON.parse(attempt.body.text);
      assert.deepEqual(sent.messages, mock.lastRequest()!.body.messages, 'the body as the upstream got it');
      assert.ok(attempt.body.text.length < detail.json.received.body.text.length, 'compression shrank it');
      assert.equal(detail.json.answer.kind, 'json');
      assert.equal(JSON.parse(detail.json.answer.body.text).choices[0].message.content, 'Next step.');

      const everything = detail.text;
      assert.ok(!everything.includes(key.key), 'the gateway key');
      assert.ok(!everything.includes(PROVIDER_KEY), 'the provider key');
      assert.ok(!everything.includes('secret-cookie'), 'the cookie');
      assert.equal(detail.json.received.headers.authorization, '[redacted]');
      assert.equal(attempt.headers.authorization, '[redacted]');

      const diff = await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${summary.id}/diff`, {
        token: org.token,
      });
      assert.equal(diff.status, 200, diff.text);
      assert.equal(diff.json.comparable, true);
      assert.equal(diff.json.item_list, 'messages');
      assert.equal(diff.json.items.length, messages.length);
      assert.ok(diff.json.summary.changed > 0 && diff.json.summary.unchanged > 0, JSON.stringify(diff.json.summary));
      assert.ok(diff.json.summary.sent_chars < diff.json.summary.received_chars);
      const changedItem = diff.json.items.find((item: any) => item.status === 'changed');
      assert.ok(changedItem.lines.some((line: any) => line.op === 'removed'));
      assert.equal(
        (
          await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${summary.id}/diff?attempt=5`, {
            token: org.token,
          })
        ).status,
        400,
      );
    });

    it('a streamed answer is captured as the events the client got', async () => {
      const before = (await capturesOf(1)).length;
      const answer = await chat({ stream: true });
      assert.equal(answer.status, 200);
      const captures = await capturesOf(before + 1);
      const detail = await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${captures[0].id}`, {
        token: org.token,
      });
      assert.equal(detail.json.answer.kind, 'stream');
      assert.equal(detail.json.answer.body.text, answer.text);
    });

    it('a request refused before any upstream call is captured with its status and nothing sent', async () => {
      const before = (await capturesOf(1)).length;
      const refused = await chat({ model: 'openai/no-such-model' });
      assert.ok(refused.status >= 400 && refused.status < 500, refused.text);
      const [latest] = await capturesOf(before + 1);
      assert.equal(latest.status_code, refused.status);
      const detail = await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${latest.id}`, {
        token: org.token,
      });
      assert.equal(detail.json.upstream.attempts.length, 0);
      assert.equal(detail.json.answer.kind, 'none');
      const diff = await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${latest.id}/diff`, {
        token: org.token,
      });
      assert.deepEqual([diff.status, diff.json.comparable, diff.json.attempt], [200, false, null]);
    });

    it('another organization, and a read-only token, see none of it', async () => {
      const [summary] = await capturesOf(1);
      assert.equal((await list('', other.token)).status, 403);
      assert.equal((await list('', other.token, other.id)).json.data.length, 0);
      const foreign = await h.console('GET', `/v1/organizations/${other.id}/debug_captures/${summary.id}`, {
        token: other.token,
      });
      assert.equal(foreign.status, 404);
      assert.equal((await captureSetting('PUT', { duration_minutes: 5 }, other.token)).status, 403);
      assert.equal((await captureSetting('PUT', { duration_minutes: 5 }, other.token, other.id)).status, 404);
      // A read-only token of the organization lists captures but does not open them.
      const { secret } = await createConsoleToken(h.running.store, {
        organizationId: org.id,
        name: 'reader',
        permission: 'read',
      });
      assert.equal((await list('', secret)).status, 200);
      const opened = await h.console('GET', `/v1/organizations/${org.id}/debug_captures/${summary.id}`, {
        token: secret,
      });
      assert.equal(opened.status, 403);
      assert.equal(opened.json.error, 'Forbidden');
    });

    it('off or expired: nothing more is captured', async () => {
      const before = (await capturesOf(1)).length;
      const off = await captureSetting('DELETE');
      assert.deepEqual([off.status, off.json.capturing], [200, false]);
      assert.equal((await chat()).status, 200);
      await sleep(300);
      assert.equal((await list('?limit=100')).json.data.length, before);

      await setDebugCaptureUntil(h.running.store, org.id, key.id, Date.now() - 1);
      await sleep(20);
      assert.equal((await captureSetting('GET')).json.capturing, false);
      assert.equal((await chat()).status, 200);
      await sleep(300);
      assert.equal((await list('?limit=100')).json.data.length, before);
    });
  });
}
