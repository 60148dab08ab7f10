import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { chainKeys, PromptCacheSimulator, type PromptBlock } from '../../src/catalogue/prompt-cache-simulator.js';

const anthropic = cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 });
const openai = cachePricingFor('openai', { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 });

/** Blocks of `tokens` each; breakpoints at the given indexes. */
function prompt(contents: string[], tokens: number, breakpoints: number[] = []): PromptBlock[] {
  return chainKeys(contents).map((key, i) => ({ key, tokens, breakpoint: breakpoints.includes(i) }));
}
const turns = (n: number) => Array.from({ length: n }, (_, i) => `block ${i}`);

describe('prompt cache simulator, Anthropic rules', () => {
  it('caches nothing without breakpoints', () => {
    const sim = new PromptCacheSimulator(anthropic);
    sim.request(prompt(turns(4), 1000), 0);
    assert.deepEqual(sim.request(prompt(turns(5), 1000), 1000), { uncached: 5000, cacheRead: 0, cacheWrite: 0 });
  });

  it('writes up to the last breakpoint, reads it back on the next turn, bills the rest as input', () => {
    const sim = new PromptCacheSimulator(anthropic);
    assert.deepEqual(sim.request(prompt(turns(4), 1000, [3]), 0), { uncached: 0, cacheRead: 0, cacheWrite: 4000 });
    assert.deepEqual(sim.request(prompt(turns(6), 1000, [4]), 1000), {
      uncached: 1000,
      cacheRead: 4000,
      cacheWrite: 1000,
    });
  });

  it('finds an earlier entry at most 20 blocks back from a breakpoint', () => {
    const sim = new PromptCacheSimulator(anthropic);
    sim.request(prompt(turns(10), 200, [9]), 0);
    assert.equal(sim.request(prompt(turns(30), 200, [29]), 1000).cacheRead, 2000); // 9 is 20 back from 29
    const far = new PromptCacheSimulator(anthropic);
    far.request(prompt(turns(10), 200, [9]), 0);
    assert.equal(far.request(prompt(turns(31), 200, [30]), 1000).cacheRead, 0); // 21 back: missed
  });

  it('a breakpoint kept at an unchanged position is hit after a change further on', () => {
    const sim = new PromptCacheSimulator(anthropic);
    sim.request(prompt(turns(40), 200, [5, 39]), 0);
    const changed = [...turns(30), 'rewritten', ...turns(40).slice(31)];
    assert.equal(sim.request(prompt(changed, 200, [5, 39]), 1000).cacheRead, 1200);
  });

  it('entries expire after the TTL unless used', () => {
    const sim = new PromptCacheSimulator(anthropic);
    sim.request(prompt(turns(8), 500, [7]), 0);
    assert.equal(sim.request(prompt(turns(8), 500, [7]), 299_000).cacheRead, 4000);
    assert.equal(sim.request(prompt(turns(8), 500, [7]), 598_000).cacheRead, 4000); // refreshed at 299 s
    assert.equal(sim.request(prompt(turns(8), 500, [7]), 900_000).cacheRead, 0);
  });

  it('prefixes under 1,024 tokens are not cached', () => {
    const sim = new PromptCacheSimulator(anthropic);
    assert.deepEqual(sim.request(prompt(turns(2), 500, [1]), 0), { uncached: 1000, cacheRead: 0, cacheWrite: 0 });
  });

  it('refuses more than 4 breakpoints, as the API does', () => {
    const sim = new PromptCacheSimulator(anthropic);
    assert.throws(() => sim.request(prompt(turns(6), 500, [0, 1, 2, 3, 4]), 0), /at most 4/);
  });

  it('any-prefix mode reads the longest earlier prefix and writes all the rest', () => {
    const sim = new PromptCacheSimulator(anthropic, 'any-prefix');
    sim.request(prompt(turns(5), 1000), 0);
    const changed = [...turns(3), 'x', 'y', 'z'];
    assert.deepEqual(sim.request(prompt(changed, 1000), 1000), { uncached: 0, cacheRead: 3000, cacheWrite: 3000 });
  });
});

describe('prompt cache simulator, OpenAI rules', () => {
  it('reads the longest earlier prefix from 1,024 tokens on, in 128-token steps, and never bills writes', () => {
    const sim = new PromptCacheSimulator(openai);
    sim.request(prompt(turns(5), 300), 0);
    assert.deepEqual(sim.request(prompt(turns(6), 300), 1000), {
      uncached: 1800 - 1408,
      cacheRead: 1408,
      cacheWrite: 0,
    });
  });

  it('a prefix under 1,024 tokens is never read', () => {
    const sim = new PromptCacheSimulator(openai);
    sim.request(prompt(turns(3), 300), 0);
    assert.equal(sim.request(prompt(turns(4), 300), 1000).cacheRead, 0);
  });
});
