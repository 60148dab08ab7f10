import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  cachePricingFor,
  inputCostMicroUsd,
  relativePrices,
  rewriteBreakeven,
} from '../../src/catalogue/cache-pricing.js';

const sonnet = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, cache_write_per_mtok: 3.75 };
const rounded = (x: { read: number; write: number }) => ({
  read: Math.round(x.read * 1e6) / 1e6,
  write: Math.round(x.write * 1e6) / 1e6,
});
const gpt5 = { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125, cache_write_per_mtok: 2.5 };

describe('cache pricing', () => {
  it('Anthropic caches at breakpoints only, reads at 0.1× and writes at 1.25× of the input price', () => {
    const p = cachePricingFor('anthropic', sonnet);
    assert.deepEqual(p.rules, { kind: 'breakpoints', maxBreakpoints: 4, lookbackBlocks: 20 });
    assert.deepEqual(rounded(relativePrices(p)), { read: 0.1, write: 1.25 });
    assert.equal(p.minCacheableTokens, 1024);
    assert.equal(p.ttlMs, 300_000);
  });

  it('Anthropic without listed cache prices falls back to 0.1× and 1.25×', () => {
    const p = cachePricingFor('anthropic', { input_per_mtok: 4, output_per_mtok: 20 });
    assert.equal(p.cacheReadPerMtok, 0.4);
    assert.equal(p.cacheWritePerMtok, 5);
  });

  it('OpenAI caches automatically in 128-token steps; new tokens cost the input price, not the extended-retention write price', () => {
    const p = cachePricingFor('openai', gpt5);
    assert.deepEqual(p.rules, { kind: 'automatic', blockTokens: 128 });
    assert.equal(p.cacheWritePerMtok, 1.25);
    assert.deepEqual(rounded(relativePrices(p)), { read: 0.1, write: 1 });
  });

  it('an OpenAI model without a cached price gets no discount, and a local model no cache', () => {
    assert.deepEqual(relativePrices(cachePricingFor('openai', { input_per_mtok: 2, output_per_mtok: 6 })), {
      read: 1,
      write: 1,
    });
    assert.equal(cachePricingFor('local', { input_per_mtok: 0, output_per_mtok: 0 }).rules.kind, 'none');
  });

  it('prices reads, writes and plain input separately, in micro-USD', () => {
    const p = cachePricingFor('anthropic', sonnet);
    assert.equal(inputCostMicroUsd(p, { uncached: 100, cacheRead: 1000, cacheWrite: 200 }), 300 + 300 + 750);
  });

  it('rewrite breakeven follows the guide: half the tail removed needs 10.5 more requests on Anthropic, 8 on OpenAI', () => {
    assert.ok(Math.abs(rewriteBreakeven(cachePricingFor('anthropic', sonnet), 2000, 1000) - 10.5) < 1e-9);
    assert.ok(Math.abs(rewriteBreakeven(cachePricingFor('openai', gpt5), 2000, 1000) - 8) < 1e-9);
    assert.equal(rewriteBreakeven(cachePricingFor('openai', gpt5), 2000, 0), Number.POSITIVE_INFINITY);
  });

  it('without a cache discount any saving pays at once', () => {
    assert.equal(rewriteBreakeven(cachePricingFor('local', { input_per_mtok: 1, output_per_mtok: 1 }), 5000, 10), 0);
  });
});
