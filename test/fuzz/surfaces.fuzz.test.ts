import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { startHarness, storeKinds, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { DEFAULT_MODELS } from '../../src/catalogue/default-catalogue.js';
import {
  SEED,
  runs,
  assertConsoleAnswer,
  assertNoLeak,
  describeRequest,
  headers,
  jsonish,
  payload,
  query,
  send,
  weirdString,
  type Payload,
} from './arbitraries.js';
import {
  collectBody,
  componentBody,
  messagesBody,
  messagesCountBody,
  projectBody,
  proxyBody,
  responsesBody,
  tokenBody,
  toolBody,
} from './surface-bodies.js';

/**
 * The request schemas routes.fuzz.test.ts does not reach (issue 9, item 4): the Anthropic- and
 * Responses-shaped gateway routes, every console route but the API-key ones, and the collector.
 * Same properties: never a 5xx, an error is in its surface's envelope, no stack trace leaks.
 * test/fuzz/corpus/routes.json is replayed first. FUZZ_RUNS bounds the random cases (arbitraries.ts).
 */
const RUNS = runs(60);
const CORPUS = join(dirname(fileURLToPath(import.meta.url)), 'corpus', 'routes.json');
const OFFLINE_CONFIG = { models: DEFAULT_MODELS.map((model) => ({ ...model, active: model.id === 'local/echo' })) };
const options = { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true };

// ---- assertions -------------------------------------------------------------------------------

function assertAnthropicAnswer(result: HttpResult, what: string): void {
  assert.ok(result.status < 500, `${what}: ${result.status} ${result.text.slice(0, 300)}`);
  assertNoLeak(result, what);
  if (result.status < 400) return;
  assert.equal(result.json?.type, 'error', `${what}: ${result.text.slice(0, 200)}`);
  assert.equal(typeof result.json.error?.type, 'string', what);
  assert.equal(typeof result.json.error.message, 'string', what);
}
function assertGatewayEnvelope(result: HttpResult, what: string): void {
  assert.ok(result.status < 500, `${what}: ${result.status} ${result.text.slice(0, 300)}`);
  assertNoLeak(result, what);
  if (result.status < 400) return;
  assert.equal(typeof result.json?.error?.message, 'string', `${what}: ${result.text.slice(0, 200)}`);
  assert.equal(typeof result.json.error.type, 'string', what);
}

interface CorpusEntry {
  note: string;
  surface: 'gateway' | 'console' | 'collector';
  method: string;
  path: string;
  body?: unknown;
  raw?: string;
  /** A deeply nested raw body, kept small in the file: before + open × times + inner + close × times + after. */
  deep?: { before: string; open: string; inner: string; close: string; times: number; after: string };
}
const rawOf = (entry: CorpusEntry): string | undefined =>
  entry.deep
    ? entry.deep.before +
      entry.deep.open.repeat(entry.deep.times) +
      entry.deep.inner +
      entry.deep.close.repeat(entry.deep.times) +
      entry.deep.after
    : entry.raw;
const corpus = (JSON.parse(readFileSync(CORPUS, 'utf8')) as { cases: CorpusEntry[] }).cases;

for (const store of storeKinds()) {
  describe(`fuzzed requests on the messages, responses, console and collector routes (${store}, seed ${SEED})`, () => {
    let h: Harness;
    let org: { id: string; token: string; slug: string };
    let key: { id: string; key: string };
    let project: { id: string };
    const domain = 'fuzz-collect.example';
    let collector: ReturnType<typeof collectorClient>;

    before(async () => {
      h = await startHarness({ store, config: OFFLINE_CONFIG, env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: '0' } });
      org = await h.organization();
      key = await h.createKey(org, { name: 'fuzz' });
      const created = await h.console('POST', '/v1/projects', {
        token: org.token,
        body: { slug: 'fuzz', name: 'Fuzz', domains: [domain] },
      });
      assert.equal(created.status, 201, created.text);
      project = created.json;
      collector = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await collector.close();
      await h.stop();
    });

    it('replays test/fuzz/corpus/routes.json', async () => {
      for (const entry of corpus) {
        const raw = rawOf(entry);
        const body: Payload =
          raw !== undefined
            ? { kind: 'raw', text: raw }
            : entry.body !== undefined
              ? { kind: 'json', value: entry.body }
              : { kind: 'none' };
        const path = entry.path.replace('{org}', org.id).replace('{key}', key.id).replace('{project}', project.id);
        if (entry.surface === 'collector') {
          const result = await collector.call(
            entry.method,
            domain,
            body.kind === 'json'
              ? { body: body.value }
              : body.kind === 'raw'
                ? { rawBody: body.text, headers: { 'content-type': 'application/json' } }
                : {},
          );
          assertConsoleAnswer(result, entry.note);
          continue;
        }
        const token = entry.surface === 'gateway' ? key.key : org.token;
        const result = await send(entry.surface === 'gateway' ? h.gateway : h.console, entry.method, path, body, {
          authorization: `Bearer ${token}`,
          'x-api-key': key.key,
        });
        if (entry.surface === 'console') assertConsoleAnswer(result, entry.note);
        else if (path.startsWith('/v1/messages')) assertAnthropicAnswer(result, entry.note);
        else assertGatewayEnvelope(result, entry.note);
      }
    });

    const gatewayRoutes: Array<[string, fc.Arbitrary<unknown>, (r: HttpResult, w: string) => void]> = [
      ['/v1/messages', messagesBody, assertAnthropicAnswer],
      ['/v1/messages/count_tokens', messagesCountBody, assertAnthropicAnswer],
      ['/v1/responses', responsesBody, assertGatewayEnvelope],
    ];
    for (const [path, body, check] of gatewayRoutes) {
      it(`POST ${path} with random bodies and headers`, async () => {
        await fc.assert(
          fc.asyncProperty(
            payload(body),
            headers,
            fc.constantFrom('bearer', 'x-api-key', 'none'),
            async (sent, extra, auth) => {
              const h2: Record<string, string> = { ...extra };
              if (auth === 'bearer') h2.authorization = `Bearer ${key.key}`;
              if (auth === 'x-api-key') h2['x-api-key'] = key.key;
              const result = await send(h.gateway, 'POST', path, sent, h2);
              check(result, describeRequest('POST', path, sent, h2));
            },
          ),
          options,
        );
      });
    }

    /** Path parameters: the real id mostly, or random text. */
    const realOr = (value: () => string) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(null).map(() => value()) }, { weight: 1, arbitrary: weirdString });
    const segment = (value: string) =>
      value === '' ? '%20' : encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));
    const consoleRoutes: Array<{
      method: string;
      path: (p: { org: string; key: string; project: string; x: string }) => string;
      body?: fc.Arbitrary<unknown>;
    }> = [
      { method: 'GET', path: () => '/v1/organizations/me' },
      { method: 'GET', path: ({ org }) => `/v1/organizations/${org}/gateway_tools` },
      { method: 'GET', path: ({ org, x }) => `/v1/organizations/${org}/gateway_tools/${x}` },
      { method: 'POST', path: ({ org, x }) => `/v1/organizations/${org}/gateway_tools/${x}`, body: toolBody },
      { method: 'GET', path: ({ org }) => `/v1/organizations/${org}/usage/summary` },
      { method: 'GET', path: ({ org }) => `/v1/organizations/${org}/usage/keys` },
      { method: 'GET', path: ({ org }) => `/v1/organizations/${org}/logs/export` },
      { method: 'POST', path: () => '/v1/api_tokens', body: tokenBody },
      { method: 'GET', path: () => '/v1/api_tokens' },
      { method: 'GET', path: ({ x }) => `/v1/api_tokens/${x}` },
      { method: 'DELETE', path: ({ x }) => `/v1/api_tokens/${x}` },
      { method: 'POST', path: () => '/v1/projects', body: projectBody },
      { method: 'GET', path: () => '/v1/projects' },
      { method: 'GET', path: ({ project }) => `/v1/projects/${project}` },
      { method: 'POST', path: ({ project }) => `/v1/projects/${project}`, body: projectBody },
      { method: 'GET', path: ({ project }) => `/v1/projects/${project}/events` },
      { method: 'POST', path: ({ project }) => `/v1/projects/${project}/proxy-settings`, body: proxyBody },
      { method: 'GET', path: ({ project }) => `/v1/projects/${project}/proxy-settings` },
      { method: 'GET', path: ({ project }) => `/v1/projects/${project}/proxy-settings/revisions` },
      { method: 'GET', path: ({ project, x }) => `/v1/projects/${project}/proxy-settings/${x}` },
      { method: 'POST', path: ({ project, x }) => `/v1/projects/${project}/proxy-settings/${x}`, body: proxyBody },
      { method: 'POST', path: ({ project }) => `/v1/projects/${project}/components`, body: componentBody },
      { method: 'GET', path: ({ project }) => `/v1/projects/${project}/components` },
      { method: 'GET', path: ({ project, x }) => `/v1/projects/${project}/components/${x}` },
      { method: 'POST', path: ({ project, x }) => `/v1/projects/${project}/components/${x}`, body: componentBody },
      { method: 'DELETE', path: ({ project, x }) => `/v1/projects/${project}/components/${x}` },
      { method: 'GET', path: () => '/v1/components' },
      { method: 'GET', path: ({ x }) => `/v1/components/${x}` },
      { method: 'GET', path: ({ org, x }) => `/v1/components/${org}/${x}` },
    ];

    it(`${consoleRoutes.length} console routes with random path parameters, bodies, query strings and headers`, async () => {
      // A route index and a body shaped for that route (or random JSON), so a counterexample prints as data.
      const routeAndBody = fc
        .nat({ max: consoleRoutes.length - 1 })
        .chain((i) => fc.tuple(fc.constant(i), payload(consoleRoutes[i]!.body ?? jsonish)));
      await fc.assert(
        fc.asyncProperty(
          routeAndBody,
          realOr(() => org.id),
          realOr(() => project.id),
          fc.oneof(weirdString, fc.constantFrom('1', '2', 'gateway_calculator', 'warehouse', 'fuzz')),
          headers,
          query,
          async ([index, shaped], o, p, x, extra, q) => {
            const r = consoleRoutes[index]!;
            const path = r.path({ org: segment(o), key: key.id, project: segment(p), x: segment(x) }) + q;
            const body: Payload = r.method === 'GET' || r.method === 'DELETE' ? { kind: 'none' } : shaped;
            const sent = { ...extra, authorization: `Bearer ${org.token}` };
            const result = await send(h.console, r.method, path, body, sent);
            assertConsoleAnswer(result, describeRequest(r.method, path, body, sent));
            assert.ok(!result.text.includes(key.key), 'a gateway key secret leaked');
          },
        ),
        { ...options, numRuns: RUNS * 3 },
      );
    });

    it('POST /_gateway/event with random bodies, hosts and content types', async () => {
      await fc.assert(
        fc.asyncProperty(
          payload(collectBody),
          fc.oneof(
            { weight: 4, arbitrary: fc.constant(domain) },
            {
              weight: 1,
              arbitrary: fc.constantFrom('unknown.example', 'localhost', `${domain}:443`, domain.toUpperCase()),
            },
          ),
          headers,
          async (sent, host, extra) => {
            const init =
              sent.kind === 'json'
                ? { rawBody: JSON.stringify(sent.value) ?? 'null' }
                : sent.kind === 'raw'
                  ? { rawBody: sent.text }
                  : {};
            const result = await collector.call('POST', host, {
              ...init,
              headers: { 'content-type': 'application/json', ...extra },
            });
            assertConsoleAnswer(result, describeRequest('POST', `/_gateway/event host=${host}`, sent, extra));
          },
        ),
        { ...options, numRuns: RUNS * 2 },
      );
    });
  });
}
