import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { compileRoutePattern } from '../../src/console/proxy/route-pattern.js';

/**
 * Issue 16, row 7: proxy-settings regex routes such as `(a|aa)+` and `(.*a){12}` passed the
 * old star-height heuristic and backtrack catastrophically in JavaScript's RegExp (`(a|aa)+$`
 * against 40 a's and a b takes minutes). Route patterns are now compiled and matched by RE2
 * (re2js), linear in the input whatever the pattern; what RE2 cannot run in linear time
 * (back-references, lookaround) is a 400 naming the route.
 */
const ACCEPTED = ['(a|aa)+$', '(.*a){12}', '^(a+)+$', '^/(x+x+)+y'];
const REFUSED = ['^/(?=api)', '^/(?!admin)', '(?<=/v1)/x', '(a)\\1', '\\k<n>'];

describe('proxy route patterns run on a linear-time engine (issue 16 row 7)', () => {
  let h: Harness;
  let token: string;
  let projectId: string;
  before(async () => {
    h = await startHarness();
    token = (await h.organization()).token;
    const project = await h.console('POST', '/v1/projects', {
      token,
      body: { slug: 'redos', name: 'ReDoS', domains: ['redos.example'] },
    });
    assert.equal(project.status, 201, project.text);
    projectId = project.json.id;
  });
  after(async () => h.stop());

  const revision = (paths: string[]) =>
    h.console('POST', `/v1/projects/${projectId}/proxy-settings`, {
      token,
      body: {
        backends: [{ name: 'origin', address: 'origin.example.com:443', default: true }],
        routes: paths.map((path) => ({ path, regex: true, backend_name: 'origin' })),
      },
    });

  it('patterns that backtrack catastrophically in RegExp are stored, and match adversarial paths in linear time', async () => {
    const created = await revision(ACCEPTED);
    assert.equal(created.status, 201, created.text);
    const stored = await h.console('GET', `/v1/projects/${projectId}/proxy-settings/${created.json.revision}`, {
      token,
    });
    const paths = (stored.json.routes as Array<{ path: string }>).map((r) => r.path);
    assert.deepEqual(paths, ACCEPTED);
    // Each would run for minutes or more in a backtracking engine; RE2 answers in milliseconds.
    const adversarial = ['a'.repeat(100_000) + 'b', '/' + 'x'.repeat(100_000)];
    for (const path of paths) {
      const pattern = compileRoutePattern(path);
      for (const input of adversarial) assert.equal(typeof pattern.test(input), 'boolean');
    }
    assert.equal(compileRoutePattern('(a|aa)+$').test('a'.repeat(100_000) + 'b'), false);
    assert.equal(compileRoutePattern('(.*a){12}').test('a'.repeat(100_000)), true);
  });

  it('a pattern RE2 refuses (lookaround, back-reference) is a 400 naming the route', async () => {
    for (const [i, path] of REFUSED.entries()) {
      const routes = ['^/ok/', path];
      const result = await revision(routes);
      assert.equal(result.status, 400, `${path}: ${result.text}`);
      assert.equal(result.json.error, 'Bad Request');
      assert.equal(result.json.param, 'routes[1].path', `${path} (${i})`);
      assert.match(result.json.message, /^routes\[1\]\.path is not a regular expression RE2 accepts/);
    }
  });
});
