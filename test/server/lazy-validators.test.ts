import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { compilePendingValidators, lazyValidatorFactory } from '../../src/server/lazy-validators.js';
import { AJV_OPTIONS } from '../../src/server/create-app.js';
import { startHarness } from '../support/gateway-harness.js';
import { countingCompiler } from '../support/counting-compiler.js';

/**
 * Route schemas are compiled on each route's first request instead of at start-up: the largest
 * item of an idle process's memory (docs/decisions.md, "Memory"). Validation must answer exactly
 * what Fastify's own compiler answers, and a schema ajv refuses must still be found by a test.
 */
const BODY = {
  type: 'object',
  required: ['model'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1 },
    n: { type: 'integer', minimum: 1, default: 1 },
    tags: { type: 'array', items: { type: 'string' } },
  },
} as const;

function app(lazy: boolean, build = AjvCompiler()) {
  const instance = Fastify({
    ajv: AJV_OPTIONS,
    ...(lazy ? { schemaController: { compilersFactory: { buildValidator: lazyValidatorFactory(build) } } } : {}),
  });
  instance.post(
    '/x',
    { schema: { body: BODY, querystring: { type: 'object', properties: { q: { type: 'string' } } } } },
    (request) => ({
      seen: request.body,
    }),
  );
  return instance;
}

describe('lazy route validators (server/lazy-validators.ts)', () => {
  it("compiles a route's schema on its first request, once", async () => {
    const counting = countingCompiler(AjvCompiler());
    const lazy = app(true, counting.factory);
    await lazy.ready();
    assert.equal(counting.compiled(), 0, 'nothing compiled at start-up');
    assert.equal((await lazy.inject({ method: 'POST', url: '/x', payload: {} })).statusCode, 400);
    assert.equal(counting.compiled(), 1, 'the body schema, at the first request (validation stopped there)');
    assert.equal((await lazy.inject({ method: 'POST', url: '/x', payload: { model: 'm' } })).statusCode, 200);
    assert.equal(counting.compiled(), 2, 'the querystring schema, at the first request that got that far');
    assert.equal((await lazy.inject({ method: 'POST', url: '/x', payload: { model: 'm' } })).statusCode, 200);
    assert.equal(counting.compiled(), 2, 'each compiled once');
    await lazy.close();
  });

  it("answers exactly what Fastify's own compiler answers, defaults applied alike", async () => {
    const eager = app(false);
    const lazy = app(true);
    const bodies = [
      { model: 'm' },
      { model: 'm', n: 3, tags: ['a'] },
      {},
      { model: '' },
      { model: 'm', n: 0 },
      { model: 'm', n: '2' },
      { model: 'm', extra: true },
      { model: 'm', tags: [1] },
      [],
      'text',
    ];
    for (const payload of bodies) {
      const request = {
        method: 'POST' as const,
        url: '/x?q=1',
        payload: JSON.stringify(payload),
        headers: { 'content-type': 'application/json' },
      };
      const [want, got] = await Promise.all([eager.inject(request), lazy.inject(request)]);
      assert.equal(got.statusCode, want.statusCode, JSON.stringify(payload));
      assert.deepEqual(got.json(), want.json(), JSON.stringify(payload));
    }
    await Promise.all([eager.close(), lazy.close()]);
  });

  it('refuses a headers schema when the route is registered, not on its first request', async () => {
    const instance = Fastify({ schemaController: { compilersFactory: { buildValidator: lazyValidatorFactory() } } });
    instance.get(
      '/h',
      { schema: { headers: { type: 'object', properties: { 'X-Key': { type: 'string' } } } } },
      () => 'ok',
    );
    await assert.rejects(async () => {
      await instance.ready();
    }, /headers schemas are not supported/);
  });

  describe('every route of the three surfaces', () => {
    const started = startHarness();
    after(async () => (await started).stop());

    it('has schemas ajv compiles (what start-up used to check)', async () => {
      await started;
      const count = compilePendingValidators();
      assert.ok(count > 50, `only ${count} route schemas`);
      assert.equal(compilePendingValidators(), 0, 'each compiled once');
    });
  });
});
