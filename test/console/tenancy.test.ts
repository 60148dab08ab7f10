import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';

/** Object- and function-level authorization on the console (OWASP API1, API3, API5). */
type Org = { id: string; token: string; slug: string };
type Route = { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: Record<string, unknown> };

function keyRoutes(orgId: string, keyId: string): Route[] {
  const base = `/v1/organizations/${orgId}/api_keys`;
  return [
    { method: 'POST', path: base, body: { name: 'intruder' } },
    { method: 'GET', path: base },
    { method: 'GET', path: `${base}/${keyId}` },
    { method: 'POST', path: `${base}/${keyId}`, body: { active: false, name: 'taken over' } },
    { method: 'DELETE', path: `${base}/${keyId}` },
    { method: 'GET', path: `${base}/${keyId}/reveal` },
  ];
}

for (const store of storeKinds()) {
  describe(`console tenancy (${store})`, () => {
    let h: Harness;
    let a: Org;
    let b: Org;
    let aKey: { id: string; key: string; name?: unknown };
    before(async () => {
      h = await startHarness({ store });
      a = await h.organization();
      b = await h.organization();
      aKey = await h.createKey(a, { name: 'secret-project-alpha', models: ['openai/gpt-4o-mini'] });
    });
    after(async () => h.stop());

    it("organization B's token gets 403 Forbidden on every organization-A route, and the response holds none of A's data", async () => {
      for (const route of keyRoutes(a.id, aKey.id)) {
        const result = await h.console(route.method, route.path, {
          token: b.token,
          ...(route.body ? { body: route.body } : {}),
        });
        const what = `${route.method} ${route.path}`;
        assert.equal(result.status, 403, what);
        assert.deepEqual(Object.keys(result.json).sort(), ['error', 'message'], what);
        assert.equal(result.json.error, 'Forbidden', what);
        assert.ok(!result.text.includes(aKey.key), what);
        assert.ok(!result.text.includes('secret-project-alpha'), what);
        assert.ok(!result.text.includes('gpt-4o-mini'), what);
      }
      // Nothing changed in A.
      const list = await h.console('GET', `/v1/organizations/${a.id}/api_keys`, { token: a.token });
      assert.deepEqual(
        list.json.data.map((k: { id: string }) => k.id),
        [aKey.id],
      );
      assert.equal(list.json.data[0].active, true);
      assert.equal(list.json.data[0].name, 'secret-project-alpha');
      assert.equal((await h.gateway('GET', '/v1/models', { token: aKey.key })).status, 200);
    });

    it("organization B's token on A's key id under B's own path gets 404, not A's key", async () => {
      for (const route of keyRoutes(b.id, aKey.id).filter((r) => r.path.includes(aKey.id))) {
        const result = await h.console(route.method, route.path, {
          token: b.token,
          ...(route.body ? { body: route.body } : {}),
        });
        assert.equal(result.status, 404, `${route.method} ${route.path}`);
        assert.equal(result.json.error, 'Not Found');
        assert.ok(!result.text.includes(aKey.key));
        assert.ok(!result.text.includes('secret-project-alpha'));
      }
      assert.equal((await h.gateway('GET', '/v1/models', { token: aKey.key })).status, 200);
    });

    it('an unknown key id in its own organization gets 404 on get, update, delete and reveal', async () => {
      for (const id of [randomUUID(), 'not-a-uuid', "x' or '1'='1"]) {
        for (const route of keyRoutes(a.id, encodeURIComponent(id)).filter((r) =>
          r.path.includes(encodeURIComponent(id)),
        )) {
          const result = await h.console(route.method, route.path, {
            token: a.token,
            ...(route.body ? { body: route.body } : {}),
          });
          assert.equal(result.status, 404, `${route.method} ${route.path}`);
          assert.deepEqual(Object.keys(result.json).sort(), ['error', 'message']);
        }
      }
    });

    it('an unknown organization id gets 403, the same as another organization', async () => {
      const result = await h.console('GET', `/v1/organizations/${randomUUID()}/api_keys`, { token: a.token });
      assert.equal(result.status, 403);
    });

    it('a read-only token gets 403 on create, update and delete, and 200 on list and get', async () => {
      const reader = await h.organization(a.slug, 'read');
      assert.equal(reader.id, a.id);
      const base = `/v1/organizations/${a.id}/api_keys`;
      const create = await h.console('POST', base, { token: reader.token, body: { name: 'nope' } });
      assert.equal(create.status, 403);
      assert.equal(create.json.error, 'Forbidden');
      const update = await h.console('POST', `${base}/${aKey.id}`, { token: reader.token, body: { active: false } });
      assert.equal(update.status, 403);
      const del = await h.console('DELETE', `${base}/${aKey.id}`, { token: reader.token });
      assert.equal(del.status, 403);
      const list = await h.console('GET', base, { token: reader.token });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.json.data.map((k: { id: string }) => k.id),
        [aKey.id],
      );
      const get = await h.console('GET', `${base}/${aKey.id}`, { token: reader.token });
      assert.equal(get.status, 200);
      assert.equal(get.json.active, true, 'the refused update changed nothing');
      assert.equal(get.json.key, undefined);
      const reveal = await h.console('GET', `${base}/${aKey.id}/reveal`, { token: reader.token });
      assert.equal(reveal.status, 403, 'a read-only token may not reveal a secret');
      assert.equal(reveal.json.key, undefined);
    });

    it('a write token may create, update and delete', async () => {
      const writer = await h.organization(a.slug, 'write');
      const key = await h.createKey(writer, { name: 'by writer' });
      const base = `/v1/organizations/${a.id}/api_keys/${key.id}`;
      assert.equal((await h.console('POST', base, { token: writer.token, body: { name: 'renamed' } })).status, 200);
      assert.equal((await h.console('DELETE', base, { token: writer.token })).status, 200);
    });

    it('an expired console token gets 401 on every route, a missing one too', async () => {
      const { secret } = await createConsoleToken(h.running.store, {
        organizationId: a.id,
        name: 'expired',
        permission: 'admin',
        expiresAt: Date.now() - 1000,
      });
      for (const route of keyRoutes(a.id, aKey.id)) {
        const expired = await h.console(route.method, route.path, {
          token: secret,
          ...(route.body ? { body: route.body } : {}),
        });
        assert.equal(expired.status, 401, `${route.method} ${route.path}`);
        assert.equal(expired.json.error, 'Unauthorized');
        assert.ok(!expired.text.includes(aKey.key));
        const missing = await h.console(route.method, route.path, route.body ? { body: route.body } : {});
        assert.equal(missing.status, 401, `${route.method} ${route.path}`);
        assert.equal(missing.json.error, 'Unauthorized');
      }
    });

    it('the organization of a new key comes from the path, never from the body', async () => {
      const result = await h.console('POST', `/v1/organizations/${a.id}/api_keys`, {
        token: a.token,
        body: { name: 'x', organization_id: b.id },
      });
      assert.equal(result.status, 400);
      assert.match(result.json.message, /organization_id/);
      const bList = await h.console('GET', `/v1/organizations/${b.id}/api_keys`, { token: b.token });
      assert.deepEqual(bList.json.data, []);
    });

    it("lists never contain another organization's keys", async () => {
      const c = await h.organization();
      const d = await h.organization();
      const cKeys = [await h.createKey(c, { name: 'c1' }), await h.createKey(c, { name: 'c2' })];
      const dKeys = [await h.createKey(d, { name: 'd1' })];
      const cList = await h.console('GET', `/v1/organizations/${c.id}/api_keys`, { token: c.token });
      const dList = await h.console('GET', `/v1/organizations/${d.id}/api_keys`, { token: d.token });
      assert.deepEqual(cList.json.data.map((k: { id: string }) => k.id).sort(), cKeys.map((k) => k.id).sort());
      assert.deepEqual(
        dList.json.data.map((k: { id: string }) => k.id),
        dKeys.map((k) => k.id),
      );
      for (const k of cList.json.data) assert.equal(k.organization_id, c.id);
      for (const k of dList.json.data) assert.equal(k.organization_id, d.id);
    });
  });
}
