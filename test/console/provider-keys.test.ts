import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { MAX_PROVIDER_KEYS_PER_ORGANIZATION } from '../../src/store/provider-keys.js';
import { MAX_ALLOW_LIST_ENTRIES } from '../../src/store/organization-allow-lists.js';

/** /v1/organizations/{orgId}/provider_keys and allow_lists: validation, tenancy, permissions, bounds. */
for (const store of storeKinds()) {
  describe(`console provider keys and allow-lists (${store})`, () => {
    let h: Harness;
    const manyProviders = Array.from({ length: MAX_PROVIDER_KEYS_PER_ORGANIZATION + 1 }, (_, i) => ({
      id: `p${i}`,
      kind: 'openai',
      base_url: 'https://127.0.0.1:9/v1',
      api_key_env: `UNSET_P${i}`,
    }));
    before(async () => {
      h = await startHarness({ store, config: { providers: manyProviders } });
    });
    after(async () => h.stop());

    const keysPath = (org: { id: string }) => `/v1/organizations/${org.id}/provider_keys`;

    it('adds a key and answers with its hint only; a second add for the provider is a 409', async () => {
      const org = await h.organization();
      const secret = 'sk-proj-abcdefghijklmnop9876';
      const added = await h.console('POST', keysPath(org), {
        token: org.token,
        body: { provider: 'openai', key: secret },
      });
      assert.equal(added.status, 201, added.text);
      assert.deepEqual(Object.keys(added.json).sort(), [
        'created_at',
        'id',
        'key_hint',
        'object',
        'provider',
        'updated_at',
      ]);
      assert.equal(added.json.key_hint, '…9876');
      assert.ok(!added.text.includes(secret));
      const again = await h.console('POST', keysPath(org), {
        token: org.token,
        body: { provider: 'openai', key: secret },
      });
      assert.equal(again.status, 409);
      assert.equal(again.json.error, 'Conflict');
      assert.match(again.json.message, /PUT …\/provider_keys\/openai replaces it/);
      const listed = await h.console('GET', keysPath(org), { token: org.token });
      assert.equal(listed.json.data.length, 1);
      assert.ok(!listed.text.includes(secret));
      assert.ok(listed.json.available_providers.some((p: { id: string }) => p.id === 'p0'));
    });

    it('refuses unknown providers, local ones and keys that could split a header, naming the member', async () => {
      const org = await h.organization();
      const cases: Array<[unknown, string]> = [
        [{ provider: 'nope', key: 'sk-1234567890' }, 'provider'],
        [{ provider: 'openai', key: 'sk-12345\r\nx-evil: 1' }, 'key'],
        [{ provider: 'openai', key: 'short' }, 'key'],
        [{ provider: 'openai', key: 'x'.repeat(4097) }, 'key'],
        [{ provider: 'openai', key: 'sk-1234567890', extra: 1 }, ''],
      ];
      for (const [body, member] of cases) {
        const refused = await h.console('POST', keysPath(org), { token: org.token, body });
        assert.equal(refused.status, 400, `${JSON.stringify(body).slice(0, 60)} → ${refused.text}`);
        assert.equal(refused.json.error, 'Bad Request');
        if (member) assert.match(JSON.stringify(refused.json), new RegExp(member));
      }
      const local = (await h.console('GET', keysPath(org), { token: org.token })).json.available_providers;
      assert.ok(
        local.every((p: { kind: string }) => p.kind !== 'local'),
        'local providers are not offered',
      );
    });

    it('rotates and removes only a key the organization holds (404 otherwise)', async () => {
      const org = await h.organization();
      const rotateMissing = await h.console('PUT', `${keysPath(org)}/openai`, {
        token: org.token,
        body: { key: 'sk-rotated-0000000' },
      });
      assert.equal(rotateMissing.status, 404);
      assert.equal((await h.console('DELETE', `${keysPath(org)}/openai`, { token: org.token })).status, 404);
      await h.console('POST', keysPath(org), {
        token: org.token,
        body: { provider: 'openai', key: 'sk-first-00000001' },
      });
      const rotated = await h.console('PUT', `${keysPath(org)}/openai`, {
        token: org.token,
        body: { key: 'sk-second-0000002' },
      });
      assert.equal(rotated.status, 200);
      assert.equal(rotated.json.key_hint, '…0002');
      assert.equal((await h.console('DELETE', `${keysPath(org)}/openai`, { token: org.token })).status, 200);
      assert.deepEqual((await h.console('GET', keysPath(org), { token: org.token })).json.data, []);
    });

    it("another organization's token gets 403 and changes nothing; a read token cannot write", async () => {
      const owner = await h.organization();
      const other = await h.organization();
      await h.console('POST', keysPath(owner), {
        token: owner.token,
        body: { provider: 'openai', key: 'sk-owner-0000001' },
      });
      for (const [method, path, body] of [
        ['GET', keysPath(owner)],
        ['POST', keysPath(owner), { provider: 'anthropic', key: 'sk-other-0000001' }],
        ['PUT', `${keysPath(owner)}/openai`, { key: 'sk-other-0000002' }],
        ['DELETE', `${keysPath(owner)}/openai`],
        ['GET', `/v1/organizations/${owner.id}/allow_lists`],
        ['PUT', `/v1/organizations/${owner.id}/allow_lists`, { models: [] }],
      ] as const) {
        const refused = await h.console(method, path, { token: other.token, ...(body ? { body } : {}) });
        assert.equal(refused.status, 403, `${method} ${path}`);
      }
      const kept = (await h.console('GET', keysPath(owner), { token: owner.token })).json.data;
      assert.deepEqual(
        kept.map((k: { provider: string; key_hint: string }) => [k.provider, k.key_hint]),
        [['openai', '…0001']],
      );
      const reader = await h.organization(undefined, 'read');
      assert.equal((await h.console('GET', keysPath(reader), { token: reader.token })).status, 200);
      const write = await h.console('POST', keysPath(reader), {
        token: reader.token,
        body: { provider: 'openai', key: 'sk-reader-000001' },
      });
      assert.equal(write.status, 403);
    });

    it(`holds at most ${MAX_PROVIDER_KEYS_PER_ORGANIZATION} provider keys per organization`, async () => {
      const org = await h.organization();
      for (let i = 0; i < MAX_PROVIDER_KEYS_PER_ORGANIZATION; i++) {
        const added = await h.console('POST', keysPath(org), {
          token: org.token,
          body: { provider: `p${i}`, key: `sk-key-${i}-000000` },
        });
        assert.equal(added.status, 201, added.text);
      }
      const over = await h.console('POST', keysPath(org), {
        token: org.token,
        body: { provider: `p${MAX_PROVIDER_KEYS_PER_ORGANIZATION}`, key: 'sk-one-too-many' },
      });
      assert.equal(over.status, 400);
      assert.match(over.json.message, new RegExp(`at most ${MAX_PROVIDER_KEYS_PER_ORGANIZATION} provider keys`));
    });

    it('validates allow-lists: known providers, model ids, bounded length', async () => {
      const org = await h.organization();
      const path = `/v1/organizations/${org.id}/allow_lists`;
      const initial = await h.console('GET', path, { token: org.token });
      assert.deepEqual(initial.json, { object: 'allow_lists', models: null, providers: null, updated_at: null });
      const unknown = await h.console('PUT', path, { token: org.token, body: { providers: ['openai', 'nope'] } });
      assert.equal(unknown.status, 400);
      assert.match(unknown.json.message, /No provider "nope"/);
      assert.equal(unknown.json.param, 'providers');
      const badModel = await h.console('PUT', path, { token: org.token, body: { models: ['no-author'] } });
      assert.equal(badModel.status, 400);
      const tooMany = await h.console('PUT', path, {
        token: org.token,
        body: { models: Array.from({ length: MAX_ALLOW_LIST_ENTRIES + 1 }, (_, i) => `a/m${i}`) },
      });
      assert.equal(tooMany.status, 400);
      assert.deepEqual((await h.console('GET', path, { token: org.token })).json.models, null, 'nothing stored');
      const set = await h.console('PUT', path, { token: org.token, body: { providers: ['openai'] } });
      assert.equal(set.status, 200);
      assert.deepEqual([set.json.models, set.json.providers], [null, ['openai']]);
    });
  });
}
