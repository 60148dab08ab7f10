import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { startHarness, storeKinds, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';

const OPERATOR_OPENAI = 'sk-operator-openai-0000';
const OPERATOR_ANTHROPIC = 'sk-operator-anthropic-0000';
/** One master key for every instance of the store, as a deployment of several instances has. */
const ENV = {
  MOCK_OPENAI_KEY: OPERATOR_OPENAI,
  MOCK_ANTHROPIC_KEY: OPERATOR_ANTHROPIC,
  GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'),
};

/**
 * Issue 30 item 5's acceptance: organization A's requests reach the mock upstream with A's own
 * key, B's with the operator's; once A's key is removed (the DELETE has returned) A's next request
 * uses the operator's; allow-lists refuse in the surface's error shape; and the key is never in
 * any answer or log line after it was sent.
 */
for (const kind of storeKinds()) {
  describe(`provider keys per organization on the request path (${kind})`, () => {
    let h: Harness;
    let openai: MockUpstream;
    let anthropic: MockUpstream;
    const logText: string[] = [];
    /** Every answer of the gateway and the console in this suite, to search for the keys. */
    const answers: string[] = [];
    const sentKeys: string[] = [];
    const ownKey = (tag: string) => {
      const key = `sk-own-${tag}-${randomBytes(16).toString('hex')}`;
      sentKeys.push(key);
      return key;
    };

    const config = () => ({
      providers: [
        { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
        { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_ANTHROPIC_KEY' },
        // The operator set no key for this one: only an organization's own key makes it routable.
        { id: 'byok-only', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'BYOK_ONLY_UNSET_KEY' },
      ],
      models: [
        { id: 'test/gpt', providers: [{ provider: 'mock-openai', model: 'gpt' }], pricing: PRICING },
        { id: 'test/claude', providers: [{ provider: 'mock-anthropic', model: 'claude' }], pricing: PRICING },
        { id: 'test/own-only', providers: [{ provider: 'byok-only', model: 'gpt' }], pricing: PRICING },
      ],
    });
    const record = (result: HttpResult) => {
      answers.push(JSON.stringify(result.headers) + result.text);
      return result;
    };
    const consoleCall = async (org: { token: string }, method: string, path: string, body?: unknown) =>
      record(await h.console(method, path, { token: org.token, ...(body === undefined ? {} : { body }) }));
    const chat = async (key: string, model: string) =>
      record(
        await h.gateway('POST', '/v1/chat/completions', {
          token: key,
          body: { model, messages: [{ role: 'user', content: 'hi' }] },
        }),
      );
    const messages = async (key: string, model: string) =>
      record(
        await h.gateway('POST', '/v1/messages', {
          headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
          body: { model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        }),
      );
    const openaiKeySeen = () => /^Bearer (.+)$/.exec(String(openai.lastRequest()!.headers.authorization))?.[1];
    const anthropicKeySeen = () => anthropic.lastRequest()!.headers['x-api-key'];

    before(async () => {
      openai = await startMockOpenAI();
      anthropic = await startMockAnthropic();
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logText.push(String(chunk));
          done();
        },
      });
      h = await startHarness({ store: kind, logger: pino({ level: 'trace' }, sink), config: config(), env: ENV });
    });
    after(async () => {
      await h.stop();
      await openai.close();
      await anthropic.close();
    });

    it("uses A's own key for A's traffic and the operator's for B's; after removal, A's traffic uses the operator's", async () => {
      const a = await h.organization();
      const b = await h.organization();
      const aKey = (await h.createKey(a)).key;
      const bKey = (await h.createKey(b)).key;
      const aOpenai = ownKey('a-openai');
      const aAnthropic = ownKey('a-anthropic');
      assert.equal(
        (
          await consoleCall(a, 'POST', `/v1/organizations/${a.id}/provider_keys`, {
            provider: 'mock-openai',
            key: aOpenai,
          })
        ).status,
        201,
      );
      assert.equal(
        (
          await consoleCall(a, 'POST', `/v1/organizations/${a.id}/provider_keys`, {
            provider: 'mock-anthropic',
            key: aAnthropic,
          })
        ).status,
        201,
      );

      assert.equal((await chat(aKey, 'test/gpt')).status, 200);
      assert.equal(openaiKeySeen(), aOpenai);
      assert.equal((await chat(bKey, 'test/gpt')).status, 200);
      assert.equal(openaiKeySeen(), OPERATOR_OPENAI);
      assert.equal((await messages(aKey, 'test/claude')).status, 200);
      assert.equal(anthropicKeySeen(), aAnthropic);
      assert.equal((await messages(bKey, 'test/claude')).status, 200);
      assert.equal(anthropicKeySeen(), OPERATOR_ANTHROPIC);

      // Rotation: the very next request carries the new key.
      const rotated = ownKey('a-openai-rotated');
      assert.equal(
        (await consoleCall(a, 'PUT', `/v1/organizations/${a.id}/provider_keys/mock-openai`, { key: rotated })).status,
        200,
      );
      assert.equal((await chat(aKey, 'test/gpt')).status, 200);
      assert.equal(openaiKeySeen(), rotated);

      // Removal: no request after the DELETE returned uses the key, without waiting for any TTL.
      const removed = await consoleCall(a, 'DELETE', `/v1/organizations/${a.id}/provider_keys/mock-openai`);
      assert.deepEqual(removed.json, { object: 'provider_key', provider: 'mock-openai', deleted: true });
      const before = openai.requests.length;
      await Promise.all(Array.from({ length: 5 }, () => chat(aKey, 'test/gpt')));
      const after = openai.requests.slice(before).map((request) => request.headers.authorization);
      assert.deepEqual(after, Array(5).fill(`Bearer ${OPERATOR_OPENAI}`));
      // The other provider's key is untouched.
      await messages(aKey, 'test/claude');
      assert.equal(anthropicKeySeen(), aAnthropic);
    });

    it('makes a provider without an operator key routable for the organization holding one, and only for it', async () => {
      const a = await h.organization();
      const b = await h.organization();
      const aKey = (await h.createKey(a)).key;
      const bKey = (await h.createKey(b)).key;
      const own = ownKey('only');
      await consoleCall(a, 'POST', `/v1/organizations/${a.id}/provider_keys`, { provider: 'byok-only', key: own });
      assert.equal((await chat(aKey, 'test/own-only')).status, 200);
      assert.equal(openaiKeySeen(), own);
      const refused = await chat(bKey, 'test/own-only');
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.code, 'provider_not_supported');
    });

    it('refuses models and providers off the allow-lists with 403 in the OpenAI and Anthropic shapes', async () => {
      const a = await h.organization();
      const aKey = (await h.createKey(a)).key;
      const lists = `/v1/organizations/${a.id}/allow_lists`;
      const set = await consoleCall(a, 'PUT', lists, { models: ['test/gpt'] });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual([set.json.models, set.json.providers], [['test/gpt'], null]);

      assert.equal((await chat(aKey, 'test/gpt')).status, 200);
      const openaiShape = await chat(aKey, 'test/claude');
      assert.equal(openaiShape.status, 403);
      assert.equal(openaiShape.json.error.type, 'permission_error');
      assert.equal(openaiShape.json.error.code, 'forbidden');
      assert.match(openaiShape.json.error.message, /"test\/claude" is not on this organization's model allow-list/);
      const anthropicShape = await messages(aKey, 'test/claude');
      assert.equal(anthropicShape.status, 403);
      assert.equal(anthropicShape.json.type, 'error');
      assert.equal(anthropicShape.json.error.type, 'permission_error');
      assert.match(anthropicShape.json.error.message, /model allow-list/);

      // Providers: the model list lifted, only Anthropic's provider allowed.
      await consoleCall(a, 'PUT', lists, { models: null, providers: ['mock-anthropic'] });
      assert.equal((await messages(aKey, 'test/claude')).status, 200);
      const offList = await chat(aKey, 'test/gpt');
      assert.equal(offList.status, 403);
      assert.match(offList.json.error.message, /None of the providers of model "test\/gpt" \(mock-openai\)/);

      // Another organization is not restricted by A's lists.
      const b = await h.organization();
      assert.equal((await chat((await h.createKey(b)).key, 'test/gpt')).status, 200);

      // Both lifted: everything is served again at once.
      await consoleCall(a, 'PUT', lists, { models: null, providers: null });
      assert.equal((await chat(aKey, 'test/gpt')).status, 200);
    });

    if (kind === 'postgres')
      it('another instance of the store stops using a removed key within its cache TTL (1 s)', async (t) => {
        const other = await startHarness({ store: 'postgres', schema: h.schema!, config: config(), env: ENV });
        try {
          const a = await h.organization();
          const aKey = (await h.createKey(a)).key;
          const own = ownKey('two-instances');
          await consoleCall(a, 'POST', `/v1/organizations/${a.id}/provider_keys`, {
            provider: 'mock-openai',
            key: own,
          });
          const viaOther = async () => {
            const result = record(
              await other.gateway('POST', '/v1/chat/completions', {
                token: aKey,
                body: { model: 'test/gpt', messages: [{ role: 'user', content: 'hi' }] },
              }),
            );
            assert.equal(result.status, 200, result.text);
            return openaiKeySeen();
          };
          assert.equal(await viaOther(), own, 'the other instance reads the key from the shared store');
          const removedAt = performance.now();
          await consoleCall(a, 'DELETE', `/v1/organizations/${a.id}/provider_keys/mock-openai`);
          let seen = await viaOther();
          while (seen === own) {
            assert.ok(performance.now() - removedAt < 1_500, 'the other instance still used the key after 1.5 s');
            await new Promise((resolve) => setTimeout(resolve, 50));
            seen = await viaOther();
          }
          t.diagnostic(
            `the other instance stopped using it ${Math.round(performance.now() - removedAt)} ms after the DELETE`,
          );
          for (let i = 0; i < 5; i++) assert.equal(await viaOther(), OPERATOR_OPENAI);
        } finally {
          await other.stop();
        }
      });

    it('never shows a provider key again: not in any answer nor in any log line', async () => {
      const a = await h.organization();
      const listed = await consoleCall(a, 'GET', `/v1/organizations/${a.id}/provider_keys`);
      assert.equal(listed.status, 200);
      assert.ok(sentKeys.length >= 4, 'the suite sent keys');
      // Give the logger's last lines (access log after the answer) a moment to arrive.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const logs = logText.join('');
      assert.ok(logs.length > 0, 'the service logged');
      for (const key of sentKeys) {
        assert.ok(!answers.some((answer) => answer.includes(key)), `an answer held ${key.slice(0, 16)}…`);
        assert.ok(!logs.includes(key), `a log line held ${key.slice(0, 16)}…`);
      }
    });
  });
}
