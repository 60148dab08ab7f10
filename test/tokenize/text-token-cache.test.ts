import { getHeapStatistics } from 'node:v8';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEXT_CACHE_MAX_CHARS, TEXT_CACHE_MAX_ENTRY_CHARS } from '../../src/tokenize/index.js';
import { TextTokenCache } from '../../src/tokenize/text-token-cache.js';

function counting(): { calls: string[]; compute: (text: string) => number } {
  const calls: string[] = [];
  return { calls, compute: (text) => (calls.push(text), text.length) };
}

describe('TextTokenCache', () => {
  it('computes a text once per tokenizer', () => {
    const cache = new TextTokenCache({ maxChars: 10_000, maxEntryChars: 1_000 });
    const { calls, compute } = counting();
    cache.count('abc', 'cl100k_base', compute);
    cache.count('abc', 'cl100k_base', compute);
    cache.count('abc', 'o200k_base', compute);
    cache.count('abc', 'o200k_base', compute);
    assert.deepEqual(calls, ['abc', 'abc']);
    assert.deepEqual(cache.stats(), { entries: 1, chars: 3 + 64, hits: 2, misses: 2 });
  });

  it('evicts the least recently used text first, a hit counting as a use', () => {
    // Room for two 36-char entries (36 + 64 overhead each), not three.
    const cache = new TextTokenCache({ maxChars: 250, maxEntryChars: 100 });
    const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(36)) as [string, string, string];
    const { calls, compute } = counting();
    cache.count(a, 'cl100k_base', compute);
    cache.count(b, 'cl100k_base', compute);
    cache.count(a, 'cl100k_base', compute); // a is now the most recent
    cache.count(c, 'cl100k_base', compute); // evicts b
    calls.length = 0;
    cache.count(a, 'cl100k_base', compute);
    cache.count(b, 'cl100k_base', compute);
    assert.deepEqual(calls, [b]);
    assert.ok(cache.stats().chars <= 250);
  });

  it('does not store a text longer than the per-entry limit', () => {
    const cache = new TextTokenCache({ maxChars: 1_000, maxEntryChars: 10 });
    const { calls, compute } = counting();
    assert.equal(cache.count('x'.repeat(11), 'o200k_base', compute), 11);
    assert.equal(cache.count('x'.repeat(11), 'o200k_base', compute), 11);
    assert.equal(calls.length, 2);
    assert.equal(cache.stats().entries, 0);
  });

  it('clear empties entries and counters', () => {
    const cache = new TextTokenCache({ maxChars: 1_000, maxEntryChars: 100 });
    cache.count('abc', 'cl100k_base', (t) => t.length);
    cache.clear();
    assert.deepEqual(cache.stats(), { entries: 0, chars: 0, hits: 0, misses: 0 });
  });

  it('the shared cache is bounded to 32 Mi code units (≤ 64 MiB of text), and to an eighth of a capped heap', () => {
    const heapLimit = getHeapStatistics().heap_size_limit;
    assert.equal(TEXT_CACHE_MAX_CHARS, Math.min(32 * 1024 * 1024, Math.floor(Math.floor(heapLimit / 8) / 2)));
    assert.ok(TEXT_CACHE_MAX_CHARS * 2 <= heapLimit / 8);
    assert.ok(TEXT_CACHE_MAX_ENTRY_CHARS < TEXT_CACHE_MAX_CHARS);
  });
});
