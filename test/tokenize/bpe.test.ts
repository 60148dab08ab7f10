// Byte-pair encoding in JavaScript against tiktoken, on pieces the scratch arrays must grow for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { get_encoding } from 'tiktoken';
import { bpeTokenCount } from '../../src/tokenize/bpe.js';
import { TOKENIZERS } from '../../src/tokenize/index.js';

describe('bpeTokenCount', () => {
  for (const tokenizer of TOKENIZERS) {
    it(`${tokenizer}: pieces longer than the kept scratch space, and short ones after them, count as tiktoken counts them`, () => {
      const reference = get_encoding(tokenizer);
      try {
        for (const piece of [
          'a'.repeat(5000),
          'abc',
          ' '.repeat(6000),
          'xyz',
          '='.repeat(4500),
          'é'.repeat(3000),
          'naïve',
          'Hello',
        ]) {
          assert.equal(
            bpeTokenCount(piece, tokenizer),
            reference.encode_ordinary(piece).length,
            `${piece.slice(0, 10)}… (${piece.length})`,
          );
        }
      } finally {
        reference.free();
      }
    });
  }
});
