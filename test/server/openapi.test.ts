import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { registeredRoutes } from '../../src/server/api-docs.js';

const SURFACES = ['gateway', 'console', 'collector'] as const;

/** `/v1/projects/:id/events` → `/v1/projects/{id}/events`, as @fastify/swagger writes paths. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('OpenAPI documents', () => {
  let h: Harness;
  const documents: Partial<Record<(typeof SURFACES)[number], any>> = {};

  before(async () => {
    h = await startHarness();
    for (const surface of SURFACES) {
      const result = await h[surface]('GET', '/openapi.json');
      assert.equal(result.status, 200, `${surface}: ${result.text.slice(0, 200)}`);
      assert.match(String(result.headers['content-type']), /^application\/json/);
      documents[surface] = result.json;
    }
  });
  after(() => h.stop());

  for (const surface of SURFACES) {
    it(`the ${surface} document is valid OpenAPI 3.1`, async () => {
      const document = documents[surface];
      assert.equal(document.openapi, '3.1.0');
      const validator = new Validator();
      const result = await validator.validate(document);
      assert.equal(validator.version, '3.1');
      assert.ok(result.valid, `${surface}: ${JSON.stringify(result.errors, null, 2)?.slice(0, 2000)}`);
    });

    it(`every route the ${surface} listener registers is in its document`, () => {
      const document = documents[surface];
      const routes = registeredRoutes(h.running.apps[surface]).filter(
        (route) => !route.hidden && route.method !== 'HEAD',
      );
      assert.ok(routes.length >= 2, 'at least /openapi.json and /metrics');
      const missing = routes.filter(
        (route) => !document.paths?.[toOpenApiPath(route.url)]?.[route.method.toLowerCase()],
      );
      assert.deepEqual(missing, [], `routes missing from the ${surface} document`);
      // And the other way: the document describes nothing that is not served.
      const served = new Set(routes.map((route) => `${route.method.toLowerCase()} ${toOpenApiPath(route.url)}`));
      for (const [path, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
        for (const method of Object.keys(operations).filter((m) =>
          ['get', 'post', 'put', 'patch', 'delete'].includes(m),
        )) {
          assert.ok(
            served.has(`${method} ${path}`),
            `${method.toUpperCase()} ${path} is documented but not registered`,
          );
        }
      }
    });
  }

  it('request schemas in the document are the ones that validate requests', async () => {
    const create = documents.console.paths['/v1/organizations/{orgId}/api_keys'].post;
    const body = create.requestBody.content['application/json'].schema;
    assert.deepEqual(body.required, ['name']);
    assert.equal(body.additionalProperties, false);
    const summary = documents.console.paths['/v1/organizations/{orgId}/usage/summary'].get;
    const groupBy = summary.parameters.find((p: any) => p.name === 'group_by');
    assert.equal(groupBy.in, 'query');
    assert.deepEqual(
      groupBy.schema.anyOf.flatMap((s: any) => s.enum ?? [s.const]),
      ['model', 'provider', 'api_key', 'tag'],
    );
    // The same schema refuses a value it does not list.
    const org = await h.organization();
    const refused = await h.console('GET', `/v1/organizations/${org.id}/usage/summary?group_by=colour`, {
      token: org.token,
    });
    assert.equal(refused.status, 400);
  });

  it('the gateway document covers the model endpoints and asks for a bearer key', () => {
    const gateway = documents.gateway;
    for (const path of ['/v1/chat/completions', '/v1/models', '/v1/count_tokens', '/v1/compress'])
      assert.ok(gateway.paths[path], path);
    assert.equal(gateway.components.securitySchemes.bearer.scheme, 'bearer');
    assert.deepEqual(gateway.security, [{ bearer: [] }]);
    assert.deepEqual(gateway.paths['/openapi.json'].get.security, [], 'the document itself needs no key');
  });

  it('a rendered reference is served at /docs from local files, without a CDN', async () => {
    for (const surface of SURFACES) {
      const page = await h[surface]('GET', '/docs');
      assert.equal(page.status, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.doesNotMatch(
        page.text,
        /https?:\/\/(?!localhost)[a-z0-9.-]+\.[a-z]{2,}\/[^"']*\.(js|css)/i,
        'no script or style from another host',
      );
      const script = /src="(\/docs\/static\/swagger-ui-bundle\.js)"/.exec(page.text);
      assert.ok(script, 'Swagger UI script');
      const asset = await h[surface]('GET', script[1]!);
      assert.equal(asset.status, 200);
      assert.match(String(asset.headers['content-type']), /javascript/);
      const initializer = await h[surface]('GET', '/docs/static/swagger-initializer.js');
      assert.match(initializer.text, /validatorUrl: null/, 'no call to validator.swagger.io');
    }
  });
});
