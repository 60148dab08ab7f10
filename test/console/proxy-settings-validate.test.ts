import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';

/** The dry run the web console calls while a revision is being typed: the create route's checks, nothing stored. */
describe('POST /v1/projects/{id}/proxy-settings/validate', () => {
  let h: Harness;
  let org: { id: string; token: string };
  let projectId: string;
  const backends = [{ name: 'origin', address: 'origin.example.com:443', default: true }];

  before(async () => {
    h = await startHarness();
    org = await h.organization();
    const project = await h.console('POST', '/v1/projects', { token: org.token, body: { slug: 'shop', name: 'Shop' } });
    projectId = project.json.id;
  });
  after(() => h.stop());

  const validate = (body: unknown, token = org.token, id = projectId) =>
    h.console('POST', `/v1/projects/${id}/proxy-settings/validate`, { token, body });

  it('answers a valid draft with its defaults filled in, and stores nothing', async () => {
    const result = await validate({
      backends,
      routes: [{ path: '^/api/v[0-9]+/', regex: true, backend_name: 'origin' }],
    });
    assert.equal(result.status, 200, result.text);
    assert.equal(result.json.valid, true);
    assert.equal(result.json.backends[0].enable_ssl, true);
    assert.equal(result.json.routes[0].rank, '0');
    const revisions = await h.console('GET', `/v1/projects/${projectId}/proxy-settings/revisions`, {
      token: org.token,
    });
    assert.deepEqual(revisions.json.data, []);
  });

  it('refuses what creation refuses, naming the member', async () => {
    const cases: Array<[unknown, string]> = [
      [{ backends, routes: [{ path: '^/(a)\\1$', regex: true, backend_name: 'origin' }] }, 'routes[0].path'],
      [{ backends, routes: [{ path: '([a-z]', regex: true, backend_name: 'origin' }] }, 'routes[0].path'],
      [{ backends, routes: [{ path: '/', backend_name: 'nowhere' }] }, 'routes[0].backend_name'],
      [{ backends: [{ name: 'o', address: 'https://origin.example.com', default: true }] }, 'backends[0].address'],
      [{ backends: [{ name: 'o', address: 'a.example.com' }] }, 'backends'],
      [{ backends, routes: [{ path: '/', backend_name: 'origin', country: ['fr'] }] }, 'routes[0].country[0]'],
    ];
    for (const [body, param] of cases) {
      const result = await validate(body);
      assert.equal(result.status, 400, JSON.stringify(body));
      assert.equal(result.json.param, param, result.text);
      const created = await h.console('POST', `/v1/projects/${projectId}/proxy-settings`, {
        token: org.token,
        body,
      });
      assert.deepEqual([created.status, created.json.param], [400, param], 'creation refuses it the same way');
    }
  });

  it('is scoped to the organization and needs a write token', async () => {
    const other = await h.organization();
    assert.equal((await validate({ backends }, other.token)).status, 404);
    const reader = await h.organization(undefined, 'read');
    assert.equal((await validate({ backends }, reader.token)).status, 403);
  });
});
