import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { MAX_TOKEN_COUNT } from '../../src/canonical/chat-request.js';

/**
 * Issue 16, row 8 (numbers): `max_tokens: 1e400` parsed as Infinity and was accepted, and
 * every token limit had no upper bound. Literals that overflow a double are refused by the body
 * parser (json-depth.test.ts); every numeric field the gateway reads has a finite maximum.
 */
const HI = [{ role: 'user', content: 'hi' }];

describe('numeric fields of the request schemas are finite and bounded (issue 16 row 8)', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await startHarness();
    key = (await h.createKey(await h.organization(), { name: 'numbers' })).key;
  });
  after(async () => h.stop());

  const post = (path: string, body: unknown) => h.gateway('POST', path, { token: key, body });
  const raw = (path: string, rawBody: string) =>
    h.gateway('POST', path, { token: key, rawBody, headers: { 'content-type': 'application/json' } });

  const cases: Array<[path: string, body: Record<string, unknown>, param: string]> = [
    ['/v1/chat/completions', { model: 'local/echo', messages: HI, max_tokens: MAX_TOKEN_COUNT + 1 }, 'max_tokens'],
    ['/v1/chat/completions', { model: 'local/echo', messages: HI, max_tokens: 1e300 }, 'max_tokens'],
    [
      '/v1/chat/completions',
      { model: 'local/echo', messages: HI, max_completion_tokens: 1e15 },
      'max_completion_tokens',
    ],
    ['/v1/chat/completions', { model: 'local/echo', messages: HI, seed: 2 ** 60 }, 'seed'],
    ['/v1/chat/completions', { model: 'local/echo', messages: HI, seed: -(2 ** 60) }, 'seed'],
    ['/v1/messages', { model: 'local/echo', max_tokens: 1e300, messages: HI }, 'max_tokens'],
    ['/v1/messages', { model: 'local/echo', max_tokens: 5, messages: HI, top_k: 1e12 }, 'top_k'],
    [
      '/v1/messages',
      { model: 'local/echo', max_tokens: 5, messages: HI, thinking: { type: 'enabled', budget_tokens: 1e12 } },
      'thinking.budget_tokens',
    ],
    ['/v1/responses', { model: 'local/echo', input: 'hi', max_output_tokens: 1e300 }, 'max_output_tokens'],
  ];

  it('a number beyond a field’s maximum is a 400 naming the field, in the route’s envelope', async () => {
    for (const [path, body, param] of cases) {
      const result = await post(path, body);
      assert.equal(result.status, 400, `${path} ${JSON.stringify(body)}: ${result.text}`);
      assert.equal(result.json.error.param, param, result.text);
      assert.equal(result.json.error.type, 'invalid_request_error');
      if (path === '/v1/messages') assert.equal(result.json.type, 'error');
      else assert.equal(result.json.error.code, 'invalid_request');
    }
  });

  it('Infinity spelled as 1e400 never reaches a schema: a 400 on every route', async () => {
    for (const [path, body] of [
      ['/v1/chat/completions', `{"model":"local/echo","messages":[{"role":"user","content":"hi"}],"max_tokens":1e400}`],
      [
        '/v1/chat/completions',
        `{"model":"local/echo","messages":[{"role":"user","content":"hi"}],"temperature":-1e400}`,
      ],
      ['/v1/messages', `{"model":"local/echo","max_tokens":1e400,"messages":[{"role":"user","content":"hi"}]}`],
      ['/v1/responses', `{"model":"local/echo","input":"hi","max_output_tokens":1e400}`],
    ] as const) {
      const result = await raw(path, body);
      assert.equal(result.status, 400, `${path}: ${result.text}`);
      assert.match(result.json.error.message, /number too large to represent/);
    }
  });

  it('the largest allowed values are served', async () => {
    for (const [path, body] of [
      ['/v1/chat/completions', { model: 'local/echo', messages: HI, max_tokens: MAX_TOKEN_COUNT, seed: 2 ** 53 - 1 }],
      ['/v1/messages', { model: 'local/echo', max_tokens: MAX_TOKEN_COUNT, messages: HI, top_k: MAX_TOKEN_COUNT }],
      ['/v1/responses', { model: 'local/echo', input: 'hi', max_output_tokens: MAX_TOKEN_COUNT }],
    ] as const) {
      const result = await post(path, body);
      assert.equal(result.status, 200, `${path}: ${result.text.slice(0, 300)}`);
    }
  });
});
