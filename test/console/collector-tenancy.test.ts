import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';

/**
 * Every route of issue 6 under attack from another tenant (OWASP API1) and from a read-only
 * token (API5): organization B's token on organization A's objects gets 403 or 404 and none
 * of A's data; a read token gets 403 on every write route and changes nothing.
 */
type Org = { id: string; token: string; slug: string };
type Route = { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: unknown; write: boolean };

for (const store of storeKinds()) {
  describe(`issue 6 tenancy matrix (${store})`, () => {
    let h: Harness;
    let a: Org;
    let b: Org;
    let secretWords: string[];
    let routes: Route[];
    let aTokenId: string;
    let projectId: string;
    let componentId: string;

    before(async () => {
      h = await startHarness({ store, env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1' } });
      a = await h.organization();
      b = await h.organization();
      const domain = `alpha-${randomBytes(4).toString('hex')}.example.com`;
      const secretName = `secret-alpha-${randomBytes(3).toString('hex')}`;
      const project = await h.console('POST', '/v1/projects', {
        token: a.token,
        body: { slug: 'alpha', name: secretName, domains: [domain] },
      });
      projectId = project.json.id;
      const settings = await h.console('POST', `/v1/projects/${projectId}/proxy-settings`, {
        token: a.token,
        body: {
          description: secretName,
          is_active: true,
          backends: [{ name: 'origin', address: 'alpha-origin.example.com', default: true }],
        },
      });
      assert.equal(settings.status, 201);
      const pc = await h.console('POST', `/v1/projects/${projectId}/components`, {
        token: a.token,
        body: { component_slug: 'gateway/webhook', settings: { url: 'https://alpha-hooks.example.com/x' } },
      });
      assert.equal(pc.status, 201, pc.text);
      componentId = pc.json.id;
      const token = await h.console('POST', '/v1/api_tokens', {
        token: a.token,
        body: { name: secretName, permission: 'read' },
      });
      aTokenId = token.json.id;
      const key = await h.createKey(a, { name: secretName });
      await h.running.store.db
        .insertInto('usage_records')
        .values({
          id: randomUUID(),
          request_id: 'req_alpha',
          created_at: Date.now() - 1000,
          organization_id: a.id,
          api_key_id: key.id,
          model: 'openai/alpha-model',
          provider: 'openai',
          upstream_model: 'x',
          endpoint: 'chat',
          input_tokens: 1,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
          reasoning_tokens: 0,
          uncompressed_input_tokens: null,
          cost_micro_usd: 1,
          tags: '["alpha-tag"]',
          status_code: 200,
          error_code: null,
          latency_ms: 1,
          stream: 0,
        })
        .execute();
      secretWords = [secretName, domain, 'alpha-origin', 'alpha-hooks', 'alpha-model', 'alpha-tag', key.id];
      const p = `/v1/projects/${projectId}`;
      routes = [
        { method: 'GET', path: `/v1/organizations/${a.id}/logs/export`, write: false },
        { method: 'GET', path: `/v1/organizations/${a.id}/logs/export?format=json&period=30d`, write: false },
        { method: 'GET', path: `/v1/api_tokens/${aTokenId}`, write: false },
        { method: 'DELETE', path: `/v1/api_tokens/${aTokenId}`, write: true },
        { method: 'GET', path: p, write: false },
        { method: 'POST', path: p, body: { name: 'taken over' }, write: true },
        { method: 'DELETE', path: p, write: true },
        {
          method: 'POST',
          path: `${p}/proxy-settings`,
          body: { backends: [{ name: 'evil', address: 'evil.example.com', default: true }], is_active: true },
          write: true,
        },
        { method: 'GET', path: `${p}/proxy-settings`, write: false },
        { method: 'GET', path: `${p}/proxy-settings/revisions`, write: false },
        { method: 'GET', path: `${p}/proxy-settings/1`, write: false },
        { method: 'POST', path: `${p}/proxy-settings/1`, body: { is_active: false, description: 'x' }, write: true },
        { method: 'POST', path: `${p}/components`, body: { component_slug: 'gateway/warehouse' }, write: true },
        { method: 'GET', path: `${p}/components`, write: false },
        { method: 'GET', path: `${p}/components/${componentId}`, write: false },
        { method: 'POST', path: `${p}/components/${componentId}`, body: { active: false }, write: true },
        { method: 'DELETE', path: `${p}/components/${componentId}`, write: true },
        { method: 'GET', path: `${p}/events`, write: false },
      ];
    });
    after(async () => h.stop());

    async function assertAUnchanged() {
      const project = await h.console('GET', `/v1/projects/${projectId}`, { token: a.token });
      assert.equal(project.status, 200);
      assert.equal(project.json.name, secretWords[0]);
      const settings = await h.console('GET', `/v1/projects/${projectId}/proxy-settings`, { token: a.token });
      assert.equal(settings.json.revision, 1);
      assert.equal(settings.json.description, secretWords[0]);
      const pc = await h.console('GET', `/v1/projects/${projectId}/components/${componentId}`, { token: a.token });
      assert.equal(pc.json.active, true);
      assert.equal(
        (await h.console('GET', `/v1/projects/${projectId}/components`, { token: a.token })).json.data.length,
        1,
      );
      assert.equal((await h.console('GET', `/v1/api_tokens/${aTokenId}`, { token: a.token })).status, 200);
      assert.equal(
        (await h.console('GET', `/v1/projects/${projectId}/proxy-settings/revisions`, { token: a.token })).json.data
          .length,
        1,
      );
    }

    it("organization B's token on every organization-A object gets 403 or 404 and none of A's data", async () => {
      for (const route of routes) {
        const result = await h.console(route.method, route.path, {
          token: b.token,
          ...(route.body ? { body: route.body } : {}),
        });
        const what = `${route.method} ${route.path}`;
        assert.ok(result.status === 403 || result.status === 404, `${what} → ${result.status} ${result.text}`);
        assert.deepEqual(Object.keys(result.json).sort(), ['error', 'message'], what);
        for (const word of secretWords) assert.ok(!result.text.includes(word), `${what} leaks ${word}`);
      }
      await assertAUnchanged();
    });

    it("B's lists hold none of A's objects", async () => {
      for (const path of [
        '/v1/projects',
        '/v1/api_tokens',
        `/v1/organizations/${b.id}/logs/export?format=json&period=30d`,
        `/v1/organizations/${b.id}/logs/export`,
      ]) {
        const result = await h.console('GET', path, { token: b.token });
        assert.equal(result.status, 200, path);
        for (const word of [...secretWords, projectId, aTokenId])
          assert.ok(!result.text.includes(word), `${path} leaks ${word}`);
      }
    });

    it('a read-only token of A gets 403 on every write route and changes nothing', async () => {
      const reader = (
        await h.console('POST', '/v1/api_tokens', { token: a.token, body: { name: 'reader', permission: 'read' } })
      ).json;
      const writes = [
        ...routes.filter((r) => r.write),
        { method: 'POST' as const, path: '/v1/projects', body: { slug: 'r', name: 'r' }, write: true },
        { method: 'POST' as const, path: '/v1/api_tokens', body: { name: 'r', permission: 'read' }, write: true },
      ];
      for (const route of writes) {
        const result = await h.console(route.method, route.path, {
          token: reader.token,
          ...(route.body ? { body: route.body } : {}),
        });
        assert.equal(result.status, 403, `${route.method} ${route.path}`);
        assert.equal(result.json.error, 'Forbidden');
      }
      await assertAUnchanged();
      // Reads other than token management work for the reader.
      for (const route of routes.filter((r) => !r.write && !r.path.startsWith('/v1/api_tokens'))) {
        const result = await h.console(route.method, route.path, { token: reader.token });
        assert.equal(result.status, 200, `${route.method} ${route.path}: ${result.text}`);
      }
    });

    it("the same routes with A's own token succeed (the matrix tests the tenant, not a broken route)", async () => {
      for (const route of routes.filter((r) => !r.write)) {
        const result = await h.console(route.method, route.path, { token: a.token });
        assert.equal(result.status, 200, `${route.method} ${route.path}: ${result.text}`);
      }
    });
  });
}
