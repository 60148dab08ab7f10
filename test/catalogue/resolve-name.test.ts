import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Catalogue } from '../../src/catalogue/catalogue.js';
import { DEFAULT_ALIASES, DEFAULT_MODELS } from '../../src/catalogue/default-catalogue.js';

/** Model names exactly as the coding agents and SDKs send them (test/fixtures/agents) → catalogue ids. */
const catalogue = new Catalogue({}, {});
const resolved = (name: string, author?: string) => catalogue.resolve(name, author)?.id;

describe('catalogue name resolution', () => {
  it('resolves the default models of the recorded CLIs on their routes', () => {
    // Claude Code 2.1.197 (main turn), opencode 1.18.33 (turn and title), Codex 0.169.0.
    assert.equal(resolved('anthropic/claude-opus-4-8'), 'anthropic/claude-opus-4-8');
    assert.equal(resolved('anthropic/claude-sonnet-4-6'), 'anthropic/claude-sonnet-4-6');
    assert.equal(resolved('anthropic/claude-haiku-4-5-20251001'), 'anthropic/claude-haiku-4-5');
    assert.equal(resolved('openai/gpt-6.1-sol'), 'openai/gpt-6.1-sol');
  });

  it('strips dated snapshots in both providers’ spellings, and -latest', () => {
    assert.equal(resolved('claude-sonnet-4-5-20250929', 'anthropic'), 'anthropic/claude-sonnet-4-5');
    assert.equal(resolved('claude-opus-4-5-latest', 'anthropic'), 'anthropic/claude-opus-4-5');
    assert.equal(resolved('openai/gpt-6.1-sol-2026-09-29'), 'openai/gpt-6.1-sol');
    assert.equal(resolved('gpt-4o-2024-08-06', 'openai'), 'openai/gpt-4o');
  });

  it('maps the short aliases to the newest model of the family', () => {
    assert.equal(resolved('sonnet', 'anthropic'), DEFAULT_ALIASES.sonnet);
    assert.equal(resolved('anthropic/opus'), DEFAULT_ALIASES.opus);
    assert.equal(resolved('haiku'), DEFAULT_ALIASES.haiku);
    assert.equal(resolved('openai/gpt-5.6'), 'openai/gpt-5.6-sol');
    // An alias never crosses authors.
    assert.equal(resolved('openai/sonnet'), undefined);
  });

  it('reads cloud spellings, the [1m] suffix and dotted Claude versions', () => {
    assert.equal(resolved('us.anthropic.claude-opus-4-5-20251101-v1:0', 'anthropic'), 'anthropic/claude-opus-4-5');
    assert.equal(resolved('anthropic/claude-opus-4-5@20251101'), 'anthropic/claude-opus-4-5');
    assert.equal(resolved('claude-opus-4-8[1m]', 'anthropic'), 'anthropic/claude-opus-4-8');
    assert.equal(resolved('anthropic/claude-opus-4.5'), 'anthropic/claude-opus-4-5');
    assert.equal(resolved('Claude-Sonnet-4-6', 'anthropic'), 'anthropic/claude-sonnet-4-6');
  });

  it('gives a bare name the only author that has it, and no author when two do', () => {
    assert.equal(resolved('gpt-5.4-mini'), 'openai/gpt-5.4-mini');
    const twice = new Catalogue(
      {
        providers: [{ id: 'other', kind: 'openai', base_url: 'http://127.0.0.1:9/v1' }],
        models: [
          {
            id: 'other/gpt-5',
            providers: [{ provider: 'other', model: 'gpt-5' }],
            pricing: { input_per_mtok: 1, output_per_mtok: 1 },
          },
        ],
      },
      {},
    );
    assert.equal(twice.resolve('gpt-5')?.id, undefined);
    assert.equal(twice.resolve('gpt-5', 'openai')?.id, 'openai/gpt-5');
  });

  it('does not invent models: unknown names and inactive models stay unresolved', () => {
    assert.equal(resolved('anthropic/claude-opus-9-9'), undefined);
    assert.equal(resolved('anthropic/claude-opus-4-20250514'), undefined, 'Opus 4 is not in the catalogue');
    const hidden = new Catalogue(
      { models: [{ ...DEFAULT_MODELS.find((m) => m.id === 'anthropic/claude-haiku-4-5')!, active: false }] },
      {},
    );
    assert.equal(hidden.resolve('anthropic/claude-haiku-4-5-20251001'), undefined);
  });

  it('reports how a name matched', () => {
    assert.deepEqual(catalogue.resolveName('anthropic/claude-opus-4-8'), {
      id: 'anthropic/claude-opus-4-8',
      via: 'exact',
    });
    assert.equal(catalogue.resolveName('anthropic/claude-haiku-4-5-20251001')?.via, 'normalised');
    assert.equal(catalogue.resolveName('sonnet', 'anthropic')?.via, 'alias');
  });
});

describe('built-in prices', () => {
  it('every alias points at a built-in model', () => {
    const ids = new Set(DEFAULT_MODELS.map((m) => m.id));
    for (const [alias, id] of Object.entries(DEFAULT_ALIASES)) assert.ok(ids.has(id), `${alias} → ${id}`);
  });

  it('a cache hit never costs more than input, an Anthropic cache write never less, output never less than input', () => {
    for (const m of DEFAULT_MODELS) {
      const p = m.pricing;
      if (m.id === 'local/echo') continue;
      assert.ok(p.input_per_mtok > 0 && p.output_per_mtok >= p.input_per_mtok, m.id);
      if (p.cached_input_per_mtok !== undefined) assert.ok(p.cached_input_per_mtok < p.input_per_mtok, m.id);
      if (p.cache_write_per_mtok !== undefined && m.id.startsWith('anthropic/'))
        assert.ok(p.cache_write_per_mtok > p.input_per_mtok, m.id);
    }
  });
});
