import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { collectorClient } from '../support/collector-client.js';
import { sseData, streamedText, waitFor } from '../support/chat-kit.js';
import { DEFAULT_TEXT, startMockAgentUpstream, type MockUpstream } from '../support/mock-upstreams/index.js';
import { ensureWebBuilt } from '../support/web-build.js';
import { launchChromium, openTab, skipWithoutChromium } from '../e2e/browser.js';
import { countRequestTokens } from '../../src/tokenize/index.js';
import { LISTENERS, startShipped, type ShippedService } from './shipped-service.js';

/**
 * Every route family of the three listeners, served by the built artifact (`npm start`'s command
 * line on dist/bundle/) and nothing else: the test suite's other files run src/ through tsx, which
 * never sees what bundling breaks (a module reading files next to itself, a CommonJS package's
 * named exports). One process, many requests.
 */
const OPENAI_MODEL = 'openai/gpt-4o-shipped';
const ANTHROPIC_MODEL = 'anthropic/claude-shipped';
const PRICING = { input_per_mtok: 2.5, output_per_mtok: 10 };
const SHOP = 'shop.localhost';
const hello = [{ role: 'user', content: 'Hello' }];

/** Text of an Anthropic Messages stream's text deltas. */
const messagesStreamText = (events: any[]) =>
  events
    .filter((e) => e.type === 'content_block_delta' && e.delta?.type === 'text_delta')
    .map((e) => e.delta.text as string)
    .join('');
/** Text of an OpenAI Responses stream's output text deltas. */
const responsesStreamText = (events: any[]) =>
  events
    .filter((e) => e.type === 'response.output_text.delta')
    .map((e) => e.delta as string)
    .join('');

describe('the built artifact serves every route family (npm start, SQLite)', () => {
  let mock: MockUpstream;
  let service: ShippedService;
  let key: string;
  let projectId = '';

  before(async () => {
    ensureWebBuilt();
    mock = await startMockAgentUpstream({ apiKey: 'sk-shipped' });
    service = await startShipped({
      config: {
        providers: [
          {
            id: 'mock-openai',
            kind: 'openai',
            base_url: mock.baseUrl,
            api_key_env: 'MOCK_PROVIDER_KEY',
            responses_api: true,
          },
          { id: 'mock-anthropic', kind: 'anthropic', base_url: mock.baseUrl, api_key_env: 'MOCK_PROVIDER_KEY' },
        ],
        models: [
          { id: OPENAI_MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o' }], pricing: PRICING },
          {
            id: ANTHROPIC_MODEL,
            providers: [{ provider: 'mock-anthropic', model: 'claude-sonnet-4-5' }],
            pricing: PRICING,
          },
        ],
      },
      // Development mode: the collector test's project claims a local name without proof.
      env: { MOCK_PROVIDER_KEY: 'sk-shipped', GATEWAY_ENV: 'development' },
    });
    key = (await service.createKey()).key;
  });
  after(async () => {
    const stopped = await service?.stop();
    await mock?.close();
    assert.deepEqual(stopped, { code: 0, signal: null }, 'SIGTERM ends the process cleanly');
  });

  const gateway = (path: string, body: unknown) => service.call('gateway', 'POST', path, { token: key, body });
  const consoleApi = (method: string, path: string, body?: unknown) =>
    service.call('console', method, path, { token: service.org.token, body });

  describe('API documents and metrics on each listener', () => {
    for (const listener of LISTENERS) {
      it(`${listener}: /openapi.json is the listener's OpenAPI 3.1 document`, async () => {
        const document = await service.call(listener, 'GET', '/openapi.json');
        assert.equal(document.status, 200, document.text);
        assert.equal(document.json.openapi, '3.1.0');
        const expected = { gateway: '/v1/chat/completions', console: '/v1/projects', collector: '/_gateway/event' };
        assert.ok(
          Object.keys(document.json.paths).includes(expected[listener]),
          Object.keys(document.json.paths).join(),
        );
      });

      it(`${listener}: /docs serves Swagger UI and every file its page loads`, async () => {
        const page = await service.call(listener, 'GET', '/docs');
        assert.equal(page.status, 200, page.text);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        const assets = [...page.text.matchAll(/(?:src|href)="(\/docs\/static\/[^"]+)"/g)].map((m) => m[1]!);
        assert.ok(
          assets.some((asset) => asset.endsWith('swagger-ui-bundle.js')),
          page.text,
        );
        for (const asset of assets) {
          const file = await service.call(listener, 'GET', asset);
          assert.equal(file.status, 200, asset);
          assert.ok(file.text.length > 0, asset);
        }
      });

      it(`${listener}: /metrics is Prometheus text with the gateway's own metrics`, async () => {
        const metrics = await service.call(listener, 'GET', '/metrics');
        assert.equal(metrics.status, 200);
        assert.match(String(metrics.headers['content-type']), /^text\/plain/);
        assert.match(metrics.text, /^gateway_http_requests_total\{/m);
      });
    }
  });

  describe('gateway /v1', () => {
    it('models: local/echo and the configured models', async () => {
      const models = await service.call('gateway', 'GET', '/v1/models', { token: key });
      assert.equal(models.status, 200, models.text);
      const ids = models.json.data.map((m: { id: string }) => m.id);
      for (const id of ['local/echo', OPENAI_MODEL, ANTHROPIC_MODEL]) assert.ok(ids.includes(id), ids.join());
    });

    it('chat completions on local/echo, JSON and SSE', async () => {
      const json = await gateway('/v1/chat/completions', { model: 'local/echo', messages: hello });
      assert.equal(json.status, 200, json.text);
      assert.equal(json.json.choices[0].message.content, 'Echo: Hello');
      const stream = await gateway('/v1/chat/completions', { model: 'local/echo', messages: hello, stream: true });
      assert.equal(stream.status, 200, stream.text);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      const events = sseData(stream.text);
      assert.equal(events.at(-1), '[DONE]');
      assert.equal(streamedText(events), 'Echo: Hello');
    });

    it('chat completions on a mock OpenAI upstream, JSON and SSE', async () => {
      const json = await gateway('/v1/chat/completions', { model: OPENAI_MODEL, messages: hello });
      assert.equal(json.status, 200, json.text);
      assert.equal(json.headers['x-gateway-provider'], 'mock-openai');
      assert.equal(json.json.choices[0].message.content, DEFAULT_TEXT);
      const stream = await gateway('/v1/chat/completions', { model: OPENAI_MODEL, messages: hello, stream: true });
      assert.equal(stream.status, 200, stream.text);
      assert.equal(streamedText(sseData(stream.text)), DEFAULT_TEXT);
      assert.equal(mock.lastRequest()?.path, '/v1/chat/completions');
    });

    it('/v1/messages: passed through to an Anthropic upstream (JSON and SSE) and translated for local/echo', async () => {
      const body = { model: ANTHROPIC_MODEL, max_tokens: 100, messages: hello };
      const json = await gateway('/v1/messages', body);
      assert.equal(json.status, 200, json.text);
      assert.equal(json.json.type, 'message');
      assert.equal(json.json.content[0].text, DEFAULT_TEXT);
      const stream = await gateway('/v1/messages', { ...body, stream: true });
      assert.equal(stream.status, 200, stream.text);
      assert.equal(messagesStreamText(sseData(stream.text)), DEFAULT_TEXT);
      assert.match(mock.lastRequest()!.path, /^\/v1\/messages/);
      const echo = await gateway('/v1/messages', { ...body, model: 'local/echo' });
      assert.equal(echo.status, 200, echo.text);
      assert.equal(echo.json.content[0].text, 'Echo: Hello');
    });

    it('/v1/responses: passed through to an OpenAI upstream (JSON and SSE) and translated for local/echo', async () => {
      const json = await gateway('/v1/responses', { model: OPENAI_MODEL, input: 'Hello' });
      assert.equal(json.status, 200, json.text);
      assert.equal(json.json.object, 'response');
      assert.ok(json.text.includes(DEFAULT_TEXT), json.text);
      assert.equal(mock.lastRequest()?.path, '/v1/responses');
      const stream = await gateway('/v1/responses', { model: OPENAI_MODEL, input: 'Hello', stream: true });
      assert.equal(stream.status, 200, stream.text);
      assert.equal(responsesStreamText(sseData(stream.text)), DEFAULT_TEXT);
      const echo = await gateway('/v1/responses', { model: 'local/echo', input: 'Hello', stream: true });
      assert.equal(echo.status, 200, echo.text);
      assert.equal(responsesStreamText(sseData(echo.text)), 'Echo: Hello');
    });

    it('count_tokens, inline and on the worker pool (a body past GATEWAY_OFFLOAD_MIN_CHARS), as the tokenizer counts', async () => {
      const small = { messages: hello };
      const counted = await gateway('/v1/count_tokens', { model: 'openai/gpt-4o', ...small });
      assert.equal(counted.status, 200, counted.text);
      assert.equal(counted.json.input_tokens, countRequestTokens(small, 'o200k_base'));
      // 70,000 characters: counted on a pool thread, started from the bundle's worker entry.
      const big = { messages: [{ role: 'user', content: 'shipped artifact '.repeat(4_200) }] };
      const pooled = await gateway('/v1/count_tokens', { model: 'openai/gpt-4o', ...big });
      assert.equal(pooled.status, 200, pooled.text);
      assert.equal(pooled.json.input_tokens, countRequestTokens(big, 'o200k_base'));
      const anthropic = await gateway('/v1/messages/count_tokens', { model: ANTHROPIC_MODEL, messages: hello });
      assert.equal(anthropic.status, 200, anthropic.text);
      assert.ok(Number.isInteger(anthropic.json.input_tokens) && anthropic.json.input_tokens > 0, anthropic.text);
    });

    it('compress: a long tool output shrinks, the body keeps its shape', async () => {
      const output = Array.from({ length: 400 }, (_, i) => `line ${i}: build step ${i % 7} finished`).join('\n');
      const body = {
        model: OPENAI_MODEL,
        messages: [
          { role: 'user', content: 'Run the build' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: output },
          { role: 'user', content: 'Summarise' },
        ],
      };
      const compressed = await gateway('/v1/compress', body);
      assert.equal(compressed.status, 200, compressed.text);
      assert.equal(compressed.json.messages.length, 4);
      assert.ok(
        compressed.json.compression.compressed_input_tokens < compressed.json.compression.uncompressed_input_tokens,
        JSON.stringify(compressed.json.compression),
      );
    });

    it("refusals come in each surface's own envelope", async () => {
      const chat = await gateway('/v1/chat/completions', { model: 'local/echo', messages: 'not a list' });
      assert.equal(chat.status, 400, chat.text);
      assert.equal(chat.json.error.type, 'invalid_request_error');
      const messages = await gateway('/v1/messages', { model: 'local/echo', messages: hello });
      assert.equal(messages.status, 400, messages.text);
      assert.equal(messages.json.type, 'error');
      assert.equal(messages.json.error.type, 'invalid_request_error');
      const anonymous = await service.call('gateway', 'GET', '/v1/models');
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.json.error.code, 'unauthorized');
    });
  });

  describe('console /v1', () => {
    it('keys: the bootstrap token lists the key it made, and reveals it', async () => {
      const keys = await consoleApi('GET', `/v1/organizations/${service.org.id}/api_keys`);
      assert.equal(keys.status, 200, keys.text);
      assert.deepEqual(
        keys.json.data.map((k: { name: string }) => k.name),
        ['shipped key'],
      );
      const revealed = await consoleApi(
        'GET',
        `/v1/organizations/${service.org.id}/api_keys/${keys.json.data[0].id}/reveal`,
      );
      assert.equal(revealed.json.key, key);
    });

    it('tokens: a read token is made, listed, reads and cannot write', async () => {
      const made = await consoleApi('POST', '/v1/api_tokens', { name: 'reader', permission: 'read' });
      assert.equal(made.status, 201, made.text);
      const listed = await consoleApi('GET', '/v1/api_tokens');
      assert.ok(
        listed.json.data.some((t: { id: string }) => t.id === made.json.id),
        listed.text,
      );
      const path = `/v1/organizations/${service.org.id}/api_keys`;
      assert.equal((await service.call('console', 'GET', path, { token: made.json.token })).status, 200);
      const refused = await service.call('console', 'POST', path, { token: made.json.token, body: { name: 'no' } });
      assert.equal(refused.status, 403, refused.text);
    });

    it('projects, components and proxy settings', async () => {
      const project = await consoleApi('POST', '/v1/projects', { slug: 'shop', name: 'Shop', domains: [SHOP] });
      assert.equal(project.status, 201, project.text);
      projectId = project.json.id;
      const domains = await consoleApi('GET', `/v1/projects/${projectId}/domains`);
      assert.equal(domains.json.data[0].status, 'verified', domains.text);

      const components = await consoleApi('GET', '/v1/components');
      assert.equal(components.status, 200, components.text);
      assert.ok(
        components.json.data.some((c: { slug?: string; component_slug?: string }) =>
          JSON.stringify(c).includes('warehouse'),
        ),
        components.text,
      );
      const attached = await consoleApi('POST', `/v1/projects/${projectId}/components`, {
        component_slug: 'gateway/warehouse',
      });
      assert.equal(attached.status, 201, attached.text);

      const revision = await consoleApi('POST', `/v1/projects/${projectId}/proxy-settings`, {
        is_active: true,
        backends: [{ name: 'origin', address: 'origin.example.com:443', default: true }],
        routes: [{ path: '^/api/v[0-9]+/', regex: true, backend_name: 'origin' }],
      });
      assert.equal(revision.status, 201, revision.text);
      const active = await consoleApi('GET', `/v1/projects/${projectId}/proxy-settings`);
      assert.equal(active.json.revision, 1, active.text);
      assert.equal(active.json.routes[0].backend_name, 'origin');
    });

    it('usage export: a CSV row for each metered request', async () => {
      const path = `/v1/organizations/${service.org.id}/logs/export?period=1h&format=csv`;
      const csv = await waitFor(
        async () => {
          const exported = await consoleApi('GET', path);
          return exported.text.includes(ANTHROPIC_MODEL) && exported.text.includes('local/echo') && exported;
        },
        { what: 'the usage rows in the export' },
      );
      assert.equal(csv.status, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      assert.equal(csv.text.split('\n')[0], 'Timestamp,API Key,Model,Provider,Input Tokens,Output Tokens,Cost,Tags');
    });
  });

  describe('collector POST /_gateway/event', () => {
    it("takes an event for a project's verified domain, and its warehouse stores it", async () => {
      assert.ok(projectId, 'the console test made the project');
      const collector = collectorClient(service.serve.urls.collector, service.ca);
      try {
        const unknown = await collector.call('POST', 'nobody.localhost', { body: { data_collection: { events: [] } } });
        assert.equal(unknown.status, 404);
        const sent = await collector.call('POST', SHOP, {
          body: { data_collection: { events: [{ type: 'track', id: 'shipped-1', data: { name: 'signup' } }] } },
        });
        assert.equal(sent.status, 202, sent.text);
      } finally {
        await collector.close();
      }
      const stored = await waitFor(
        async () => {
          const events = await consoleApi('GET', `/v1/projects/${projectId}/events`);
          return events.json.data.length > 0 && events.json.data;
        },
        { what: 'the warehouse to store the event' },
      );
      assert.equal(stored[0].id, 'shipped-1');
      assert.equal(stored[0].data.name, 'signup');
    });
  });

  describe('the web console and /docs in Chromium', { skip: skipWithoutChromium }, () => {
    it('signs in with the bootstrap token and lists the key; Swagger UI renders the gateway document', async () => {
      const browser = await launchChromium();
      try {
        const errors: string[] = [];
        const { page } = await openTab(browser, errors);
        await page.goto(`${service.serve.urls.console}/sign-in`);
        await page.fill('input[name=token]', service.org.token);
        await page.click('button[type=submit]');
        await page.waitForURL('**/keys');
        await page.locator('[data-testid=key-row][data-key-name="shipped key"]').waitFor();

        // Swagger UI's script renders the operations of the listener's own document.
        await page.goto(`${service.serve.urls.gateway}/docs`);
        await page.getByText('/v1/chat/completions').first().waitFor();
        assert.deepEqual(errors, [], 'no script error or blocked resource');
      } finally {
        await browser.close();
      }
    });
  });

  it('logged no server error while serving all of the above', () => {
    assert.deepEqual(service.errorLines(), []);
  });
});
