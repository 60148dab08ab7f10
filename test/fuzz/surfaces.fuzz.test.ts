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
  fields,
  headers,
  jsonish,
  maybe,
  messages,
  payload,
  query,
  send,
  tools,
  weirdString,
  type Payload,
} from './arbitraries.js';

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

// ---- bodies -----------------------------------------------------------------------------------

const block = fields({
  type: maybe('text', 'image', 'tool_use', 'tool_result', 'thinking', 'document'),
  text: maybe('hi'),
  id: maybe('toolu_1'),
  name: maybe('f'),
  input: jsonish,
  tool_use_id: maybe('toolu_1'),
  content: fc.oneof(maybe('out'), fc.array(fields({ type: maybe('text'), text: maybe('x') }), { maxLength: 2 })),
  source: fields({
    type: maybe('base64', 'url'),
    media_type: maybe('image/png'),
    data: maybe('AAAA'),
    url: maybe('https://x.test/a.png'),
  }),
  cache_control: fields({ type: maybe('ephemeral') }),
});
const anthropicMessage = fields({
  role: maybe('user', 'assistant'),
  content: fc.oneof(maybe('hello', ''), fc.array(block, { maxLength: 3 })),
});
const messagesBody = fields({
  model: maybe('local/echo', 'echo', 'claude-sonnet-4-5', 'no/such'),
  max_tokens: maybe(1, 16, 0, -1, 1.5),
  messages: fc.oneof(
    { weight: 3, arbitrary: fc.array(anthropicMessage, { maxLength: 3 }) },
    { weight: 1, arbitrary: messages },
  ),
  system: fc.oneof(maybe('be brief'), fc.array(fields({ type: maybe('text'), text: maybe('x') }), { maxLength: 2 })),
  stream: maybe(true, false),
  tools: fc.oneof(
    tools,
    fc.array(fields({ name: maybe('f'), description: maybe('d'), input_schema: maybe({ type: 'object' }) }), {
      maxLength: 2,
    }),
  ),
  tool_choice: fields({ type: maybe('auto', 'any', 'tool', 'none'), name: maybe('f') }),
  metadata: fields({ user_id: maybe('u') }),
  stop_sequences: fc.oneof(jsonish, fc.array(weirdString, { maxLength: 2 })),
  temperature: maybe(0, 1, 2),
  thinking: fields({ type: maybe('enabled', 'disabled'), budget_tokens: maybe(1024, 0) }),
});
const messagesCountBody = fields({
  model: maybe('local/echo', 'claude-sonnet-4-5'),
  messages: fc.array(anthropicMessage, { maxLength: 3 }),
  system: maybe('s'),
  tools,
});
const inputItem = fields({
  type: maybe('message', 'function_call', 'function_call_output', 'reasoning', 'input_text'),
  role: maybe('user', 'assistant', 'system', 'developer'),
  content: fc.oneof(
    maybe('hi'),
    fc.array(
      fields({
        type: maybe('input_text', 'output_text', 'input_image'),
        text: maybe('x'),
        image_url: maybe('https://x.test/i.png'),
      }),
      { maxLength: 2 },
    ),
  ),
  call_id: maybe('c1'),
  name: maybe('f'),
  arguments: maybe('{}', '{"a":'),
  output: fc.oneof(maybe('y'), jsonish),
});
const responsesBody = fields({
  model: maybe('local/echo', 'echo', 'gpt-5', 'no/such'),
  input: fc.oneof(maybe('hi', ''), fc.array(inputItem, { maxLength: 3 })),
  instructions: maybe('be brief'),
  stream: maybe(true, false),
  max_output_tokens: maybe(16, 0, -1),
  tools: fc.oneof(
    jsonish,
    fc.array(
      fields({ type: maybe('function', 'web_search'), name: maybe('f'), parameters: maybe({ type: 'object' }) }),
      { maxLength: 2 },
    ),
  ),
  tool_choice: fc.oneof(maybe('auto', 'none', 'required'), fields({ type: maybe('function'), name: maybe('f') })),
  reasoning: fields({ effort: maybe('low', 'high', 'max') }),
  text: fields({ format: fields({ type: maybe('text', 'json_schema') }) }),
  store: maybe(true, false),
  previous_response_id: maybe('resp_1'),
});
const tokenBody = fields({
  name: maybe('t', '', 'x'.repeat(201)),
  permission: maybe('read', 'write', 'admin'),
  expires_in_days: maybe(1, 0, 3651),
});
const projectBody = fields({
  slug: maybe('p1', 'Bad Slug', ''),
  name: maybe('P', ''),
  domains: fc.oneof(jsonish, fc.array(maybe('a.example', 'UPPER.example', 'bad_domain', ''), { maxLength: 3 })),
});
const backend = fields({
  name: maybe('api', 'bad name'),
  url: maybe('https://api.example', 'http://127.0.0.1:1', 'ftp://x', 'not a url'),
  headers: jsonish,
});
const proxyBody = fields({
  backends: fc.oneof(jsonish, fc.array(backend, { maxLength: 2 })),
  routes: fc.oneof(
    jsonish,
    fc.array(fields({ path: maybe('/api/*', '', 'no-slash'), backend: maybe('api'), strip_prefix: maybe(true) }), {
      maxLength: 2,
    }),
  ),
  comment: maybe('c'),
});
const componentBody = fields({
  component: maybe('warehouse', 'webhook', 'nope'),
  component_id: maybe('x'),
  version: maybe('1', 'latest'),
  config: fields({ url: maybe('https://hook.example', 'http://10.0.0.1/'), secret: maybe('s') }),
  active: maybe(true),
});
const toolBody = fields({
  active: maybe(true, false),
  hydrate: maybe(true, false),
  api_key_ids: fc.oneof(jsonish, fc.array(weirdString, { maxLength: 2 })),
  config: jsonish,
});
const event = fields({
  id: maybe('evt_1', '', 'x'.repeat(300)),
  type: maybe('page', 'track', 'identify', 'nope'),
  event: maybe('signup'),
  timestamp: maybe<unknown>('2026-01-01T00:00:00Z', 'yesterday', 0),
  data: jsonish,
  anonymous_id: maybe('a'),
  user_id: maybe('u'),
});
const collectBody = fc.oneof(
  {
    weight: 3,
    arbitrary: fields({
      data_collection: fields({
        events: fc.oneof(fc.array(event, { minLength: 1, maxLength: 3 }), jsonish),
        context: jsonish,
      }),
    }),
  },
  { weight: 1, arbitrary: jsonish },
);

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
