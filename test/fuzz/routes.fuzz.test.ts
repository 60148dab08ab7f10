import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { DEFAULT_MODELS } from '../../src/catalogue/default-catalogue.js';
import {
  RUNS,
  SEED,
  jsonish,
  weirdString,
  chatBody,
  countTokensBody,
  compressBody,
  createKeyBody,
  updateKeyBody,
  type Payload,
  payload,
  headers,
  query,
  assertGatewayAnswer,
  assertConsoleAnswer,
  describeRequest,
  send,
  check,
} from './arbitraries.js';

/**
 * Property-based robustness of every console and gateway route (issue 2 acceptance): random JSON
 * values, real field names with random types, random path parameters, query strings and
 * headers. Whatever is sent, the answer is never a 5xx, an error is in its surface's envelope,
 * and no stack trace or source path leaks. Reproduce a failure with FUZZ_SEED=<seed>.
 */

/** Every built-in model but local/echo is inactive, so no request can reach a real provider. */
const OFFLINE_CONFIG = {
  models: DEFAULT_MODELS.map((model) => ({ ...model, active: model.id === 'local/echo' })),
};

// ---- the properties ---------------------------------------------------------------------------

console.log(`routes.fuzz: seed ${SEED} (rerun with FUZZ_SEED=${SEED}), ${RUNS} runs per route`);

for (const store of storeKinds()) {
  describe(`fuzzed requests never get a 5xx or a stack trace (${store}, seed ${SEED})`, () => {
    let h: Harness;
    let org: { id: string; token: string; slug: string };
    let other: { id: string; token: string; slug: string };
    let key: { id: string; key: string };
    let gatewayRoutes: string[];
    before(async () => {
      h = await startHarness({ store, config: OFFLINE_CONFIG });
      org = await h.organization();
      other = await h.organization();
      key = await h.createKey(org, { name: 'fuzz' });
      gatewayRoutes = [];
      for (const path of ['/v1/chat/completions', '/v1/count_tokens', '/v1/compress']) {
        if ((await h.gateway('POST', path, { token: key.key, body: {} })).status !== 404) gatewayRoutes.push(path);
      }
    });
    after(async () => h.stop());

    /** The gateway credential: the real key mostly, else something wrong. */
    const gatewayAuth = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('bearer', 'basic', 'x-api-key') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'garbage', 'console-token') },
    );
    function gatewayHeaders(auth: string, extra: Record<string, string>): Record<string, string> {
      const result = { ...extra };
      if (auth === 'bearer') result.authorization = `Bearer ${key.key}`;
      if (auth === 'basic') result.authorization = `Basic ${Buffer.from(`${key.key}:`).toString('base64')}`;
      if (auth === 'x-api-key') result['x-api-key'] = key.key;
      if (auth === 'garbage') result.authorization = 'Bearer gw-nope';
      if (auth === 'console-token') result.authorization = `Bearer ${org.token}`;
      return result;
    }

    it('GET /v1/models with random query strings, headers and credentials', async () => {
      await check(
        fc.asyncProperty(query, headers, gatewayAuth, async (q, extra, auth) => {
          const sent = gatewayHeaders(auth, extra);
          const result = await h.gateway('GET', `/v1/models${q}`, { headers: sent });
          assertGatewayAnswer(result, describeRequest('GET', `/v1/models${q}`, { kind: 'none' }, sent));
        }),
      );
    });

    const gatewayBodies: Record<string, fc.Arbitrary<unknown>> = {
      '/v1/chat/completions': chatBody,
      '/v1/count_tokens': countTokensBody,
      '/v1/compress': compressBody,
    };
    for (const path of Object.keys(gatewayBodies)) {
      it(`POST ${path} with random bodies, field types, headers and credentials`, async (t) => {
        if (!gatewayRoutes.includes(path)) return t.skip(`${path} is not built yet`);
        const property = fc.asyncProperty(
          payload(gatewayBodies[path]!),
          headers,
          gatewayAuth,
          query,
          async (body, extra, auth, q) => {
            const sent = gatewayHeaders(auth, extra);
            const result = await send(h.gateway, 'POST', `${path}${q}`, body, sent);
            assertGatewayAnswer(result, describeRequest('POST', `${path}${q}`, body, sent));
          },
        );
        // Found by this test once; kept as a fixed example so it stays covered whatever the seed.
        const found: Payload = {
          kind: 'json',
          value: {
            model: 'local/echo',
            messages: [{ role: 'user', content: 'hi' }],
            compression_model: [{ toString: null }],
          },
        };
        await fc.assert(property, {
          numRuns: RUNS,
          seed: SEED,
          endOnFailure: true,
          includeErrorInReport: true,
          examples: [[found, {}, 'bearer', '']],
        });
      });
    }

    /** Path parameters: the caller's org, another org, the real key, or random text. */
    const orgId = () =>
      fc.oneof(
        { weight: 4, arbitrary: fc.constant(org.id) },
        { weight: 1, arbitrary: fc.constant(other.id) },
        { weight: 2, arbitrary: weirdString },
      );
    const keyId = () => fc.oneof({ weight: 3, arbitrary: fc.constant(key.id) }, { weight: 2, arbitrary: weirdString });
    const segment = (value: string) =>
      value === '' ? '%20' : encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));
    const consoleAuth = fc.oneof(
      { weight: 6, arbitrary: fc.constant('token') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'gateway-key', 'garbage') },
    );
    function consoleHeaders(auth: string, extra: Record<string, string>): Record<string, string> {
      const result = { ...extra };
      if (auth === 'token') result.authorization = `Bearer ${org.token}`;
      if (auth === 'gateway-key') result.authorization = `Bearer ${key.key}`;
      if (auth === 'garbage') result.authorization = 'Bearer gwc_nope';
      return result;
    }

    const consoleRoutes: Array<{
      name: string;
      method: string;
      path: (o: string, k: string) => string;
      body?: fc.Arbitrary<unknown>;
    }> = [
      { name: 'create', method: 'POST', path: (o) => `/v1/organizations/${o}/api_keys`, body: createKeyBody },
      { name: 'list', method: 'GET', path: (o) => `/v1/organizations/${o}/api_keys` },
      { name: 'get', method: 'GET', path: (o, k) => `/v1/organizations/${o}/api_keys/${k}` },
      { name: 'update', method: 'POST', path: (o, k) => `/v1/organizations/${o}/api_keys/${k}`, body: updateKeyBody },
      { name: 'reveal', method: 'GET', path: (o, k) => `/v1/organizations/${o}/api_keys/${k}/reveal` },
      // Last: a successful delete removes the key the other routes aim at.
      { name: 'delete', method: 'DELETE', path: (o, k) => `/v1/organizations/${o}/api_keys/${k}` },
    ];
    for (const route of consoleRoutes) {
      it(`console ${route.name} (${route.method}) with random path parameters, bodies, query strings and headers`, async () => {
        await check(
          fc.asyncProperty(
            orgId(),
            keyId(),
            payload(route.body ?? jsonish),
            headers,
            consoleAuth,
            query,
            async (o, k, body, extra, auth, q) => {
              const path = route.path(segment(o), segment(k)) + q;
              const sent = consoleHeaders(auth, extra);
              const sentBody: Payload = route.method === 'GET' ? { kind: 'none' } : body;
              const result = await send(h.console, route.method, path, sentBody, sent);
              assertConsoleAnswer(result, describeRequest(route.method, path, sentBody, sent));
              if (route.name !== 'reveal' && route.name !== 'create')
                assert.ok(!result.text.includes(key.key), 'the secret appears outside create and reveal');
            },
          ),
        );
      });
    }
  });
}
