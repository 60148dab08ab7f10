import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';

for (const store of storeKinds()) {
  describe(`console api keys (${store})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ store });
    });
    after(async () => h.stop());

    it('creates a key and returns the secret once, then lists it without the secret', async () => {
      const org = await h.organization();
      const created = await h.createKey(org, {
        name: 'ci',
        models: ['openai/gpt-4o-mini'],
        max_usage: 10,
        expires_in_days: 7,
      });
      assert.equal(created.object, 'ai_gateway_api_key');
      assert.match(created.key, /^gw-[A-Za-z0-9_-]{43}$/);
      assert.equal(created.organization_id, org.id);
      assert.deepEqual(created.models, ['openai/gpt-4o-mini']);
      assert.equal(created.max_usage, 10);
      const expires = Date.parse(created.expires_at as string) - Date.parse(created.created_at as string);
      assert.equal(expires, 7 * 24 * 3600 * 1000);
      const list = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: org.token });
      assert.equal(list.status, 200);
      assert.equal(list.json.object, 'list');
      assert.equal(list.json.data.length, 1);
      assert.equal(list.json.data[0].key, undefined);
    });

    it('reveals the same secret that was created', async () => {
      const org = await h.organization();
      const created = await h.createKey(org);
      const revealed = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${created.id}/reveal`, {
        token: org.token,
      });
      assert.equal(revealed.status, 200);
      assert.equal(revealed.json.key, created.key);
    });

    it('refuses an update field outside name, active, models, max_usage and names it', async () => {
      const org = await h.organization();
      const created = await h.createKey(org);
      const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
        body: { organization_id: 'other' },
      });
      assert.equal(result.status, 400);
      assert.equal(result.json.error, 'Bad Request');
      assert.match(result.json.message, /organization_id/);
    });

    it('requires coding_assistant for coding_agent keys', async () => {
      const org = await h.organization();
      const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, {
        token: org.token,
        body: { name: 'a', type: 'coding_agent' },
      });
      assert.equal(result.status, 400);
      assert.match(result.json.message, /coding_assistant/);
      const ok = await h.createKey(org, { name: 'a', type: 'coding_agent', coding_assistant: 'codex' });
      assert.equal(ok.coding_assistant, 'codex');
    });

    it('deactivated key gets 403 forbidden, deleted key gets 401 unauthorized', async () => {
      const org = await h.organization();
      const created = await h.createKey(org);
      const ok = await h.gateway('GET', '/v1/models', { token: created.key });
      assert.equal(ok.status, 200);
      await h.console('POST', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
        body: { active: false },
      });
      const inactive = await h.gateway('GET', '/v1/models', { token: created.key });
      assert.equal(inactive.status, 403);
      assert.equal(inactive.json.error.code, 'forbidden');
      const del = await h.console('DELETE', `/v1/organizations/${org.id}/api_keys/${created.id}`, { token: org.token });
      assert.deepEqual(del.json, { object: 'ai_gateway_api_key', id: created.id, deleted: true });
      const deleted = await h.gateway('GET', '/v1/models', { token: created.key });
      assert.equal(deleted.status, 401);
      assert.equal(deleted.json.error.code, 'unauthorized');
    });

    it("organization B's token on organization A's keys gets 403 and no data", async () => {
      const a = await h.organization();
      const b = await h.organization();
      const key = await h.createKey(a);
      for (const [method, path, body] of [
        ['GET', `/v1/organizations/${a.id}/api_keys`],
        ['POST', `/v1/organizations/${a.id}/api_keys`, { name: 'x' }],
        ['GET', `/v1/organizations/${a.id}/api_keys/${key.id}/reveal`],
        ['POST', `/v1/organizations/${a.id}/api_keys/${key.id}`, { active: false }],
        ['DELETE', `/v1/organizations/${a.id}/api_keys/${key.id}`],
      ] as const) {
        const result = await h.console(method, path, { token: b.token, ...(body ? { body } : {}) });
        assert.equal(result.status, 403, `${method} ${path}`);
        assert.equal(result.json.error, 'Forbidden');
        assert.ok(!result.text.includes(key.key));
        assert.ok(!result.text.includes(key.id) || path.includes(key.id));
      }
      const still = await h.gateway('GET', '/v1/models', { token: key.key });
      assert.equal(still.status, 200);
    });

    it('update changes name, active, models, max_usage and compression and returns the key without its secret', async () => {
      const org = await h.organization();
      const created = await h.createKey(org, { name: 'before' });
      const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
        body: { name: 'after', active: false, models: ['local/echo'], max_usage: 25, compression: true },
      });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.json.name, 'after');
      assert.equal(result.json.active, false);
      assert.deepEqual(result.json.models, ['local/echo']);
      assert.equal(result.json.max_usage, 25);
      assert.equal(result.json.compression, true);
      assert.equal(result.json.key, undefined);
      assert.equal(result.json.created_at, created.created_at);
      const cleared = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
        body: { max_usage: null },
      });
      assert.equal(cleared.json.max_usage, null);
    });

    it('tool_surface: on by default; created false reads false and stays so across other updates; updated true reads true; a non-boolean is a 400', async () => {
      const org = await h.organization();
      const plain = await h.createKey(org, { name: 'plain' });
      assert.equal(plain.tool_surface, true);
      const created = await h.createKey(org, { name: 'no-surface', tool_surface: false });
      assert.equal(created.tool_surface, false);
      const base = `/v1/organizations/${org.id}/api_keys/${created.id}`;
      assert.equal((await h.console('GET', base, { token: org.token })).json.tool_surface, false);
      const list = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: org.token });
      assert.deepEqual(
        Object.fromEntries(
          list.json.data.map((k: { name: string; tool_surface: boolean }) => [k.name, k.tool_surface]),
        ),
        { plain: true, 'no-surface': false },
      );
      const renamed = await h.console('POST', base, { token: org.token, body: { name: 'renamed' } });
      assert.equal(renamed.json.tool_surface, false, 'an update without tool_surface leaves it');
      const updated = await h.console('POST', base, { token: org.token, body: { tool_surface: true } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.tool_surface, true);
      assert.equal((await h.console('GET', base, { token: org.token })).json.tool_surface, true);
      for (const [method, path, body] of [
        ['POST', base, { tool_surface: 'yes' }],
        ['POST', `/v1/organizations/${org.id}/api_keys`, { name: 'bad', tool_surface: 0 }],
      ] as const) {
        const refused = await h.console(method, path, { token: org.token, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.match(refused.json.message, /tool_surface/);
      }
      assert.equal((await h.console('GET', base, { token: org.token })).json.tool_surface, true);
    });

    it('returns spec 2.8 objects: ISO 8601 times, no expires_at unless asked, null last_used_at before any use', async () => {
      const org = await h.organization();
      const created = await h.createKey(org, { name: 'shape' });
      for (const field of [
        'object',
        'id',
        'organization_id',
        'name',
        'type',
        'models',
        'max_usage',
        'active',
        'debug_mode',
        'created_at',
        'expires_at',
        'last_used_at',
        'key',
      ]) {
        assert.ok(field in created, field);
      }
      assert.equal(created.type, 'api');
      assert.equal(created.active, true);
      assert.deepEqual(created.models, []);
      assert.equal(created.expires_at, null);
      assert.equal(created.last_used_at, null);
      assert.equal(new Date(created.created_at as string).toISOString(), created.created_at);
      const fetched = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
      });
      const { key: _secret, ...withoutSecret } = created;
      assert.deepEqual(fetched.json, withoutSecret);
    });

    it('refuses coding_assistant on an api key, an unknown coding_assistant, and a non-integer expires_in_days', async () => {
      const org = await h.organization();
      for (const body of [
        { name: 'a', coding_assistant: 'codex' },
        { name: 'a', type: 'coding_agent', coding_assistant: 'cursor' },
        { name: 'a', expires_in_days: 1.5 },
        { name: 'a', expires_in_days: 0 },
        { name: '' },
        { name: 'a', max_usage: -1 },
        { name: 'a', models: ['no-slash'] },
      ]) {
        const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, { token: org.token, body });
        assert.equal(result.status, 400, JSON.stringify(body));
        assert.equal(result.json.error, 'Bad Request');
      }
      const list = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: org.token });
      assert.deepEqual(list.json.data, []);
    });

    it('a deleted key is gone: get, reveal, update and a second delete all get 404', async () => {
      const org = await h.organization();
      const created = await h.createKey(org);
      const base = `/v1/organizations/${org.id}/api_keys/${created.id}`;
      assert.equal((await h.console('DELETE', base, { token: org.token })).status, 200);
      assert.equal((await h.console('GET', base, { token: org.token })).status, 404);
      assert.equal((await h.console('GET', `${base}/reveal`, { token: org.token })).status, 404);
      assert.equal((await h.console('POST', base, { token: org.token, body: { active: true } })).status, 404);
      assert.equal((await h.console('DELETE', base, { token: org.token })).status, 404);
      assert.equal((await h.gateway('GET', '/v1/models', { token: created.key })).status, 401);
    });
  });
}
