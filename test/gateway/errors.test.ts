import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { GATEWAY_ERRORS, GatewayError, type GatewayErrorCode } from '../../src/pipeline/errors.js';
import { readSettings } from '../../src/config/settings.js';

/** The error registry, docs/errors.md, and the envelopes of the errors the framework raises. */
const SPEC_SECTION_7_CODES = [
  'unauthorized',
  'forbidden',
  'invalid_json',
  'bad_model_id',
  'model_not_found',
  'provider_not_supported',
  'invalid_tokenizer',
  'invalid_request',
  'usage_limit_exceeded',
  'provider_error',
  'internal_error',
  'invalid_gateway_tool_ids',
];
/** Statuses the spec fixes (section 7 table). */
const SPEC_STATUSES: Record<string, number> = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_gateway_tool_ids: 400,
  bad_model_id: 400,
  unauthorized: 401,
  forbidden: 403,
};
const SPEC_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'server_error',
  'provider_error',
];

const DOC = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'errors.md'), 'utf8');

/** Rows `| \`code\` | 400 | \`type\` | … |` of the gateway table in docs/errors.md. */
function documentedCodes(): Map<string, { status: number; type: string }> {
  const rows = new Map<string, { status: number; type: string }>();
  for (const match of DOC.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| `([a-z_]+)` \|/gm)) {
    rows.set(match[1]!, { status: Number(match[2]), type: match[3]! });
  }
  return rows;
}

describe('gateway error registry', () => {
  it('holds every code of spec section 7', () => {
    for (const code of SPEC_SECTION_7_CODES) assert.ok(code in GATEWAY_ERRORS, `${code} missing from GATEWAY_ERRORS`);
  });

  it('uses the statuses the spec fixes and only the spec types', () => {
    for (const [code, status] of Object.entries(SPEC_STATUSES))
      assert.equal(GATEWAY_ERRORS[code as GatewayErrorCode].status, status, code);
    for (const [code, entry] of Object.entries(GATEWAY_ERRORS)) {
      assert.ok(SPEC_TYPES.includes(entry.type), `${code}: ${entry.type}`);
      assert.ok(entry.status >= 400 && entry.status <= 599, code);
      assert.ok(entry.message.length > 0, code);
    }
  });

  it('documents every registry code in docs/errors.md with the same status and type', () => {
    const documented = documentedCodes();
    for (const [code, entry] of Object.entries(GATEWAY_ERRORS)) {
      const row = documented.get(code);
      assert.ok(row, `${code} is not in the table of docs/errors.md`);
      assert.equal(row.status, entry.status, `${code}: status in docs/errors.md`);
      assert.equal(row.type, entry.type, `${code}: type in docs/errors.md`);
    }
    for (const code of documented.keys())
      assert.ok(code in GATEWAY_ERRORS, `docs/errors.md lists ${code}, which the registry does not hold`);
  });

  it('documents the console envelope, the body size limit and its default', () => {
    assert.match(DOC, /\{"error": "[A-Za-z ]+", "message": /);
    for (const status of [400, 401, 403, 404, 413])
      assert.match(DOC, new RegExp(`^\\| ${status} \\| `, 'm'), `console status ${status}`);
    assert.match(DOC, /GATEWAY_BODY_LIMIT_BYTES/);
    const defaultMiB = /default \*\*(\d+) MiB\*\*/.exec(DOC);
    assert.ok(defaultMiB, 'the default limit is stated');
    assert.equal(Number(defaultMiB[1]) * 1024 * 1024, readSettings({}).bodyLimitBytes);
  });

  it('builds the envelope from the registry, with param and extra members', () => {
    for (const code of Object.keys(GATEWAY_ERRORS) as GatewayErrorCode[]) {
      const error = new GatewayError(code);
      assert.equal(error.status, GATEWAY_ERRORS[code].status);
      assert.deepEqual(error.toEnvelope(), {
        error: { message: GATEWAY_ERRORS[code].message, type: GATEWAY_ERRORS[code].type, code, param: null },
      });
    }
    const custom = new GatewayError('bad_model_id', { message: 'nope', param: 'model', extra: { provider: 'x' } });
    assert.deepEqual(custom.toEnvelope(), {
      error: { message: 'nope', type: 'invalid_request_error', code: 'bad_model_id', param: 'model', provider: 'x' },
    });
  });
});

const LIMIT = 2048;
/** POST routes of the gateway that take a JSON body, in the order they are tried. */
const GATEWAY_BODY_ROUTES = ['/v1/count_tokens', '/v1/compress', '/v1/chat/completions'];

function assertGatewayEnvelope(json: any, code: string): void {
  assert.equal(typeof json?.error?.message, 'string');
  assert.equal(typeof json.error.type, 'string');
  assert.equal(json.error.code, code);
  assert.ok(json.error.param === null || typeof json.error.param === 'string');
}

for (const store of storeKinds()) {
  describe(`error envelopes of the framework (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string; slug: string };
    let key: string;
    let bodyRoutes: string[];
    before(async () => {
      h = await startHarness({ store, env: { GATEWAY_BODY_LIMIT_BYTES: String(LIMIT) } });
      org = await h.organization();
      key = (await h.createKey(org)).key;
      bodyRoutes = [];
      for (const path of GATEWAY_BODY_ROUTES) {
        if ((await h.gateway('POST', path, { token: key, body: {} })).status !== 404) bodyRoutes.push(path);
      }
    });
    after(async () => h.stop());

    const big = { name: 'x'.repeat(LIMIT * 2) };

    it('a console body over GATEWAY_BODY_LIMIT_BYTES gets 413 {error: "Payload Too Large", message}', async () => {
      const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, { token: org.token, body: big });
      assert.equal(result.status, 413);
      assert.deepEqual(Object.keys(result.json).sort(), ['error', 'message']);
      assert.equal(result.json.error, 'Payload Too Large');
      const list = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: org.token });
      assert.equal(list.json.data.length, 1, 'nothing was created');
    });

    it('a chunked console body over the limit (no Content-Length) gets 413 too', async () => {
      const dispatcher = new Agent({ connect: { ca: h.ca } });
      try {
        const chunks = [Buffer.from('{"name":"'), Buffer.alloc(LIMIT * 2, 'y'), Buffer.from('"}')];
        const response = await request(`${h.running.urls.console}/v1/organizations/${org.id}/api_keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
          body: Readable.from(chunks),
          dispatcher,
        });
        const json = (await response.body.json()) as { error: string };
        assert.equal(response.statusCode, 413);
        assert.equal(json.error, 'Payload Too Large');
      } finally {
        await dispatcher.close();
      }
    });

    it('a console body just under the limit is accepted', async () => {
      const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, {
        token: org.token,
        body: { name: 'n'.repeat(200) },
      });
      assert.equal(result.status, 201);
      await h.console('DELETE', `/v1/organizations/${org.id}/api_keys/${result.json.id}`, { token: org.token });
    });

    it('a gateway body over the limit gets 413 request_too_large in the gateway envelope', async (t) => {
      if (bodyRoutes.length === 0) return t.skip('no gateway POST route exists yet');
      for (const path of bodyRoutes) {
        const result = await h.gateway('POST', path, {
          token: key,
          body: { model: 'local/echo', messages: [{ role: 'user', content: 'x'.repeat(LIMIT * 2) }] },
        });
        assert.equal(result.status, 413, path);
        assertGatewayEnvelope(result.json, 'request_too_large');
        assert.equal(result.json.error.type, 'invalid_request_error');
      }
    });

    it('an unauthenticated oversized gateway body gets 401 before the body is read', async (t) => {
      if (bodyRoutes.length === 0) return t.skip('no gateway POST route exists yet');
      const result = await h.gateway('POST', bodyRoutes[0]!, { body: big });
      assert.equal(result.status, 401);
      assertGatewayEnvelope(result.json, 'unauthorized');
    });

    it('malformed JSON on the console gets 400 {error: "Bad Request", message}', async () => {
      for (const rawBody of ['{', '{"name": }', 'nul', '{"name":"a"}}', '\u0000']) {
        const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, {
          token: org.token,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(result.status, 400, rawBody);
        assert.equal(result.json.error, 'Bad Request');
        assert.equal(typeof result.json.message, 'string');
      }
    });

    it('malformed JSON on a gateway POST route gets 400 invalid_json', async (t) => {
      if (bodyRoutes.length === 0) return t.skip('no gateway POST route exists yet');
      for (const path of bodyRoutes) {
        for (const rawBody of ['{', '{"model": }', '[1,]']) {
          const result = await h.gateway('POST', path, {
            token: key,
            rawBody,
            headers: { 'content-type': 'application/json' },
          });
          assert.equal(result.status, 400, `${path} ${rawBody}`);
          assertGatewayEnvelope(result.json, 'invalid_json');
        }
      }
    });

    it('a U+0000 in a key name, an email or a key id is a 400, not a database failure (PostgreSQL text cannot hold it)', async () => {
      const base = `/v1/organizations/${org.id}/api_keys`;
      const existing = await h.createKey(org, { name: 'nul target' });
      for (const [method, path, body] of [
        ['POST', base, { name: 'a\u0000b' }],
        ['POST', base, { name: 'a', email: 'a\u0000@b.c' }],
        ['POST', `${base}/${existing.id}`, { name: '\u0000' }],
        ['GET', `${base}/%00`],
        ['GET', `${base}/%00/reveal`],
        ['DELETE', `${base}/a%00b`],
        ['GET', `/v1/organizations/%00/api_keys`],
      ] as const) {
        const result = await h.console(method, path, { token: org.token, ...(body ? { body } : {}) });
        assert.equal(result.status, 400, `${method} ${path} ${result.text}`);
        assert.equal(result.json.error, 'Bad Request');
      }
      await h.console('DELETE', `${base}/${existing.id}`, { token: org.token });
    });

    it('a console body of another media type gets 415 Unsupported Media Type', async () => {
      const result = await h.console('POST', `/v1/organizations/${org.id}/api_keys`, {
        token: org.token,
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(result.status, 415);
      assert.equal(result.json.error, 'Unsupported Media Type');
    });

    it('an unknown route gets 404 in each surface envelope, with or without credentials', async () => {
      for (const token of [undefined, key]) {
        const gateway = await h.gateway('GET', '/v1/nope', token ? { token } : {});
        assert.equal(gateway.status, 404);
        assertGatewayEnvelope(gateway.json, 'not_found');
        assert.equal(gateway.json.error.type, 'not_found_error');
      }
      const wrongMethod = await h.gateway('DELETE', '/v1/models', { token: key });
      assert.equal(wrongMethod.status, 404);
      assertGatewayEnvelope(wrongMethod.json, 'not_found');
      const console = await h.console('GET', '/v1/nope', { token: org.token });
      assert.equal(console.status, 404);
      assert.equal(console.json.error, 'Not Found');
      const collector = await h.collector('POST', '/_gateway/event', { body: {} });
      assert.equal(collector.status, 404);
      assert.equal(collector.json.error, 'Not Found');
    });

    it('every response carries an x-request-id, the caller’s own when it is well formed', async () => {
      const given = await h.gateway('GET', '/v1/models', { headers: { 'x-request-id': 'trace-123' } });
      assert.equal(given.headers['x-request-id'], 'trace-123');
      const bad = await h.console('GET', '/v1/nope', { headers: { 'x-request-id': 'a b\tc' } });
      assert.match(String(bad.headers['x-request-id']), /^req_[0-9a-f]{32}$/);
    });
  });
}
