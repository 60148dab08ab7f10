import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { clearTokenCache, countRequestTokens, countTextTokens, TOKENIZERS } from '../../src/tokenize/index.js';
import { TextTokenCache } from '../../src/tokenize/text-token-cache.js';

const references = Object.fromEntries(TOKENIZERS.map((name) => [name, get_encoding(name)]));
const expected = (text: string, tokenizer: (typeof TOKENIZERS)[number]) =>
  references[tokenizer]!.encode_ordinary(text).length;

// Any UTF-16 code unit, lone surrogates included: JSON bodies can carry them.
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));
const fragment = fc.constantFrom(
  '<|endoftext|>',
  '<|im_start|>',
  '<|fim_prefix|>',
  ' ',
  '  ',
  '\r\n',
  '\n\n',
  '\t',
  '123456',
  'hello',
  "'s",
  '日本',
  '👨‍👩‍👧',
  'e\u0301',
);
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: codeUnit, maxLength: 100 }),
  fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')),
);
const tokenizer = fc.constantFrom(...TOKENIZERS);

describe('countTextTokens properties', () => {
  it('never throws and equals tiktoken on random strings', () => {
    fc.assert(
      fc.property(text, tokenizer, (s, t) => {
        assert.equal(countTextTokens(s, t), expected(s, t));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns the same count on a cache hit as on a miss', () => {
    fc.assert(
      fc.property(text, tokenizer, (s, t) => {
        clearTokenCache();
        const miss = countTextTokens(s, t);
        const hit = countTextTokens(s, t);
        assert.equal(hit, miss);
        // The other tokenizer's slot of the same entry must not leak into this one.
        const other = t === 'cl100k_base' ? 'o200k_base' : 'cl100k_base';
        assert.equal(countTextTokens(s, other), expected(s, other));
      }),
      { numRuns: 500 },
    );
  });

  it('stays exact while a tiny cache evicts constantly', () => {
    const cache = new TextTokenCache({ maxChars: 400, maxEntryChars: 100 });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, tokenizer), { maxLength: 30 }), (pairs) => {
        for (const [s, t] of pairs) {
          assert.equal(
            cache.count(s, t, (x) => expected(x, t)),
            expected(s, t),
          );
          assert.ok(cache.stats().chars <= cache.maxChars);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('countRequestTokens never throws on arbitrary JSON bodies', () => {
    const body = fc.record(
      {
        messages: fc.array(fc.jsonValue(), { maxLength: 5 }),
        system: fc.jsonValue(),
        tools: fc.array(fc.jsonValue(), { maxLength: 3 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, tokenizer, (b, t) => {
        const n = countRequestTokens(b, t);
        assert.ok(Number.isInteger(n) && n >= 0);
      }),
      { numRuns: 1000 },
    );
  });
});
