import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { compilePendingSerializers, lazySerializerFactory } from '../../src/server/lazy-serializers.js';
import { startHarness } from '../support/gateway-harness.js';
import { countingCompiler } from '../support/counting-compiler.js';

/**
 * Response schemas are compiled on their first answer instead of at start-up (each nullable or
 * union field costs fast-json-stringify an ajv instance). The bytes answered must be exactly what
 * Fastify's own compiler writes, and a schema fast-json-stringify refuses must still be found by a test.
 */
const ITEM = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    count: { type: 'integer' },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
} as const;
const RESPONSE = {
  200: { type: 'object', properties: { items: { type: 'array', items: ITEM }, next: { type: ['string', 'null'] } } },
  404: { type: 'object', properties: { error: { type: 'string' } } },
} as const;

function app(lazy: boolean, build = SerializerSelector()) {
  const instance = Fastify(
    lazy ? { schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory(build) } } } : {},
  );
  instance.get('/x/:which', { schema: { response: RESPONSE } }, async (request, reply) => {
    const which = (request.params as { which: string }).which;
    if (which === 'missing') return reply.code(404).send({ error: 'no such thing', secret: 'dropped' });
    return {
      items: [
        { id: 'a', count: 2, note: null, extra: 'dropped' },
        { id: 'b', count: '3', note: 'n' },
      ],
      next: which === 'last' ? null : 'cursor',
    };
  });
  return instance;
}

describe('lazy response serializers (server/lazy-serializers.ts)', () => {
  it('compiles a response schema on the first answer that uses it, once per status', async () => {
    const counting = countingCompiler(SerializerSelector());
    const lazy = app(true, counting.factory);
    await lazy.ready();
    assert.equal(counting.compiled(), 0, 'nothing compiled at start-up');
    assert.equal((await lazy.inject('/x/first')).statusCode, 200);
    assert.equal(counting.compiled(), 1, 'the 200 schema, at its first answer');
    assert.equal((await lazy.inject('/x/last')).statusCode, 200);
    assert.equal(counting.compiled(), 1, 'each compiled once');
    assert.equal((await lazy.inject('/x/missing')).statusCode, 404);
    assert.equal(counting.compiled(), 2, 'the 404 schema, at the first 404');
    await lazy.close();
  });

  it("answers exactly the bytes Fastify's own compiler writes", async () => {
    const eager = app(false);
    const lazy = app(true);
    for (const url of ['/x/first', '/x/last', '/x/missing', '/x/first']) {
      const [want, got] = await Promise.all([eager.inject(url), lazy.inject(url)]);
      assert.equal(got.statusCode, want.statusCode, url);
      assert.equal(got.body, want.body, url);
      assert.equal(got.headers['content-type'], want.headers['content-type'], url);
    }
    await Promise.all([eager.close(), lazy.close()]);
  });

  describe('every route of the three surfaces', () => {
    const started = startHarness();
    after(async () => (await started).stop());

    it('has response schemas fast-json-stringify compiles (what start-up used to check)', async () => {
      await started;
      const count = compilePendingSerializers();
      assert.ok(count > 20, `only ${count} response schemas`);
      assert.equal(compilePendingSerializers(), 0, 'each compiled once');
    });
  });
});
