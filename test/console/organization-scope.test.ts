import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';

/** Path parameters other than the organization, filled with values of the right shape. */
const SAMPLE_PARAMS: Record<string, string> = {
  apiKeyId: '00000000-0000-4000-8000-000000000000',
  toolId: 'gateway_calculator',
};

/**
 * Organization scoping is one hook (src/console/auth/console-auth.ts), not a check each route
 * must remember: every route of the console's OpenAPI document with an `{orgId}` in its path,
 * called with another organization's token, is refused with 403 — including routes added later.
 */
describe('console organization scope', () => {
  let h: Harness;
  let mine: { id: string; token: string };
  let theirs: { id: string; token: string };
  let scoped: Array<{ method: string; path: string }>;

  before(async () => {
    h = await startHarness();
    mine = await h.organization();
    theirs = await h.organization();
    const document = (await h.console('GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    scoped = Object.entries(document.paths)
      .filter(([path]) => path.includes('{orgId}'))
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map((method) => ({ method: method.toUpperCase(), path })),
      );
  });
  after(() => h.stop());

  const fill = (path: string, orgId: string) =>
    path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
      name === 'orgId' ? orgId : (SAMPLE_PARAMS[name] ?? 'x'),
    );

  it('finds the organization routes in the OpenAPI document', () => {
    assert.ok(scoped.length >= 13, `only ${scoped.length} organization routes documented`);
  });

  it("refuses every organization route for another organization's token with 403", async () => {
    for (const { method, path } of scoped) {
      const result = await h.console(method, fill(path, mine.id), {
        token: theirs.token,
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      assert.equal(result.status, 403, `${method} ${path}: ${result.status} ${result.text.slice(0, 200)}`);
      assert.match(result.json.message, /does not belong to that organization/);
    }
  });

  it('lets a token through to its own organization (the route itself answers)', async () => {
    for (const { method, path } of scoped) {
      const result = await h.console(method, fill(path, mine.id), {
        token: mine.token,
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      assert.notEqual(result.status, 403, `${method} ${path}: ${result.text.slice(0, 200)}`);
    }
  });
});
