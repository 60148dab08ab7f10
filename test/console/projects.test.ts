import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { compileRoutePattern } from '../../src/console/proxy/route-pattern.js';
import { isHostPort } from '../../src/console/proxy/validate-proxy-settings.js';

/** Projects, proxy settings (2.10), the component catalogue and project components (2.11). */
const rnd = () => randomBytes(4).toString('hex');
const backend = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  address: `${name}.example.com:443`,
  ...extra,
});

for (const store of storeKinds()) {
  describe(`console projects and components (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string; slug: string };
    before(async () => {
      h = await startHarness({ store, env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1' } });
      org = await h.organization();
    });
    after(async () => h.stop());

    const call = (method: string, path: string, body?: unknown) =>
      h.console(method, path, { token: org.token, ...(body !== undefined ? { body } : {}) });
    const newProject = async (extra: Record<string, unknown> = {}) => {
      const result = await call('POST', '/v1/projects', { slug: `p-${rnd()}`, name: 'Project', ...extra });
      assert.equal(result.status, 201, result.text);
      return result.json;
    };

    it('creates, reads, updates, lists and deletes a project', async () => {
      const domain = `www-${rnd()}.example.com`;
      const created = await newProject({ domains: [domain] });
      assert.equal(created.object, 'project');
      assert.equal(created.organization_id, org.id);
      assert.deepEqual(created.domains, [domain]);
      assert.deepEqual(Object.keys(created).sort(), [
        'created_at',
        'domains',
        'id',
        'name',
        'object',
        'organization_id',
        'slug',
        'updated_at',
      ]);
      assert.deepEqual((await call('GET', `/v1/projects/${created.id}`)).json, created);
      const updated = await call('POST', `/v1/projects/${created.id}`, {
        name: 'Renamed',
        domains: [`a-${domain}`, `b-${domain}`],
      });
      assert.equal(updated.status, 200);
      assert.equal(updated.json.name, 'Renamed');
      assert.deepEqual(updated.json.domains, [`a-${domain}`, `b-${domain}`]);
      // The old domain is free again.
      await newProject({ domains: [domain] });
      const refused = await call('POST', `/v1/projects/${created.id}`, { organization_id: 'x' });
      assert.equal(refused.status, 400);
      assert.match(refused.json.message, /organization_id/);
      const deleted = await call('DELETE', `/v1/projects/${created.id}`);
      assert.deepEqual(deleted.json, { object: 'project', id: created.id, deleted: true });
      assert.equal((await call('GET', `/v1/projects/${created.id}`)).status, 404);
    });

    it('slugs are unique per organization; a verified domain belongs to one organization (409 naming the field)', async () => {
      const other = await h.organization();
      const slug = `s-${rnd()}`;
      // A test name is verified as it is claimed (development mode); a public name stays pending.
      const verified = `d-${rnd()}.example.test`;
      const pending = `d-${rnd()}.example.com`;
      await newProject({ slug, domains: [verified, pending] });
      const dupSlug = await call('POST', '/v1/projects', { slug, name: 'x' });
      assert.equal(dupSlug.status, 409);
      assert.equal(dupSlug.json.param, 'slug');
      // Another organization may use the slug, claim the pending domain too, but not the verified one.
      assert.equal(
        (await h.console('POST', '/v1/projects', { token: other.token, body: { slug, name: 'x' } })).status,
        201,
      );
      const dupDomain = await h.console('POST', '/v1/projects', {
        token: other.token,
        body: { slug: `t-${rnd()}`, name: 'x', domains: [verified] },
      });
      assert.equal(dupDomain.status, 409);
      assert.equal(dupDomain.json.param, 'domains');
      assert.ok(!dupDomain.text.includes(org.id));
      const coexisting = await h.console('POST', '/v1/projects', {
        token: other.token,
        body: { slug: `t-${rnd()}`, name: 'x', domains: [pending] },
      });
      assert.equal(coexisting.status, 201, coexisting.text);
      // Within one organization a domain belongs to one project, pending or not.
      const sameOrg = await call('POST', '/v1/projects', { slug: `t-${rnd()}`, name: 'x', domains: [pending] });
      assert.equal(sameOrg.status, 409);
      assert.equal(sameOrg.json.param, 'domains');
      for (const bad of [['UPPER.example.com'], ['has space.com'], ['host:8080'], ['a', 'a']]) {
        const result = await call('POST', '/v1/projects', { slug: `u-${rnd()}`, name: 'x', domains: bad });
        assert.equal(result.status, 400, JSON.stringify(bad));
      }
    });

    it('lists projects in pages with limit and starting_after (or last_key)', async () => {
      const o = await h.organization();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(
          (await h.console('POST', '/v1/projects', { token: o.token, body: { slug: `l${i}`, name: `L${i}` } })).json.id,
        );
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 5; page++) {
        const list = await h.console(
          'GET',
          `/v1/projects?limit=2${after ? `&${page % 2 ? 'last_key' : 'starting_after'}=${after}` : ''}`,
          { token: o.token },
        );
        assert.equal(list.status, 200);
        assert.equal(list.json.object, 'list');
        assert.equal(list.json.url, '/v1/projects');
        seen.push(...list.json.data.map((p: { id: string }) => p.id));
        after = list.json.last_key;
        if (!list.json.has_more) break;
      }
      assert.deepEqual(seen, ids);
      assert.equal((await h.console('GET', '/v1/projects?limit=0', { token: o.token })).status, 400);
      assert.equal((await h.console('GET', '/v1/projects?limit=101', { token: o.token })).status, 400);
      assert.equal((await h.console('GET', '/v1/projects?starting_after=nope', { token: o.token })).status, 400);
    });

    it('proxy settings: numbered revisions, one active at a time, read current and by number', async () => {
      const p = await newProject();
      assert.equal((await call('GET', `/v1/projects/${p.id}/proxy-settings`)).status, 404);
      const first = await call('POST', `/v1/projects/${p.id}/proxy-settings`, {
        description: 'first',
        backends: [
          backend('origin', { default: true }),
          backend('api', { enable_ssl: false, sni_hostname: 'api.example.com' }),
        ],
        routes: [
          { path: '/api/', backend_name: 'api', continent: ['EU'], country: ['FR'] },
          { path: '^/v[0-9]+/', regex: true, backend_name: 'api', rank: '2' },
        ],
      });
      assert.equal(first.status, 201, first.text);
      assert.deepEqual(Object.keys(first.json).sort(), [
        'backends',
        'description',
        'is_active',
        'object',
        'revision',
        'routes',
      ]);
      assert.equal(first.json.object, 'proxy_settings');
      assert.equal(first.json.revision, 1);
      assert.equal(first.json.is_active, false);
      assert.deepEqual(first.json.backends[1], {
        name: 'api',
        address: 'api.example.com:443',
        enable_ssl: false,
        check_certificate: '',
        ca_certificate: '',
        sni_hostname: 'api.example.com',
        default: false,
        override_host: '',
      });
      assert.deepEqual(first.json.routes[0], {
        path: '/api/',
        regex: false,
        backend_name: 'api',
        rank: '0',
        continent: ['EU'],
        region: [],
        country: ['FR'],
      });
      const second = await call('POST', `/v1/projects/${p.id}/proxy-settings`, {
        backends: [backend('origin', { default: true })],
        is_active: true,
      });
      assert.equal(second.json.revision, 2);
      assert.equal(second.json.is_active, true);
      assert.equal((await call('GET', `/v1/projects/${p.id}/proxy-settings`)).json.revision, 2);
      const activated = await call('POST', `/v1/projects/${p.id}/proxy-settings/1`, {
        is_active: true,
        description: 'back to one',
      });
      assert.equal(activated.status, 200);
      assert.equal(activated.json.is_active, true);
      assert.equal(activated.json.description, 'back to one');
      assert.equal((await call('GET', `/v1/projects/${p.id}/proxy-settings/2`)).json.is_active, false);
      assert.equal((await call('GET', `/v1/projects/${p.id}/proxy-settings`)).json.revision, 1);
      // Concurrent activations still leave exactly one active revision.
      await Promise.all(
        [1, 2, 1, 2, 2, 1].map((r) => call('POST', `/v1/projects/${p.id}/proxy-settings/${r}`, { is_active: true })),
      );
      const all = (await call('GET', `/v1/projects/${p.id}/proxy-settings/revisions`)).json.data;
      assert.equal(all.filter((r: { is_active: boolean }) => r.is_active).length, 1);
      const off = await call(
        'POST',
        `/v1/projects/${p.id}/proxy-settings/${all.find((r: any) => r.is_active).revision}`,
        { is_active: false },
      );
      assert.equal(off.json.is_active, false);
      assert.equal((await call('GET', `/v1/projects/${p.id}/proxy-settings`)).status, 404);
      assert.equal((await call('GET', `/v1/projects/${p.id}/proxy-settings/9`)).status, 404);
      assert.equal((await call('POST', `/v1/projects/${p.id}/proxy-settings/9`, { is_active: true })).status, 404);
      assert.equal((await call('POST', `/v1/projects/${p.id}/proxy-settings/1`, { backends: [] })).status, 400);
    });

    it('proxy settings validation names the offending member', async () => {
      const p = await newProject();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ backends: [backend('a'), backend('b')] }, 'backends'],
        [{ backends: [backend('a', { default: true }), backend('b', { default: true })] }, 'backends'],
        [{ backends: [backend('a', { default: true }), backend('a')] }, 'backends[1].name'],
        [{ backends: [{ name: 'a', address: 'http://a.example.com', default: true }] }, 'backends[0].address'],
        [{ backends: [{ name: 'a', address: 'a.example.com:99999', default: true }] }, 'backends[0].address'],
        [
          { backends: [backend('a', { default: true })], routes: [{ path: '/x', backend_name: 'missing' }] },
          'routes[0].backend_name',
        ],
        [
          { backends: [backend('a', { default: true })], routes: [{ path: '([a-z', regex: true, backend_name: 'a' }] },
          'routes[0].path',
        ],
        [
          {
            backends: [backend('a', { default: true })],
            routes: [{ path: '^/(?=api)', regex: true, backend_name: 'a' }],
          },
          'routes[0].path',
        ],
        [
          { backends: [backend('a', { default: true })], routes: [{ path: '(x)\\1', regex: true, backend_name: 'a' }] },
          'routes[0].path',
        ],
        [
          { backends: [backend('a', { default: true })], routes: [{ path: 'no-slash', backend_name: 'a' }] },
          'routes[0].path',
        ],
        [
          { backends: [backend('a', { default: true })], routes: [{ path: `/${'a'.repeat(600)}`, backend_name: 'a' }] },
          'routes[0].path',
        ],
        [
          { backends: [backend('a', { default: true })], routes: [{ path: '/x', backend_name: 'a', country: ['fr'] }] },
          'routes[0].country[0]',
        ],
      ];
      for (const [body, param] of cases) {
        const result = await call('POST', `/v1/projects/${p.id}/proxy-settings`, body);
        assert.equal(result.status, 400, JSON.stringify(body));
        assert.equal(result.json.param, param, `${JSON.stringify(body)}: ${result.text}`);
      }
    });

    it('address and regex guards', () => {
      for (const ok of [
        'example.com',
        'example.com:8080',
        '10.0.0.1',
        '10.0.0.1:80',
        '[2001:db8::1]:443',
        '[::1]',
        'localhost',
      ])
        assert.ok(isHostPort(ok), ok);
      for (const bad of ['', 'http://x', 'x:0', 'x:65536', 'a b', '999.1.1.1', '2001:db8::1', 'x:', 'x/y'])
        assert.ok(!isHostPort(bad), bad);
      // RE2 matches in linear time, so nested quantifiers are fine; what it cannot do is refused.
      for (const ok of ['^/api/', '^/v[0-9]+/', '\\.(png|jpg)$', '^/a*b+c$', '(foo|bar)/baz', '(a+)+', '(.*a){1,}'])
        assert.doesNotThrow(() => compileRoutePattern(ok), ok);
      for (const refused of ['(a)\\1', '(?=a)', '(?<!a)b', 'a{1001}', '(['])
        assert.throws(() => compileRoutePattern(refused), refused);
    });

    it('component catalogue: list with filters and paging, lookup by slug and uuid, 404 otherwise', async () => {
      const list = await call('GET', '/v1/components');
      assert.equal(list.status, 200);
      assert.equal(list.json.object, 'list');
      assert.equal(list.json.url, '/v1/components');
      assert.equal(list.json.has_more, false);
      const slugs = list.json.data.map((c: { slug: string }) => c.slug);
      assert.ok(slugs.includes('webhook') && slugs.includes('warehouse'));
      const webhook = list.json.data.find((c: { slug: string }) => c.slug === 'webhook');
      assert.deepEqual(Object.keys(webhook).sort(), [
        'avatar_url',
        'category',
        'created_at',
        'description',
        'documentation_link',
        'id',
        'is_archived',
        'is_public',
        'latest_version',
        'name',
        'object',
        'repo_link',
        'slug',
        'subcategory',
        'updated_at',
        'versions',
      ]);
      assert.equal(webhook.object, 'component');
      assert.equal(webhook.versions[webhook.latest_version].settings_schema.type, 'object');
      assert.ok(webhook.versions[webhook.latest_version].settings_schema.required.includes('url'));
      const first = await call('GET', '/v1/components?limit=1');
      assert.equal(first.json.data.length, 1);
      assert.equal(first.json.has_more, true);
      const second = await call('GET', `/v1/components?limit=1&last_key=${first.json.last_key}`);
      assert.notEqual(second.json.data[0].id, first.json.data[0].id);
      assert.deepEqual(
        (await call('GET', '/v1/components?subcategory=warehouse')).json.data.map((c: any) => c.slug),
        ['warehouse'],
      );
      assert.equal((await call('GET', '/v1/components?category=data_collection')).json.data.length, 2);
      assert.equal((await call('GET', '/v1/components?category=security')).json.data.length, 0);
      for (const q of ['category=nope', 'subcategory=webhooks', 'limit=abc', 'unknown=1'])
        assert.equal((await call('GET', `/v1/components?${q}`)).status, 400, q);
      assert.deepEqual((await call('GET', `/v1/components/${webhook.id}`)).json, webhook);
      assert.deepEqual((await call('GET', '/v1/components/gateway/webhook')).json, webhook);
      assert.equal((await call('GET', '/v1/components/gateway/nope')).status, 404);
      assert.equal((await call('GET', '/v1/components/00000000-0000-0000-0000-000000000000')).status, 404);
    });

    it('project components: attach, validate settings against the version schema, update per 2.11, delete', async () => {
      const p = await newProject();
      const webhook = (await call('GET', '/v1/components/gateway/webhook')).json;
      const attached = await call('POST', `/v1/projects/${p.id}/components`, {
        component_id: webhook.id,
        settings: { url: 'https://hooks.example.com/in' },
      });
      assert.equal(attached.status, 201, attached.text);
      assert.deepEqual(attached.json, {
        object: 'project_component',
        id: attached.json.id,
        component_id: webhook.id,
        component_slug: 'gateway/webhook',
        component_version: '1.0.0',
        category: 'data_collection',
        subcategory: 'server_side_tagging',
        active: true,
        settings: { url: 'https://hooks.example.com/in' },
      });
      const path = `/v1/projects/${p.id}/components/${attached.json.id}`;
      for (const [body, param] of [
        [{ settings: { url: 'https://x.example.com', batch_size: 0 } }, 'settings.batch_size'],
        [{ settings: { url: 'https://x.example.com', color: 'red' } }, 'settings'],
        [{ settings: null }, 'settings.url'],
        [{ component_version: '9.9.9' }, 'component_version'],
        [{ component_slug: 'gateway/nope' }, 'component_slug'],
        [{ component_id: webhook.id, component_slug: 'gateway/warehouse' }, 'component_slug'],
        [{ settings: { url: 'ftp://x.example.com' } }, 'settings.url'],
      ] as const) {
        const result = await call('POST', path, body);
        assert.equal(result.status, 400, JSON.stringify(body));
        assert.ok(String(result.json.param).startsWith(param), `${JSON.stringify(body)} → ${result.text}`);
      }
      const updated = await call('POST', path, {
        active: false,
        settings: { url: 'https://hooks.example.com/v2', batch_size: 50 },
      });
      assert.equal(updated.status, 200);
      assert.equal(updated.json.active, false);
      assert.deepEqual(updated.json.settings, { url: 'https://hooks.example.com/v2', batch_size: 50 });
      // Switching to another component re-validates the kept settings against its schema.
      assert.equal((await call('POST', path, { component_slug: 'gateway/warehouse' })).status, 400);
      const switched = await call('POST', path, {
        component_slug: 'gateway/warehouse',
        settings: { event_types: ['page'] },
      });
      assert.equal(switched.status, 200);
      assert.equal(switched.json.component_slug, 'gateway/warehouse');
      assert.equal(switched.json.subcategory, 'warehouse');
      assert.deepEqual((await call('GET', path)).json, switched.json);
      assert.equal((await call('GET', `/v1/projects/${p.id}/components`)).json.data.length, 1);
      assert.equal((await call('POST', `/v1/projects/${p.id}/components`, {})).status, 400);
      assert.deepEqual((await call('DELETE', path)).json, {
        object: 'project_component',
        id: attached.json.id,
        deleted: true,
      });
      assert.equal((await call('GET', path)).status, 404);
    });
  });
}
