import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { DEFAULT_MODELS } from '../../src/catalogue/default-catalogue.js';

/** GET /v1/models (spec 2.7) with the config shape of issue 2 item 9. */
const CONFIG = {
  providers: [{ id: 'mock', kind: 'openai', base_url: 'http://127.0.0.1:9999/v1', api_key_env: 'MOCK_API_KEY' }],
  models: [
    {
      id: 'openai/gpt-4o-mini',
      providers: [{ provider: 'mock', model: 'gpt-4o-mini' }],
      pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 },
      active: true,
    },
    {
      id: 'acme/house-model',
      providers: [{ provider: 'mock', model: 'house-model-v2' }],
      pricing: { input_per_mtok: 1, output_per_mtok: 2 },
    },
    {
      id: 'openai/gpt-4o',
      providers: [{ provider: 'openai', model: 'gpt-4o' }],
      pricing: { input_per_mtok: 2.5, output_per_mtok: 10 },
      active: false,
    },
  ],
};

for (const store of storeKinds()) {
  describe(`GET /v1/models (${store})`, () => {
    let h: Harness;
    let key: string;
    before(async () => {
      h = await startHarness({ store, config: CONFIG });
      key = (await h.createKey(await h.organization())).key;
    });
    after(async () => h.stop());

    it('lists the built-in catalogue plus config models, each with id, object, created and owned_by', async () => {
      const result = await h.gateway('GET', '/v1/models', { token: key });
      assert.equal(result.status, 200);
      assert.equal(result.json.object, 'list');
      assert.ok(Array.isArray(result.json.data));
      for (const model of result.json.data) {
        assert.deepEqual(Object.keys(model).sort(), ['created', 'id', 'object', 'owned_by']);
        assert.match(model.id, /^[^/]+\/[^/]+$/);
        assert.equal(model.object, 'model');
        assert.ok(Number.isInteger(model.created) && model.created >= 0, model.id);
        assert.equal(typeof model.owned_by, 'string');
      }
      const ids = result.json.data.map((m: { id: string }) => m.id);
      assert.equal(new Set(ids).size, ids.length, 'no duplicates');
      assert.ok(ids.includes('local/echo'));
      assert.ok(ids.includes('openai/gpt-4o-mini'));
      assert.ok(ids.includes('acme/house-model'));
      for (const builtIn of DEFAULT_MODELS.filter((m) => m.id !== 'openai/gpt-4o' && m.active !== false))
        assert.ok(ids.includes(builtIn.id), builtIn.id);
      const house = result.json.data.find((m: { id: string }) => m.id === 'acme/house-model');
      assert.equal(house.owned_by, 'acme');
    });

    it('hides a built-in model that the config marks active: false', async () => {
      const result = await h.gateway('GET', '/v1/models', { token: key });
      const ids = result.json.data.map((m: { id: string }) => m.id);
      assert.ok(!ids.includes('openai/gpt-4o'));
    });

    it('accepts the provider query parameter and ignores it', async () => {
      const plain = await h.gateway('GET', '/v1/models', { token: key });
      for (const query of ['?provider=mock', '?provider=openai', '?provider=', '?unrelated=1']) {
        const filtered = await h.gateway('GET', `/v1/models${query}`, { token: key });
        assert.equal(filtered.status, 200, query);
        assert.deepEqual(filtered.json, plain.json, query);
      }
    });

    it('answers a repeated provider parameter (not a string) with 400 invalid_request naming it', async () => {
      const result = await h.gateway('GET', '/v1/models?provider=x&provider=y', { token: key });
      assert.equal(result.status, 400);
      assert.equal(result.json.error.code, 'invalid_request');
      assert.match(result.json.error.message, /provider/);
    });
  });
}

describe('GET /v1/models without a config file', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.stop());

  it('lists exactly the active built-in catalogue, local/echo included', async () => {
    const key = (await h.createKey(await h.organization())).key;
    const result = await h.gateway('GET', '/v1/models', { token: key });
    const ids = result.json.data.map((m: { id: string }) => m.id).sort();
    assert.deepEqual(
      ids,
      DEFAULT_MODELS.filter((m) => m.active !== false)
        .map((m) => m.id)
        .sort(),
    );
    assert.ok(ids.includes('local/echo'));
  });
});
