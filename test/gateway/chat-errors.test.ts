import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, assertGatewayError, closedPort, header, usageRowOf } from '../support/chat-kit.js';

const user = (content = 'Hi') => [{ role: 'user', content }];

describe('chat completions: validation and upstream errors in the gateway envelope', () => {
  let h: Harness;
  let mock: MockUpstream;
  let token: string;
  let restrictedToken: string;

  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'sk-mock-upstream' });
    const dead = await closedPort();
    h = await startHarness({
      config: {
        providers: [
          { id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
          {
            id: 'dead-openai',
            kind: 'openai',
            base_url: `http://127.0.0.1:${dead}/v1`,
            api_key_env: 'MOCK_OPENAI_KEY',
          },
        ],
        models: [
          {
            id: 'openai/gpt-4o-mini',
            providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }],
            pricing: PRICING,
          },
          { id: 'test/other', providers: [{ provider: 'mock-openai', model: 'other' }], pricing: PRICING },
          {
            id: 'test/inactive',
            providers: [{ provider: 'mock-openai', model: 'inactive' }],
            pricing: PRICING,
            active: false,
          },
          {
            id: 'test/fallback',
            providers: [
              { provider: 'dead-openai', model: 'first-choice' },
              { provider: 'mock-openai', model: 'second-choice' },
            ],
            pricing: PRICING,
          },
        ],
        retry: { max_attempts: 2, base_delay_ms: 10, max_delay_ms: 2000 },
        timeouts: { first_byte_ms: 300 },
      },
      env: { MOCK_OPENAI_KEY: 'sk-mock-upstream' },
    });
    const org = await h.organization();
    token = (await h.createKey(org)).key;
    restrictedToken = (await h.createKey(org, { name: 'restricted', models: ['openai/gpt-4o-mini'] })).key;
  });
  after(async () => {
    await h.stop();
    await mock.close();
  });
  beforeEach(() => mock.reset());

  const chat = (body: unknown, init: { headers?: Record<string, string>; token?: string } = {}) =>
    h.gateway('POST', '/v1/chat/completions', {
      body,
      token: init.token ?? token,
      ...(init.headers ? { headers: init.headers } : {}),
    });

  describe('request validation (nothing reaches the upstream)', () => {
    it('__proto__ and constructor keys are dropped from the body, spelled out or \\u-escaped; the same text in a value is kept', async () => {
      const bodies = [
        '{"model": "openai/gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}], "__proto__": {"admin": true}}',
        '{"model": "openai/gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}], "\\u005f_proto__" : {"admin": true}}',
        '{"model": "openai/gpt-4o-mini", "messages": [{"role": "user", "content": "Hi", "constructor": {"prototype": {"admin": true}}}]}',
      ];
      for (const rawBody of bodies) {
        const result = await h.gateway('POST', '/v1/chat/completions', {
          rawBody,
          token,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(result.status, 200, `${rawBody}: ${result.text}`);
        const forwarded = mock.requests.at(-1)!.body as Record<string, unknown>;
        assert.ok(!Object.prototype.hasOwnProperty.call(forwarded, '__proto__'), rawBody);
        assert.ok(!Object.prototype.hasOwnProperty.call((forwarded.messages as object[])[0], 'constructor'), rawBody);
      }
      const text = 'the "__proto__": and "constructor": keys, and \\u0041';
      const kept = await chat({ model: 'openai/gpt-4o-mini', messages: user(text) });
      assert.equal(kept.status, 200, kept.text);
      assert.equal((mock.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages[0]!.content, text);
    });

    it('malformed JSON is 400 invalid_json', async () => {
      const result = await h.gateway('POST', '/v1/chat/completions', {
        rawBody: '{"model": "openai/gpt-4o-mini", "messages": [',
        token,
        headers: { 'content-type': 'application/json' },
      });
      assertGatewayError(result, { status: 400, code: 'invalid_json', type: 'invalid_request_error', param: null });
    });

    it('an empty messages array is 400 invalid_request naming messages', async () => {
      assertGatewayError(await chat({ model: 'openai/gpt-4o-mini', messages: [] }), {
        status: 400,
        code: 'invalid_request',
        type: 'invalid_request_error',
        param: 'messages',
      });
    });

    it('max_tokens 0 is 400 naming max_tokens', async () => {
      assertGatewayError(await chat({ model: 'openai/gpt-4o-mini', messages: user(), max_tokens: 0 }), {
        status: 400,
        code: 'invalid_request',
        param: 'max_tokens',
      });
    });

    it('an unknown tool_choice string is 400 naming tool_choice', async () => {
      assertGatewayError(await chat({ model: 'openai/gpt-4o-mini', messages: user(), tool_choice: 'sometimes' }), {
        status: 400,
        code: 'invalid_request',
        param: 'tool_choice',
      });
    });

    it('tool_choice naming a function that is not in tools is 400 naming tool_choice', async () => {
      const result = await chat({
        model: 'openai/gpt-4o-mini',
        messages: user(),
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        tool_choice: { type: 'function', function: { name: 'get_time' } },
      });
      const error = assertGatewayError(result, { status: 400, code: 'invalid_request', param: 'tool_choice' });
      assert.match(error.message, /get_time/);
    });

    it('a tool that is not a function is 400 naming tools[0]', async () => {
      const result = await chat({ model: 'openai/gpt-4o-mini', messages: user(), tools: [{ type: 'retrieval' }] });
      assertGatewayError(result, { status: 400, code: 'invalid_request', param: /^tools\[0\]/ });
    });

    it('a model id without an author is 400 bad_model_id', async () => {
      assertGatewayError(await chat({ model: 'gpt-4o', messages: user() }), {
        status: 400,
        code: 'bad_model_id',
        type: 'invalid_request_error',
        param: 'model',
      });
    });

    it('an unknown or inactive model is 400 model_not_found (the public OpenAPI document of the spec)', async () => {
      assertGatewayError(await chat({ model: 'openai/no-such-model', messages: user() }), {
        status: 400,
        code: 'model_not_found',
        type: 'invalid_request_error',
        param: 'model',
      });
      assertGatewayError(await chat({ model: 'test/inactive', messages: user() }), {
        status: 400,
        code: 'model_not_found',
        type: 'invalid_request_error',
      });
    });

    it('a key restricted to other models is 403 forbidden', async () => {
      assertGatewayError(await chat({ model: 'test/other', messages: user() }, { token: restrictedToken }), {
        status: 403,
        code: 'forbidden',
        type: 'permission_error',
      });
      const allowed = await chat({ model: 'openai/gpt-4o-mini', messages: user() }, { token: restrictedToken });
      assert.equal(allowed.status, 200);
      assert.equal(mock.requests.length, 1, 'only the allowed request reached the upstream');
    });

    it('more than 20 tags, or a tag of 65 characters, is 400 naming tags', async () => {
      const many = Array.from({ length: 21 }, (_, i) => `t${i}`);
      assertGatewayError(await chat({ model: 'openai/gpt-4o-mini', messages: user(), tags: many }), {
        status: 400,
        code: 'invalid_request',
        param: 'tags',
      });
      assertGatewayError(await chat({ model: 'openai/gpt-4o-mini', messages: user(), tags: ['x'.repeat(65)] }), {
        status: 400,
        code: 'invalid_request',
        param: 'tags',
      });
      // Header tags count towards the same limit.
      const header20 = Array.from({ length: 20 }, (_, i) => `h${i}`).join(',');
      assertGatewayError(
        await chat(
          { model: 'openai/gpt-4o-mini', messages: user(), tags: ['extra'] },
          { headers: { 'x-gateway-tags': header20 } },
        ),
        { status: 400, code: 'invalid_request', param: 'tags' },
      );
      assert.equal(mock.requests.length, 0);
      // The limits themselves are allowed.
      const atLimit = await chat({
        model: 'openai/gpt-4o-mini',
        messages: user(),
        tags: [...many.slice(0, 19), 'y'.repeat(64)],
      });
      assert.equal(atLimit.status, 200, atLimit.text);
    });
  });

  describe('upstream failures', () => {
    it('an upstream 400 is passed on as provider_error 400 with upstream_status, not retried', async () => {
      mock.setScenario({
        status: 400,
        errorMessage: "Invalid 'messages[0].content': bad thing (key sk-mock-upstream)",
      });
      const result = await chat({ model: 'openai/gpt-4o-mini', messages: user() });
      const error = assertGatewayError(result, { status: 400, code: 'provider_error', type: 'provider_error' });
      assert.equal(error.upstream_status, 400);
      assert.match(error.message, /bad thing/);
      assert.doesNotMatch(result.text, /sk-mock-upstream/, 'the upstream credential is never echoed');
      assert.equal(mock.requests.length, 1);
    });

    it('an upstream 500 storm is 502 provider_error after the configured retries', async () => {
      mock.setScenario({ status: 500 });
      const result = await chat({ model: 'openai/gpt-4o-mini', messages: user() });
      const error = assertGatewayError(result, { status: 502, code: 'provider_error', type: 'provider_error' });
      assert.equal(error.upstream_status, 500);
      assert.equal(mock.requests.length, 2, 'max_attempts 2: the upstream saw the retry');
    });

    it('an upstream 429 with retry-after: 1 is retried after about a second and then succeeds', async () => {
      mock.setScenario([{ status: 429, headers: { 'retry-after': '1' } }, { text: 'after the wait' }]);
      const started = performance.now();
      const result = await chat({ model: 'openai/gpt-4o-mini', messages: user() });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.json.choices[0].message.content, 'after the wait');
      assert.equal(mock.requests.length, 2);
      const gap = mock.requests[1]!.receivedAt - mock.requests[0]!.receivedAt;
      assert.ok(gap >= 950, `retry-after honoured (gap ${gap.toFixed(0)} ms)`);
      assert.ok(performance.now() - started < 2_500);
    });

    it('an upstream that keeps answering 429 is passed on as 429 with retry-after', async () => {
      mock.setScenario({ status: 429, headers: { 'retry-after': '1' } });
      const result = await chat({ model: 'openai/gpt-4o-mini', messages: user() });
      const error = assertGatewayError(result, { status: 429, code: 'provider_error' });
      assert.equal(error.upstream_status, 429);
      assert.equal(header(result, 'retry-after'), '1');
      assert.equal(mock.requests.length, 2);
    });

    it('falls back to the second provider of a model when the first refuses connections', async () => {
      mock.setScenario({ text: 'from the fallback' });
      const result = await chat({ model: 'test/fallback', messages: user(), enable_debug: true });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.json.choices[0].message.content, 'from the fallback');
      assert.equal(result.json.model, 'test/fallback');
      assert.equal(mock.requests.length, 1);
      assert.equal(mock.requests[0]!.body.model, 'second-choice');
      const debug = result.json.debug;
      assert.equal(debug.provider, 'mock-openai');
      assert.equal(debug.upstream_model, 'second-choice');
      const attempts = debug.attempts as Array<{ provider: string; status: number | null }>;
      assert.ok(attempts.length >= 2);
      assert.ok(attempts.slice(0, -1).every((a) => a.provider === 'dead-openai' && a.status === null));
      assert.deepEqual(attempts.at(-1)!.provider, 'mock-openai');
      assert.equal(attempts.at(-1)!.status, 200);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(row.provider, 'mock-openai');
      assert.equal(row.upstream_model, 'second-choice');
    });

    it('a failure after fallback names the provider that answered it, in the error and the usage row', async () => {
      mock.setScenario({ status: 400, errorMessage: 'rejected by the second provider' });
      const result = await chat({ model: 'test/fallback', messages: user() });
      const error = assertGatewayError(result, { status: 400, code: 'provider_error' });
      assert.equal(error.upstream_status, 400);
      assert.equal(
        error.provider,
        'mock-openai',
        'the 400 came from mock-openai, not from the provider that refused connections',
      );
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(row.provider, 'mock-openai');
      assert.equal(row.upstream_model, 'second-choice');
      assert.equal(Number(row.status_code), 400);
    });

    it('an upstream that never sends headers is 504 provider_timeout within about a second', async () => {
      mock.setScenario({ hangBeforeHeadersMs: Infinity });
      const started = performance.now();
      const result = await chat({ model: 'openai/gpt-4o-mini', messages: user() });
      const elapsed = performance.now() - started;
      assertGatewayError(result, { status: 504, code: 'provider_timeout', type: 'provider_error' });
      assert.ok(elapsed < 1_200, `answered after ${elapsed.toFixed(0)} ms (first_byte_ms 300, 2 attempts)`);
      assert.equal(mock.requests.length, 2);
      // The gateway gave up on both upstream requests: their sockets are closed.
      await Promise.all(mock.requests.map((r) => r.closed));
    });
  });

  describe('tags and debug', () => {
    it('merges X-Gateway-Tags with body tags, de-duplicated, into the usage row', async () => {
      const result = await chat(
        { model: 'openai/gpt-4o-mini', messages: user(), tags: ['b', 'c'] },
        { headers: { 'x-gateway-tags': 'a, b' } },
      );
      assert.equal(result.status, 200, result.text);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.deepEqual(JSON.parse(row.tags), ['b', 'c', 'a']);
    });

    it('enable_debug or X-Gateway-Debug adds debug with provider, upstream model and attempts; otherwise none', async () => {
      for (const init of [{ body: { enable_debug: true } }, { headers: { 'x-gateway-debug': '1' } }]) {
        const result = await chat(
          { model: 'openai/gpt-4o-mini', messages: user(), ...(init.body ?? {}) },
          init.headers ? { headers: init.headers } : {},
        );
        assert.equal(result.status, 200, result.text);
        const debug = result.json.debug;
        assert.ok(debug, 'debug present');
        assert.equal(debug.provider, 'mock-openai');
        assert.equal(debug.upstream_model, 'gpt-4o-mini');
        assert.equal(debug.attempts.length, 1);
        assert.equal(debug.attempts[0].status, 200);
      }
      const plain = await chat({ model: 'openai/gpt-4o-mini', messages: user() });
      assert.equal(plain.json.debug, undefined);
      assert.ok(!JSON.stringify(plain.json).includes('enable_debug'));
    });
  });
});
