import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';

/**
 * Issue 16, row 4: a 10,000-deep JSON body was a 500 on the collector (and on count_tokens,
 * compress and responses) and a 502 on the chat path, because code behind the parser walks
 * bodies recursively. Every listener now refuses nesting beyond GATEWAY_JSON_MAX_DEPTH (64) and
 * number literals that overflow a double, before parsing, with a 400 in its own envelope.
 */
const DEEP = 10_000;
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const HI = '[{"role":"user","content":"hi"}]';

/** Each gateway route with a body that is valid but for one deeply nested member. */
function gatewayBodies(nested: string): Array<[path: string, body: string]> {
  return [
    ['/v1/chat/completions', `{"model":"local/echo","messages":${HI},"metadata":${nested}}`],
    [
      '/v1/chat/completions',
      `{"model":"local/echo","messages":${HI},"tools":[{"type":"function","function":{"name":"f","parameters":{"p":${nested}}}}]}`,
    ],
    ['/v1/messages', `{"model":"local/echo","max_tokens":5,"messages":${HI},"metadata":{"x":${nested}}}`],
    [
      '/v1/messages/count_tokens',
      `{"model":"local/echo","messages":${HI},"tools":[{"name":"f","input_schema":${nested}}]}`,
    ],
    [
      '/v1/responses',
      `{"model":"local/echo","input":"hi","tools":[{"type":"function","name":"f","parameters":${nested}}]}`,
    ],
    [
      '/v1/count_tokens',
      `{"model":"local/echo","messages":${HI},"tools":[{"type":"function","function":{"name":"f","parameters":${nested}}}]}`,
    ],
    [
      '/v1/compress',
      `{"model":"local/echo","messages":${HI},"tools":[{"type":"function","function":{"name":"f","parameters":${nested}}}]}`,
    ],
  ];
}

function assertGatewayRefusal(result: HttpResult, path: string, what: RegExp): void {
  assert.equal(result.status, 400, `${path}: ${result.text.slice(0, 300)}`);
  if (path.startsWith('/v1/messages')) {
    // Anthropic's envelope on its routes.
    assert.equal(result.json.type, 'error', path);
    assert.equal(result.json.error.type, 'invalid_request_error', path);
    assert.match(result.json.error.message, what, path);
    return;
  }
  assert.equal(result.json.error.type, 'invalid_request_error', path);
  assert.equal(result.json.error.code, 'invalid_json', path);
  assert.equal(result.json.error.param, null, path);
  assert.match(result.json.error.message, what, path);
}

function assertConsoleRefusal(result: HttpResult, what: RegExp): void {
  assert.equal(result.status, 400, result.text.slice(0, 300));
  assert.equal(result.json.error, 'Bad Request');
  assert.match(result.json.message, what);
}

describe('JSON depth and number limits on every listener (issue 16 row 4)', () => {
  let h: Harness;
  let org: { id: string; token: string };
  let key: { key: string };
  let collector: ReturnType<typeof collectorClient>;
  const domain = 'depth.example';

  before(async () => {
    h = await startHarness();
    org = await h.organization();
    key = await h.createKey(org, { name: 'depth' });
    const project = await h.console('POST', '/v1/projects', {
      token: org.token,
      body: { slug: 'depth', name: 'Depth', domains: [domain] },
    });
    assert.equal(project.status, 201, project.text);
    collector = collectorClient(h.running.urls.collector, h.ca);
  });
  after(async () => {
    await collector.close();
    await h.stop();
  });

  const gateway = (path: string, rawBody: string) =>
    h.gateway('POST', path, { rawBody, token: key.key, headers: { 'content-type': 'application/json' } });

  it('gateway: a 10,000-deep array or object in any route body is a 400 in the route’s envelope', async () => {
    for (const nested of [deepArray(DEEP), deepObject(DEEP)]) {
      for (const [path, body] of gatewayBodies(nested))
        assertGatewayRefusal(await gateway(path, body), path, /more than 64 levels deep/);
    }
  });

  it('gateway: the same bodies nested within the limit are served', async () => {
    // 64 levels in all: the envelope's own levels plus the nested member.
    for (const [path, body] of gatewayBodies(deepObject(50))) {
      const result = await gateway(path, body);
      assert.equal(result.status, 200, `${path}: ${result.text.slice(0, 300)}`);
    }
  });

  it('console: a deep body is a 400 {error, message}', async () => {
    const result = await h.console('POST', '/v1/projects', {
      token: org.token,
      rawBody: `{"slug":"deep","name":"Deep","domains":${deepArray(DEEP)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assertConsoleRefusal(result, /more than 64 levels deep/);
  });

  it('collector: a deep event body is a 400 {error, message}, not a 500', async () => {
    const result = await collector.call('POST', domain, {
      rawBody: `{"data_collection":{"events":[{"type":"track","data":{"name":"x","properties":{"p":${deepObject(DEEP)}}}}]}}`,
      headers: { 'content-type': 'text/plain' },
    });
    assertConsoleRefusal(result, /more than 64 levels deep/);
    const fine = await collector.call('POST', domain, {
      body: { data_collection: { events: [{ type: 'track', data: { name: 'x', properties: { p: { q: [1] } } } }] } },
    });
    assert.equal(fine.status, 202, fine.text);
  });

  it('a number that overflows a double (1e400, -1e999, 400 digits) is refused on every listener', async () => {
    for (const literal of ['1e400', '-1e999', '9'.repeat(400)]) {
      const chat = await gateway(
        '/v1/chat/completions',
        `{"model":"local/echo","messages":${HI},"max_tokens":${literal}}`,
      );
      assertGatewayRefusal(chat, '/v1/chat/completions', /number too large/);
      const messages = await gateway('/v1/messages', `{"model":"local/echo","max_tokens":${literal},"messages":${HI}}`);
      assertGatewayRefusal(messages, '/v1/messages', /number too large/);
      const console = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, {
        token: org.token,
        rawBody: `{"name":"n","max_usage":${literal}}`,
        headers: { 'content-type': 'application/json' },
      });
      assertConsoleRefusal(console, /number too large/);
      const event = await collector.call('POST', domain, {
        rawBody: `{"data_collection":{"events":[{"type":"track","data":{"name":"x","properties":{"n":${literal}}}}]}}`,
        headers: { 'content-type': 'application/json' },
      });
      assertConsoleRefusal(event, /number too large/);
    }
    // Brackets and big numbers inside strings are text, not structure.
    const text = `${'['.repeat(200)} 1e400 ${'{'.repeat(200)}`;
    const quoted = await gateway(
      '/v1/chat/completions',
      JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: text }] }),
    );
    assert.equal(quoted.status, 200, quoted.text.slice(0, 300));
  });
});

describe('GATEWAY_JSON_MAX_DEPTH sets the limit', () => {
  let h: Harness;
  let key: { key: string };
  before(async () => {
    h = await startHarness({ env: { GATEWAY_JSON_MAX_DEPTH: '8' } });
    key = await h.createKey(await h.organization(), { name: 'shallow' });
  });
  after(async () => h.stop());

  it('8 levels pass, 9 are refused', async () => {
    // {messages:[{content: ...}]} is 3 levels; metadata adds one plus the nested member.
    const body = (levels: number) =>
      `{"model":"local/echo","messages":${HI},"metadata":${'{"a":'.repeat(levels - 1)}1${'}'.repeat(levels - 1)}}`;
    const ok = await h.gateway('POST', '/v1/chat/completions', {
      rawBody: body(8),
      token: key.key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    const refused = await h.gateway('POST', '/v1/chat/completions', {
      rawBody: body(9),
      token: key.key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(refused.status, 400, refused.text.slice(0, 300));
    assert.match(refused.json.error.message, /more than 8 levels deep/);
  });
});
