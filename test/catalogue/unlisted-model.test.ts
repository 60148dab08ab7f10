import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Catalogue, type CatalogueModel } from '../../src/catalogue/catalogue.js';
import { DEFAULT_MODELS } from '../../src/catalogue/default-catalogue.js';
import { providerCeiling } from '../../src/catalogue/unlisted-model.js';

/** Names released after the catalogue was written: forwarded to a configured provider, priced high, flagged. */
const keys = { ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: 'sk-oai' };
const catalogue = new Catalogue({}, keys);

const ACTIVE = DEFAULT_MODELS.filter((m) => m.active !== false);
const highest = (prefix: string, read: (m: (typeof DEFAULT_MODELS)[number]) => number | undefined) =>
  Math.max(...ACTIVE.filter((m) => m.id.startsWith(prefix)).map((m) => read(m) ?? m.pricing.input_per_mtok));

describe('unlisted model names', () => {
  it('a well-formed name of a configured provider is forwarded as sent, flagged unlisted', () => {
    const model = catalogue.resolveForCall('anthropic/claude-opus-9-1')!;
    assert.equal(model.id, 'anthropic/claude-opus-9-1');
    assert.equal(model.unlisted, true);
    assert.equal(model.routes.length, 1);
    assert.equal(model.routes[0]!.provider.id, 'anthropic');
    assert.equal(model.routes[0]!.upstreamModel, 'claude-opus-9-1');
    assert.deepEqual(catalogue.targets(model)[0]!.apiKey, 'sk-ant');
    for (const name of ['openai/gpt-7', 'openai/gpt-6.3-sol-2027-01-05', 'openai/o5-mini', 'openai/codex-2'])
      assert.equal(catalogue.resolveForCall(name)?.unlisted, true, name);
  });

  it('is priced at the provider’s highest known price of each kind, never $0', () => {
    const { pricing, maxOutputTokens } = catalogue.resolveForCall('anthropic/claude-opus-9-1')!;
    assert.equal(
      pricing.input_per_mtok,
      highest('anthropic/', (m) => m.pricing.input_per_mtok),
    );
    assert.equal(
      pricing.output_per_mtok,
      highest('anthropic/', (m) => m.pricing.output_per_mtok),
    );
    assert.equal(
      pricing.cached_input_per_mtok,
      highest('anthropic/', (m) => m.pricing.cached_input_per_mtok),
    );
    assert.equal(
      pricing.cache_write_per_mtok,
      highest('anthropic/', (m) => m.pricing.cache_write_per_mtok),
    );
    assert.equal(maxOutputTokens, 128_000);
    for (const m of ACTIVE.filter((d) => d.id.startsWith('anthropic/'))) {
      assert.ok(pricing.input_per_mtok >= m.pricing.input_per_mtok, m.id);
      assert.ok(pricing.output_per_mtok >= m.pricing.output_per_mtok, m.id);
    }
    const openai = catalogue.resolveForCall('openai/gpt-7')!.pricing;
    assert.ok(openai.input_per_mtok > 0 && openai.output_per_mtok > 0);
  });

  it('known names still resolve to their catalogue model and price', () => {
    const known = catalogue.resolveForCall('anthropic/claude-haiku-4-5-20251001')!;
    assert.equal(known.id, 'anthropic/claude-haiku-4-5');
    assert.equal(known.unlisted, undefined);
  });

  it('typos, other providers’ names, unconfigured and local providers stay unknown', () => {
    for (const name of [
      'anthropic/gpt-5', // not a Claude name
      'anthropic/sonet',
      'openai/claude-opus-9',
      'openai/no-such-model',
      'google/gemini-9-pro', // GEMINI_API_KEY not set
      'mistral/mistral-huge', // MISTRAL_API_KEY not set
      'local/anything',
      'nobody/claude-opus-9', // no such provider
      'anthropic/claude opus', // not a model name
      'anthropic/claude-opus-4-1', // listed, but retired (inactive): not forwarded
      'anthropic/claude-opus-4-1-20250805',
    ])
      assert.equal(catalogue.resolveForCall(name), undefined, name);
  });

  it('a provider the deployment adds takes any model name, priced at the catalogue’s highest when it has no model', () => {
    const custom = new Catalogue(
      { providers: [{ id: 'acme', kind: 'openai', base_url: 'https://llm.acme.test/v1' }] },
      {},
    );
    const model = custom.resolveForCall('acme/acme-coder-2')!;
    assert.equal(model.routes[0]!.upstreamModel, 'acme-coder-2');
    assert.equal(model.pricing.output_per_mtok, Math.max(...ACTIVE.map((m) => m.pricing.output_per_mtok)));
  });

  it('nothing priced, nothing forwarded', () => {
    const free = { pricing: { input_per_mtok: 0, output_per_mtok: 0 }, routes: [] } as unknown as CatalogueModel;
    assert.equal(providerCeiling('anthropic', [free]), undefined);
  });
});
