import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { get_encoding } from 'tiktoken';
import { clearTokenCache, countTextTokens, TOKENIZERS } from '../../src/tokenize/index.js';
import { buildCorpus } from './text-corpus.js';

const corpus = buildCorpus();

describe('countTextTokens on a corpus of varied strings', () => {
  it('holds at least 1,000 strings of every kind', () => {
    assert.ok(corpus.length >= 1000, `corpus has ${corpus.length} strings`);
    const kinds = new Set(corpus.map((entry) => entry.kind));
    for (const kind of ['ascii', 'unicode', 'code', 'whitespace', 'crlf', 'numbers', 'special-tokens', 'trajectory']) {
      assert.ok(kinds.has(kind), `missing ${kind}`);
    }
  });

  for (const tokenizer of TOKENIZERS) {
    it(`equals tiktoken encode_ordinary for ${tokenizer}, on a miss and on a hit`, () => {
      const reference = get_encoding(tokenizer);
      clearTokenCache();
      try {
        for (const { kind, text } of corpus) {
          const expected = reference.encode_ordinary(text).length;
          assert.equal(countTextTokens(text, tokenizer), expected, `${kind}: ${JSON.stringify(text.slice(0, 80))}`);
          assert.equal(
            countTextTokens(text, tokenizer),
            expected,
            `cached ${kind}: ${JSON.stringify(text.slice(0, 80))}`,
          );
        }
      } finally {
        reference.free();
      }
    });
  }

  it('counts special-token text as ordinary text instead of throwing', () => {
    const reference = get_encoding('cl100k_base');
    try {
      const text = 'before <|endoftext|> after <|im_start|>';
      assert.equal(countTextTokens(text, 'cl100k_base'), reference.encode_ordinary(text).length);
      assert.ok(countTextTokens('<|endoftext|>', 'cl100k_base') > 1, 'must not collapse to the special token');
    } finally {
      reference.free();
    }
  });
});
