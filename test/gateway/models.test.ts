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
      h = await startHarness({ store, config: CONFIG, env: { MOCK_API_KEY: 'sk-mock', OPENAI_API_KEY: '' } });
      key = (await h.createKey(await h.organization())).key;
    });
    after(async () => h.stop());

    it('lists routable models only, each with id, object, created and owned_by', async () => {
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
      assert.ok(ids.includes('local/echo'), 'a local provider needs no key');
      assert.ok(ids.includes('openai/gpt-4o-mini'), 'its provider has its key');
      assert.ok(ids.includes('acme/house-model'));
      const house = result.json.data.find((m: { id: string }) => m.id === 'acme/house-model');
      assert.equal(house.owned_by, 'acme');
    });

    it('leaves out models whose providers have no key set (OPENAI_API_KEY, ANTHROPIC_API_KEY, … are empty here)', async () => {
      const result = await h.gateway('GET', '/v1/models', { token: key });
      const ids: string[] = result.json.data.map((m: { id: string }) => m.id);
      for (const builtIn of DEFAULT_MODELS.filter((m) => m.providers[0]!.provider === 'openai'))
        if (builtIn.id !== 'openai/gpt-4o-mini') assert.ok(!ids.includes(builtIn.id), builtIn.id);
      assert.deepEqual(ids.sort(), ['acme/house-model', 'local/echo', 'openai/gpt-4o-mini'].sort());
    });

    it('hides a built-in model that the config marks active: false', async () => {
      const result = await h.gateway('GET', '/v1/models', { token: key });
      const ids = result.json.data.map((m: { id: string }) => m.id);
      assert.ok(!ids.includes('openai/gpt-4o'));
    });

    it('a key limited to a list of models sees only those', async () => {
      const limited = await h.createKey(await h.organization(), { name: 'limited', models: ['acme/house-model'] });
      const result = await h.gateway('GET', '/v1/models', { token: limited.key });
      assert.deepEqual(
        result.json.data.map((m: { id: string }) => m.id),
        ['acme/house-model'],
      );
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

    it('GET /v1/models/{id} answers a listed model in the list item shape, slash encoded or not', async () => {
      const listed = (await h.gateway('GET', '/v1/models', { token: key })).json.data.find(
        (m: { id: string }) => m.id === 'acme/house-model',
      );
      for (const path of ['/v1/models/acme/house-model', '/v1/models/acme%2Fhouse-model']) {
        const result = await h.gateway('GET', path, { token: key });
        assert.equal(result.status, 200, `${path}: ${result.text}`);
        assert.deepEqual(result.json, listed, path);
      }
    });

    it('GET /v1/models/{id}: unknown or inactive is 404 model_not_found in the OpenAI envelope', async () => {
      for (const id of ['acme/nothing', 'openai/gpt-4o', 'nothing-at-all']) {
        const result = await h.gateway('GET', `/v1/models/${encodeURIComponent(id)}`, { token: key });
        assert.equal(result.status, 404, id);
        assert.deepEqual(Object.keys(result.json.error).sort(), ['code', 'message', 'param', 'type']);
        assert.equal(result.json.error.code, 'model_not_found');
        assert.equal(result.json.error.type, 'invalid_request_error');
        assert.equal(result.json.error.param, 'model');
      }
    });

    it('GET /v1/models/{id}: a known model without a configured provider is 400 provider_not_supported', async () => {
      const result = await h.gateway('GET', '/v1/models/openai%2Fgpt-6.2-sol', { token: key });
      assert.equal(result.status, 400, result.text);
      assert.equal(result.json.error.code, 'provider_not_supported');
      assert.equal(result.json.error.type, 'invalid_request_error');
    });

    it('chat completions on a known model without a configured provider: 400 provider_not_supported, not a 502', async () => {
      const result = await h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'openai/gpt-6.2-sol', messages: [{ role: 'user', content: 'Hi' }] },
      });
      assert.equal(result.status, 400, result.text);
      assert.equal(result.json.error.code, 'provider_not_supported');
      assert.equal(result.json.error.param, 'model');
      assert.match(result.json.error.message, /openai/);
    });
  });
}

describe('GET /v1/models without a config file', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      env: { OPENAI_API_KEY: 'sk-set', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', MISTRAL_API_KEY: '' },
    });
  });
  after(async () => h.stop());

  it("lists the active built-in models whose provider's key is set, and the local ones", async () => {
    const key = (await h.createKey(await h.organization())).key;
    const result = await h.gateway('GET', '/v1/models', { token: key });
    const ids = result.json.data.map((m: { id: string }) => m.id).sort();
    assert.deepEqual(
      ids,
      DEFAULT_MODELS.filter((m) => m.active !== false && ['openai', 'local'].includes(m.providers[0]!.provider))
        .map((m) => m.id)
        .sort(),
    );
    assert.ok(ids.includes('local/echo'));
  });
});
